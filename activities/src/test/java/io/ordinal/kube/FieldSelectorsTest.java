package io.ordinal.kube;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.apps.ControllerRevision;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.ordinal.kube.FieldSelectors.Requirement;
import io.ordinal.kube.FieldSelectors.Selector;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class FieldSelectorsTest {
  // The cases of upstream's fields/selector_test.go.

  @Test
  void parsesUpstreamsGoodSelectorsIntoTheirRequirements() {
    assertEquals(List.of(new Requirement("x", true, "a"), new Requirement("y", true, "b"), new Requirement("z", true, "c")),
        FieldSelectors.parse("x=a,y=b,z=c").requirements());
    assertEquals(List.of(), FieldSelectors.parse("").requirements());
    assertEquals(List.of(new Requirement("x", false, "a"), new Requirement("y", true, "b")),
        FieldSelectors.parse("x!=a,y=b").requirements());
    // An escaped '=' is part of the value; "||" is no operator of field selectors.
    assertEquals(List.of(new Requirement("x", true, "a||y=b")), FieldSelectors.parse("x=a||y\\=b").requirements());
    assertEquals(List.of(new Requirement("x", true, "a==b")), FieldSelectors.parse("x=a\\=\\=b").requirements());
  }

  @ParameterizedTest
  @ValueSource(strings = {"x=a||y=b", "x==a==b", "x=a,b", "x in (a)", "x in (a,b,c)", "x"})
  void rejectsUpstreamsBadSelectors(String text) {
    assertThrows(IllegalArgumentException.class, () -> FieldSelectors.parse(text));
  }

  @Test
  void termsAreSortedAndEscapesUndone() {
    assertEquals(List.of(new Requirement("a", true, "x"), new Requirement("x", true, "a")),
        FieldSelectors.parse("x=a,a=x").requirements());
    assertEquals(List.of(new Requirement("b", true, "value"), new Requirement("c", false, "value")),
        FieldSelectors.parse("c!=value,b==value").requirements());
    // An escaped comma stays in the value; a trailing or doubled comma is an empty term, skipped.
    assertEquals(List.of(new Requirement("k2", true, "v2"), new Requirement("k", true, ",")),
        FieldSelectors.parse("k=\\,,k2=v2,,").requirements());
    assertEquals(List.of(new Requirement("k", true, "\\")), FieldSelectors.parse("k=\\\\").requirements());
    assertEquals(List.of(new Requirement("k", true, "=value,\\")),
        FieldSelectors.parse("k=\\=value\\,\\\\").requirements());
    // No escaping in the field: the first operator splits the term, and spaces are kept.
    assertEquals(List.of(new Requirement("a ", true, " b")), FieldSelectors.parse("a = b").requirements());
    assertEquals(List.of(new Requirement("함", true, "수")), FieldSelectors.parse("함=수").requirements());
    assertTrue(FieldSelectors.parse("").isEmpty());
  }

  @Test
  void errorsReadAsUpstreams() {
    assertEquals("invalid selector: 'x=a,b'; can't understand 'b'", error("x=a,b"));
    assertEquals("invalid field selector: invalid escape sequence: \\a", error("x=\\a"));
    assertEquals("invalid field selector: invalid escape sequence: \\", error("x=\\"));
    assertEquals("invalid field selector: invalid escape sequence: \\", error("x=\\\\\\"));
    // Go prints the rune with %v: its code point.
    assertEquals("invalid field selector: unescaped character in value: 61", error("x==a==b"));
  }

  static String error(String text) {
    return assertThrows(IllegalArgumentException.class, () -> FieldSelectors.parse(text)).getMessage();
  }

  @Test
  void matchesAsUpstream() {
    assertTrue(matches("", Map.of("x", "y")));
    assertTrue(matches("x=y", Map.of("x", "y")));
    assertTrue(matches("x=y,z=w", Map.of("x", "y", "z", "w")));
    assertTrue(matches("x!=y,z!=w", Map.of("x", "z", "z", "a")));
    assertTrue(matches("notin=in", Map.of("notin", "in")));
    assertFalse(matches("x=y", Map.of("x", "z")));
    assertFalse(matches("x=y,z=w", Map.of("x", "w", "z", "w")));
    assertFalse(matches("x!=y,z!=w", Map.of("x", "z", "z", "w")));
    var fields = Map.of("foo", "bar", "baz", "blah", "complex", "=value,\\");
    assertTrue(matches("foo=bar,baz=blah,complex=\\=value\\,\\\\", fields));
    assertFalse(matches("foo=bar,foobar=bar,baz=blah", fields));
    // A field the object does not have is empty.
    assertTrue(matches("missing=", fields));
    assertTrue(matches("missing!=x", fields));
  }

  static boolean matches(String text, Map<String, String> fields) {
    return FieldSelectors.parse(text).matches(fields);
  }

  static final Pod POD = new PodBuilder()
      .withNewMetadata().withName("web-0").withNamespace("default").endMetadata()
      .withNewSpec().withNodeName("node-1").withRestartPolicy("Always").withSchedulerName("default-scheduler")
      .withServiceAccount("legacy").endSpec()
      .withNewStatus().withPhase("Running").addNewPodIP("10.0.0.5").addNewPodIP("fd00::5")
      .withNominatedNodeName("node-2").endStatus()
      .build();

  @Test
  void podFieldsAreUpstreamsSelectableFields() {
    assertEquals(Map.of(
        "metadata.name", "web-0", "metadata.namespace", "default", "spec.nodeName", "node-1",
        "spec.restartPolicy", "Always", "spec.schedulerName", "default-scheduler",
        "spec.serviceAccountName", "legacy", "spec.hostNetwork", "false", "status.phase", "Running",
        "status.podIP", "10.0.0.5", "status.nominatedNodeName", "node-2"), FieldSelectors.fields(POD));
    assertTrue(FieldSelectors.matches(FieldSelectors.parse("status.phase=Running,spec.nodeName=node-1", Pod.class), POD));
    assertTrue(FieldSelectors.matches(FieldSelectors.parse("status.phase!=Pending", Pod.class), POD));
    assertTrue(FieldSelectors.matches(FieldSelectors.parse("spec.hostNetwork=false", Pod.class), POD));
    // spec.host is the old name of spec.nodeName.
    assertEquals(List.of(new Requirement("spec.nodeName", true, "node-1")),
        FieldSelectors.parse("spec.host=node-1", Pod.class).requirements());
    // status.podIPs is accepted but no pod offers it: it reads as empty.
    assertFalse(FieldSelectors.matches(FieldSelectors.parse("status.podIPs=10.0.0.5", Pod.class), POD));
    assertTrue(FieldSelectors.matches(FieldSelectors.parse("status.podIPs=", Pod.class), POD));
    Pod named = new PodBuilder(POD).editSpec().withServiceAccountName("web").withHostNetwork(true).endSpec().build();
    assertTrue(FieldSelectors.matches(FieldSelectors.parse("spec.serviceAccountName=web,spec.hostNetwork=true", Pod.class), named));
  }

  @Test
  void eventFieldsAreUpstreamsSelectableFields() {
    Event event = new EventBuilder()
        .withNewMetadata().withName("web-0.1").withNamespace("default").endMetadata()
        .withNewInvolvedObject().withKind("Pod").withNamespace("default").withName("web-0").withUid("u1")
        .withApiVersion("v1").withResourceVersion("9").withFieldPath("spec.containers{nginx}").endInvolvedObject()
        .withReason("Created").withType("Normal").withReportingComponent("kubelet").build();
    Map<String, String> fields = FieldSelectors.fields(event);
    assertEquals("Pod", fields.get("involvedObject.kind"));
    assertEquals("u1", fields.get("involvedObject.uid"));
    assertEquals("spec.containers{nginx}", fields.get("involvedObject.fieldPath"));
    // Without source.component, the reporting component is the source.
    assertEquals("kubelet", fields.get("source"));
    assertEquals(FieldSelectors.supportedLabels(Event.class), fields.keySet());
    assertTrue(FieldSelectors.matches(FieldSelectors.parse(
        "involvedObject.kind=Pod,involvedObject.name=web-0,type=Normal,reason=Created,reportingComponent=kubelet",
        Event.class), event));
    Event withSource = new EventBuilder(event).withNewSource().withComponent("ordinal").endSource().build();
    assertEquals("ordinal", FieldSelectors.fields(withSource).get("source"));
  }

  @Test
  void unsupportedLabelsAreRejectedPerKind() {
    assertEquals("field label not supported: spec.containers",
        assertThrows(IllegalArgumentException.class, () -> FieldSelectors.parse("spec.containers=x", Pod.class)).getMessage());
    assertEquals("field label not supported: message",
        assertThrows(IllegalArgumentException.class, () -> FieldSelectors.parse("message=x", Event.class)).getMessage());
    for (var kind : List.of(StatefulSet.class, PersistentVolumeClaim.class, ControllerRevision.class)) {
      var error = assertThrows(IllegalArgumentException.class, () -> FieldSelectors.parse("status.phase=Bound", kind));
      assertEquals("\"status.phase\" is not a known field selector: only \"metadata.name\", \"metadata.namespace\"",
          error.getMessage());
    }
    // The first term in sorted order is reported; syntax errors come before label errors.
    assertEquals("field label not supported: a",
        assertThrows(IllegalArgumentException.class, () -> FieldSelectors.parse("b=1,a=2", Pod.class)).getMessage());
    assertEquals("invalid selector: 'b=1,a'; can't understand 'a'",
        assertThrows(IllegalArgumentException.class, () -> FieldSelectors.parse("b=1,a", Pod.class)).getMessage());
  }

  @Test
  void otherKindsOfferNameAndNamespace() {
    PersistentVolumeClaim claim = new PersistentVolumeClaimBuilder()
        .withNewMetadata().withName("data-web-0").withNamespace("prod").endMetadata().build();
    assertEquals(Map.of("metadata.name", "data-web-0", "metadata.namespace", "prod"), FieldSelectors.fields(claim));
    Selector selector = FieldSelectors.parse("metadata.name=data-web-0,metadata.namespace!=default",
        PersistentVolumeClaim.class);
    assertTrue(FieldSelectors.matches(selector, claim));
  }
}
