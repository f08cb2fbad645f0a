package io.ordinal.pods;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.ordinal.kube.MemberOverrides;
import io.ordinal.store.ControllerRevisionRow;
import io.ordinal.store.KubeJson;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MemberTemplatesTest {
  static final PodTemplateSpec TEMPLATE = KubeJson.read("""
      {"metadata":{"labels":{"app":"db"}},"spec":{"containers":[
        {"name":"db","image":"postgres:17","env":[{"name":"A","value":"1"}]},
        {"name":"exporter","image":"exporter:1"}]}}""", PodTemplateSpec.class);

  static String overrides(String yaml) {
    ObjectMeta meta = new ObjectMeta();
    meta.setAnnotations(Map.of(MemberOverrides.ANNOTATION, yaml));
    return MemberOverrides.canonical(meta);
  }

  static ControllerRevisionRow revision(String name, String overrides) {
    return new ControllerRevisionRow("ns/" + name, "ns", name, "db", "uid-" + name, 1, KubeJson.write(TEMPLATE),
        Instant.EPOCH, 1, null, Instant.EPOCH, false, overrides);
  }

  @Test
  void anOverrideMergesIntoTheTemplateStrategicallyAndOnlyForItsOrdinals() {
    String big = overrides("""
        - ordinals: "2-3"
          template:
            metadata: {annotations: {tier: big}}
            spec:
              nodeSelector: {disk: ssd}
              containers:
              - name: db
                env: [{name: B, value: "2"}]
                resources: {limits: {memory: 4Gi}}
        """);
    PodTemplateSpec member = MemberTemplates.apply(TEMPLATE, big, 2);
    var db = member.getSpec().getContainers().get(0);
    assertEquals("postgres:17", db.getImage(), "the container's other fields are the template's");
    assertEquals("4Gi", db.getResources().getLimits().get("memory").toString());
    assertEquals(2, db.getEnv().size(), "env merges by name");
    assertEquals("exporter:1", member.getSpec().getContainers().get(1).getImage(), "containers merge by name");
    assertEquals(Map.of("disk", "ssd"), member.getSpec().getNodeSelector());
    assertEquals("big", member.getMetadata().getAnnotations().get("tier"));
    assertEquals(Map.of("app", "db"), member.getMetadata().getLabels());

    PodTemplateSpec other = MemberTemplates.apply(TEMPLATE, big, 1);
    assertTrue(other.getSpec().getNodeSelector().isEmpty());
    assertEquals(1, other.getSpec().getContainers().get(0).getEnv().size());
    assertTrue(TEMPLATE.getSpec().getNodeSelector().isEmpty(), "the template is left as it was");
    assertEquals("IfNotPresent", other.getSpec().getContainers().get(0).getImagePullPolicy(), "defaulted");
  }

  @Test
  void twoRevisionsGiveAnOrdinalTheSameTemplateWhenOnlyAnotherRangesOverrideDiffers() {
    ControllerRevisionRow before = revision("db-a", overrides("- {ordinals: \"3-4\", template: {metadata: {annotations: {m: \"2Gi\"}}}}"));
    ControllerRevisionRow after = revision("db-b", overrides("- {ordinals: \"3-4\", template: {metadata: {annotations: {m: \"4Gi\"}}}}"));
    ControllerRevisionRow none = revision("db-c", null);
    assertTrue(MemberTemplates.same(before, after, 0));
    assertTrue(MemberTemplates.same(before, none, 2));
    assertFalse(MemberTemplates.same(before, after, 3));
    assertFalse(MemberTemplates.same(before, none, 4));
  }

  @Test
  void eachOverrideIsAppliedToTheTemplateAndOneThatCannotApplyIsNamed() {
    var each = MemberTemplates.eachOverride(TEMPLATE, overrides("""
        - {ordinals: "0", template: {spec: {hostname: a}}}
        - {ordinals: "1", template: {spec: {hostname: b}}}
        """));
    assertEquals("a", each.get(0).getSpec().getHostname());
    assertEquals("b", each.get(1).getSpec().getHostname());
    IllegalArgumentException wrong = assertThrows(IllegalArgumentException.class, () -> MemberTemplates.eachOverride(
        TEMPLATE, overrides("- {ordinals: \"0\", template: {spec: {containers: {name: x}}}}")));
    assertTrue(wrong.getMessage().startsWith("[0].template: "), wrong.getMessage());
  }
}
