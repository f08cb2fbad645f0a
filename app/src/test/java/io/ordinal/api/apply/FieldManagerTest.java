package io.ordinal.api.apply;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.ordinal.store.KubeJson;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class FieldManagerTest {
  private static final FieldManager STATEFUL_SETS = FieldManager.of(StatefulSet.class, "apps/v1");
  private static final Instant T0 = Instant.parse("2025-01-01T10:00:00.123Z");
  private static final Instant T1 = Instant.parse("2025-01-01T11:00:00Z");
  private static final Instant T2 = Instant.parse("2025-01-01T12:00:00Z");
  private static final Instant T3 = Instant.parse("2025-01-01T13:00:00Z");

  private static final String WEB = """
      apiVersion: apps/v1
      kind: StatefulSet
      metadata:
        name: web
        namespace: default
        labels: {app: web}
      spec:
        replicas: 2
        serviceName: web
        selector: {matchLabels: {app: web}}
        template:
          metadata:
            labels: {app: web}
          spec:
            containers:
            - name: nginx
              image: nginx:1.27
              ports:
              - containerPort: 80
                name: http
              env:
              - {name: A, value: "1"}
              - {name: B, value: "2"}
      """;

  // ---- kubectl's life of a StatefulSet ------------------------------------------------------

  @Test
  void clientSideApplyCreatesAnUpdateEntryOwningWhatItWrote() {
    ObjectNode created = STATEFUL_SETS.update(null, yaml(WEB), "kubectl-client-side-apply", null, T0);

    JsonNode entries = created.at("/metadata/managedFields");
    assertEquals(1, entries.size());
    JsonNode entry = entries.get(0);
    assertEquals("kubectl-client-side-apply", entry.get("manager").asText());
    assertEquals("Update", entry.get("operation").asText());
    assertEquals("apps/v1", entry.get("apiVersion").asText());
    assertEquals("2025-01-01T10:00:00Z", entry.get("time").asText());
    assertEquals("FieldsV1", entry.get("fieldsType").asText());
    assertFalse(entry.has("subresource"));
    JsonNode fields = entry.get("fieldsV1");
    // Go always writes spec, template and its metadata: they are not "added", so no "." for them.
    assertFalse(fields.get("f:spec").has("."));
    assertEquals(json("{\"f:app\":{},\".\":{}}"), fields.at("/f:metadata/f:labels"));
    assertEquals(json("{}"), fields.at("/f:spec/f:selector")); // LabelSelector is atomic
    JsonNode nginx = fields.at("/f:spec/f:template/f:spec/f:containers").get("k:{\"name\":\"nginx\"}");
    assertTrue(nginx.has("."));
    assertTrue(nginx.has("f:resources")); // Go writes resources: {} in every container
    assertTrue(nginx.get("f:ports").has("k:{\"containerPort\":80,\"protocol\":\"TCP\"}"));
    assertTrue(nginx.get("f:env").has("k:{\"name\":\"A\"}"));
    assertFalse(fields.at("/f:metadata").has("f:name"));
    assertFalse(fields.has("f:apiVersion") || fields.has("f:kind") || fields.has("f:status"));
  }

  @Test
  void scaleThenApplyConflictsWithTheScaler() {
    ObjectNode live = STATEFUL_SETS.update(null, yaml(WEB), "kubectl-client-side-apply", null, T0);
    live = STATEFUL_SETS.update(live, with(live, "/spec", "replicas", 5), "kubectl-scale", "scale", T1);

    JsonNode scale = entry(live, "kubectl-scale");
    assertEquals("scale", scale.get("subresource").asText());
    assertEquals(json("{\"f:spec\":{\"f:replicas\":{}}}"), scale.get("fieldsV1"));
    assertTrue(entry(live, "kubectl-client-side-apply").at("/fieldsV1/f:spec/f:replicas").isMissingNode());

    ObjectNode config = with(yaml(WEB), "/spec", "replicas", 3);
    ObjectNode before = live;
    ApplyConflictException conflict = assertThrows(ApplyConflictException.class,
        () -> STATEFUL_SETS.apply(before, config, "kubectl", false, T2));
    assertEquals("Apply failed with 1 conflict: conflict with \"kubectl-scale\" with subresource \"scale\" using apps/v1: .spec.replicas",
        conflict.getMessage());
    assertEquals(List.of(new ApplyConflictException.Conflict("kubectl-scale", "Update", "apps/v1", "scale", ".spec.replicas")),
        conflict.conflicts());
    assertEquals("conflict with \"kubectl-scale\" with subresource \"scale\" using apps/v1", conflict.conflicts().get(0).message());
  }

  @Test
  void kubectlsServerSideApplyTakesOverWhatItsClientSideApplyLastAppliedWithoutConflict() {
    // kubectl apply (client-side) created the set and recorded its manifest in the annotation.
    ObjectNode manifest = yaml(WEB);
    ObjectNode annotated = yaml(WEB);
    ((ObjectNode) annotated.get("metadata")).putObject("annotations")
        .put("kubectl.kubernetes.io/last-applied-configuration", manifest.toString());
    ObjectNode live = STATEFUL_SETS.update(null, annotated, "kubectl-client-side-apply", null, T0);
    ObjectNode changed = with(yaml(WEB), "/spec", "replicas", 3);

    // Another manager would conflict on the client-side applier's replicas ...
    assertThrows(ApplyConflictException.class, () -> STATEFUL_SETS.apply(live, changed, "deployer", false, T1));
    // ... kubectl's server-side apply takes them, as upstream's lastAppliedManager lets it ...
    ObjectNode applied = assertDoesNotThrow(() -> STATEFUL_SETS.apply(live, changed, "kubectl", false, T1));
    assertEquals(3, applied.at("/spec/replicas").asInt());
    assertTrue(entry(applied, "kubectl").at("/fieldsV1/f:spec/f:replicas").isObject());
    // ... and keeps the annotation in step with what it applied (upstream's lastAppliedUpdater).
    JsonNode lastApplied = json(applied.at("/metadata/annotations")
        .get("kubectl.kubernetes.io/last-applied-configuration").asText());
    assertEquals(3, lastApplied.at("/spec/replicas").asInt());

    // A field whose live value is no longer what was last applied still conflicts.
    ObjectNode scaled = STATEFUL_SETS.update(live, with(live, "/spec", "replicas", 5), "kubectl-scale", "scale", T1);
    ApplyConflictException conflict = assertThrows(ApplyConflictException.class,
        () -> STATEFUL_SETS.apply(scaled, changed, "kubectl", false, T2));
    assertEquals(".spec.replicas", conflict.conflicts().get(0).field());
  }

  @Test
  void forcedApplyTakesTheFieldOver() throws Exception {
    ObjectNode live = STATEFUL_SETS.update(null, yaml(WEB), "kubectl-client-side-apply", null, T0);
    live = STATEFUL_SETS.update(live, with(live, "/spec", "replicas", 5), "kubectl-scale", "scale", T1);

    ObjectNode applied = STATEFUL_SETS.apply(live, with(yaml(WEB), "/spec", "replicas", 3), "kubectl", true, T2);

    assertEquals(3, applied.at("/spec/replicas").asInt());
    assertNull(entry(applied, "kubectl-scale"), "its only field moved to the applier");
    JsonNode kubectl = entry(applied, "kubectl");
    assertEquals("Apply", kubectl.get("operation").asText());
    assertEquals("2025-01-01T12:00:00Z", kubectl.get("time").asText());
    assertTrue(kubectl.at("/fieldsV1/f:spec/f:replicas").isObject());
    // Fields applied with the values they had are shared, not taken.
    assertTrue(entry(applied, "kubectl-client-side-apply").at("/fieldsV1/f:spec/f:serviceName").isObject());
    assertTrue(kubectl.at("/fieldsV1/f:spec/f:serviceName").isObject());
    // Apply entries come first.
    assertEquals("kubectl", applied.at("/metadata/managedFields/0/manager").asText());
  }

  @Test
  void conflictsWithOneManagerAreListedUnderIt() {
    ObjectNode live = STATEFUL_SETS.update(null, yaml(WEB), "m", null, T0);
    ObjectNode config = yaml(WEB);
    ((ObjectNode) config.get("spec")).put("replicas", 7);
    ((ObjectNode) config.at("/spec/template/spec/containers/0")).put("image", "nginx:1.28");

    ApplyConflictException conflict = assertThrows(ApplyConflictException.class,
        () -> STATEFUL_SETS.apply(live, config, "kubectl", false, T1));
    assertEquals("Apply failed with 2 conflicts: conflicts with \"m\" using apps/v1:\n"
        + "- .spec.replicas\n"
        + "- .spec.template.spec.containers[name=\"nginx\"].image", conflict.getMessage());
  }

  @Test
  void applyingWithoutAnEnvVarRemovesIt() throws Exception {
    ObjectNode live = STATEFUL_SETS.apply(null, yaml(WEB), "kubectl", false, T0);
    ObjectNode config = yaml(WEB);
    ((com.fasterxml.jackson.databind.node.ArrayNode) config.at("/spec/template/spec/containers/0/env")).remove(1);

    ObjectNode applied = STATEFUL_SETS.apply(live, config, "kubectl", false, T1);

    assertEquals(json("[{\"name\":\"A\",\"value\":\"1\"}]"), applied.at("/spec/template/spec/containers/0/env"));
    assertFalse(entry(applied, "kubectl").at("/fieldsV1/f:spec/f:template/f:spec/f:containers")
        .get("k:{\"name\":\"nginx\"}").get("f:env").has("k:{\"name\":\"B\"}"));
  }

  @Test
  void anEnvVarAnotherApplierAlsoAppliesStays() throws Exception {
    ObjectNode live = STATEFUL_SETS.apply(null, yaml(WEB), "kubectl", false, T0);
    ObjectNode sidecarConfig = yaml("""
        apiVersion: apps/v1
        kind: StatefulSet
        metadata: {name: web, namespace: default}
        spec:
          template:
            spec:
              containers:
              - name: nginx
                env:
                - {name: B, value: "2"}
        """);
    live = STATEFUL_SETS.apply(live, sidecarConfig, "other", false, T1);
    ObjectNode config = yaml(WEB);
    ((com.fasterxml.jackson.databind.node.ArrayNode) config.at("/spec/template/spec/containers/0/env")).remove(1);

    ObjectNode applied = STATEFUL_SETS.apply(live, config, "kubectl", false, T2);

    assertEquals(2, applied.at("/spec/template/spec/containers/0/env").size());
  }

  @Test
  void containerPortsAreKnownByNumberAndDefaultedProtocol() throws Exception {
    ObjectNode applied = STATEFUL_SETS.apply(null, yaml(WEB), "kubectl", false, T0);
    JsonNode nginx = entry(applied, "kubectl").at("/fieldsV1/f:spec/f:template/f:spec/f:containers")
        .get("k:{\"name\":\"nginx\"}");
    assertEquals(json("{\"f:containerPort\":{},\"f:name\":{},\".\":{}}"),
        nginx.at("/f:ports").get("k:{\"containerPort\":80,\"protocol\":\"TCP\"}"));
    assertFalse(applied.at("/spec/template/spec/containers/0/ports/0").has("protocol"), "apply fills no default");
    // An Apply entry lists no "." for structs and maps, only for list items.
    assertFalse(entry(applied, "kubectl").at("/fieldsV1/f:metadata/f:labels").has("."));
  }

  @Test
  void applyingTheSameValuesAgainChangesNothingAndKeepsTheTime() throws Exception {
    ObjectNode live = STATEFUL_SETS.apply(null, yaml(WEB), "kubectl", false, T0);
    ObjectNode again = STATEFUL_SETS.apply(live, yaml(WEB), "kubectl", false, T1);
    assertEquals(live, again);
  }

  @Test
  void statusIsNeverOwnedThroughTheMainResource() throws Exception {
    ObjectNode withStatus = with(yaml(WEB), "", "status", 0);
    withStatus.putObject("status").put("replicas", 2);
    ObjectNode created = STATEFUL_SETS.update(null, withStatus, "kube-controller-manager", null, T0);
    assertTrue(entry(created, "kube-controller-manager").at("/fieldsV1/f:status").isMissingNode());
    ObjectNode applied = STATEFUL_SETS.apply(null, withStatus, "kubectl", false, T0);
    assertTrue(entry(applied, "kubectl").at("/fieldsV1/f:status").isMissingNode());

    ObjectNode updated = created.deepCopy();
    ((ObjectNode) updated.get("status")).put("replicas", 3).put("readyReplicas", 1);
    ((ObjectNode) updated.get("spec")).put("replicas", 9); // the status strategy resets spec; no one owns it here
    ObjectNode status = STATEFUL_SETS.update(created, updated, "kube-controller-manager", "status", T1);
    JsonNode entry = entry(status, "kube-controller-manager", "status");
    assertEquals(json("{\"f:status\":{\"f:readyReplicas\":{},\"f:replicas\":{}}}"), entry.get("fieldsV1"));
  }

  @Test
  void removedFieldsLeaveEverySetAndTheTimeMovesOnlyWithAChange() {
    ObjectNode live = STATEFUL_SETS.update(null, yaml(WEB), "creator", null, T0);
    ObjectNode updated = live.deepCopy();
    ((ObjectNode) updated.at("/metadata/labels")).remove("app");
    ObjectNode removed = STATEFUL_SETS.update(live, updated, "editor", null, T1);
    assertNull(entry(removed, "editor"), "removing fields owns nothing");
    // The label left every set; the labels map itself, still there (empty), stays the creator's.
    assertEquals(json("{}"), entry(removed, "creator").at("/fieldsV1/f:metadata/f:labels"));
    assertEquals("2025-01-01T10:00:00Z", entry(removed, "creator").get("time").asText());

    ObjectNode same = STATEFUL_SETS.update(removed, removed.deepCopy(), "creator", null, T2);
    assertEquals("2025-01-01T10:00:00Z", entry(same, "creator").get("time").asText());
  }

  @Test
  void managedFieldsSentWithAnUpdateAreTheStartingPoint() {
    ObjectNode live = STATEFUL_SETS.update(null, yaml(WEB), "kubectl-client-side-apply", null, T0);
    // kubectl's migration to server-side apply rewrites the entry's manager and operation.
    ObjectNode migrated = live.deepCopy();
    ObjectNode entry = (ObjectNode) migrated.at("/metadata/managedFields/0");
    entry.put("manager", "kubectl").put("operation", "Apply");
    ObjectNode result = STATEFUL_SETS.update(live, migrated, "kubectl", null, T1);
    assertEquals("Apply", entry(result, "kubectl").get("operation").asText());
    assertNull(entry(result, "kubectl-client-side-apply"));

    ObjectNode cleared = live.deepCopy();
    ((ObjectNode) cleared.get("metadata")).putArray("managedFields").addObject();
    assertTrue(STATEFUL_SETS.update(live, cleared, "x", null, T1).at("/metadata/managedFields").isMissingNode());

    ObjectNode invalid = live.deepCopy();
    ((ObjectNode) invalid.at("/metadata/managedFields/0")).put("operation", "Patch");
    IllegalArgumentException error = assertThrows(IllegalArgumentException.class,
        () -> STATEFUL_SETS.update(live, invalid, "x", null, T1));
    assertEquals("metadata.managedFields[0]: operation must be `Apply` or `Update`", error.getMessage());
  }

  @Test
  void atMostTenUpdateEntriesAreKept() {
    ObjectNode live = STATEFUL_SETS.update(null, yaml(WEB), "creator", null, T0);
    for (int i = 0; i < 11; i++) {
      ObjectNode updated = live.deepCopy();
      ((ObjectNode) updated.at("/metadata/labels")).put("l" + i, "x");
      live = STATEFUL_SETS.update(live, updated, "m" + i, null, T0.plusSeconds(60L * (i + 1)));
    }
    JsonNode entries = live.at("/metadata/managedFields");
    assertEquals(10, entries.size());
    JsonNode ancient = entry(live, "ancient-changes");
    assertTrue(ancient.at("/fieldsV1/f:metadata/f:labels/f:l0").isObject()); // m0's
    assertTrue(ancient.at("/fieldsV1/f:spec/f:replicas").isObject()); // creator's
    assertNull(entry(live, "creator"));
    assertNull(entry(live, "m0"));
  }

  @Test
  void appliedConfigurationsMustBeOfTheServedKind() {
    ObjectNode config = yaml(WEB);
    config.put("apiVersion", "apps/v1beta2");
    assertEquals("invalid object type: apps/v1beta2, Kind=StatefulSet",
        assertThrows(IllegalArgumentException.class, () -> STATEFUL_SETS.apply(null, config, "k", false, T0)).getMessage());
    ObjectNode withManagedFields = yaml(WEB);
    ((ObjectNode) withManagedFields.get("metadata")).putArray("managedFields");
    assertEquals("metadata.managedFields must be nil",
        assertThrows(IllegalArgumentException.class, () -> STATEFUL_SETS.apply(null, withManagedFields, "k", false, T0)).getMessage());
    ObjectNode noKey = yaml(WEB);
    ((ObjectNode) noKey.at("/spec/template/spec/containers/0")).remove("name");
    assertEquals(".spec.template.spec.containers: element 0: associative list with keys has an element that omits key field \"name\" (and doesn't have default value)",
        assertThrows(IllegalArgumentException.class, () -> STATEFUL_SETS.apply(null, noKey, "k", false, T0)).getMessage());
  }

  // ---- helpers -------------------------------------------------------------------------------

  static ObjectNode yaml(String text) {
    try {
      return (ObjectNode) KubeJson.YAML.readTree(text);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  static JsonNode json(String text) {
    try {
      return KubeJson.JSON.readTree(text);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A copy of {@code object} with {@code field} of the object at {@code pointer} set to {@code value}. */
  static ObjectNode with(ObjectNode object, String pointer, String field, int value) {
    ObjectNode copy = object.deepCopy();
    ((ObjectNode) copy.at(pointer)).put(field, value);
    return copy;
  }

  static JsonNode entry(JsonNode object, String manager) {
    return entry(object, manager, null);
  }

  static JsonNode entry(JsonNode object, String manager, String subresource) {
    List<JsonNode> found = new ArrayList<>();
    for (JsonNode entry : object.at("/metadata/managedFields")) {
      if (entry.get("manager").asText().equals(manager)
          && (subresource == null || subresource.equals(entry.path("subresource").asText()))) {
        found.add(entry);
      }
    }
    assertTrue(found.size() <= 1, "one entry of " + manager);
    return found.isEmpty() ? null : found.get(0);
  }
}
