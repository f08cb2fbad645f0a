package io.ordinal.api.apply;

import static io.ordinal.api.apply.FieldManagerTest.entry;
import static io.ordinal.api.apply.FieldManagerTest.json;
import static io.ordinal.api.apply.FieldManagerTest.yaml;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import java.time.Instant;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * structured-merge-diff's own cases (merge/multiple_appliers_test.go, merge/conflict_test.go,
 * merge/set_test.go, merge/key_test.go, typed/merge_test.go, fieldpath/serialize_test.go),
 * translated onto a StatefulSet: labels for a granular map, finalizers for a set, containers for
 * a map list, replicas for a scalar.
 */
class FieldManagerTestUpstreamCases {
  private static final FieldManager STATEFUL_SETS = FieldManager.of(StatefulSet.class, "apps/v1");
  private static final Schema SCHEMA = Schema.root(StatefulSet.class);
  private static final Instant NOW = Instant.parse("2025-02-01T00:00:00Z");

  private static ObjectNode config(String spec) {
    return yaml("apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: s}\n" + spec);
  }

  private static ObjectNode apply(ObjectNode live, String manager, String spec) throws ApplyConflictException {
    return STATEFUL_SETS.apply(live, config(spec), manager, false, NOW);
  }

  // ---- multiple appliers ---------------------------------------------------------------------

  @Test
  void twoAppliersOfTheSameValueShareTheFieldUntilBothLetGo() throws Exception {
    ObjectNode live = apply(null, "apply-one", "spec: {replicas: 3}");
    live = apply(live, "apply-two", "spec: {replicas: 3}");
    assertTrue(entry(live, "apply-one").at("/fieldsV1/f:spec/f:replicas").isObject());
    assertTrue(entry(live, "apply-two").at("/fieldsV1/f:spec/f:replicas").isObject());

    live = apply(live, "apply-one", "metadata: {labels: {a: b}}");
    assertEquals(3, live.at("/spec/replicas").asInt(), "apply-two still owns it");
    live = apply(live, "apply-two", "metadata: {labels: {c: d}}");
    assertTrue(live.at("/spec/replicas").isMissingNode(), "no one owns it any more");
  }

  @Test
  void appliersOfDifferentValuesConflict() throws Exception {
    ObjectNode live = apply(null, "apply-one", "spec: {replicas: 3}");
    ObjectNode before = live;
    ApplyConflictException conflict = assertThrows(ApplyConflictException.class,
        () -> apply(before, "apply-two", "spec: {replicas: 4}"));
    // An applier is named without its apiVersion.
    assertEquals("Apply failed with 1 conflict: conflict with \"apply-one\": .spec.replicas", conflict.getMessage());

    live = STATEFUL_SETS.apply(live, config("spec: {replicas: 4}"), "apply-two", true, NOW);
    assertEquals(4, live.at("/spec/replicas").asInt());
    assertNull(entry(live, "apply-one"));
    // apply-one no longer owns replicas: dropping it from its configuration removes nothing.
    live = apply(live, "apply-one", "metadata: {labels: {a: b}}");
    assertEquals(4, live.at("/spec/replicas").asInt());
  }

  @Test
  void anUpdaterTakesFieldsFromAnApplier() throws Exception {
    ObjectNode live = apply(null, "apply-one", "spec: {replicas: 3}\n");
    ObjectNode scaled = live.deepCopy();
    ((ObjectNode) scaled.get("spec")).put("replicas", 5);
    live = STATEFUL_SETS.update(live, scaled, "controller", null, NOW);
    assertNull(entry(live, "apply-one"), "its only field went to the updater");

    ObjectNode before = live;
    ApplyConflictException conflict = assertThrows(ApplyConflictException.class,
        () -> apply(before, "apply-one", "spec: {replicas: 3}"));
    assertEquals("Apply failed with 1 conflict: conflict with \"controller\" using apps/v1: .spec.replicas",
        conflict.getMessage());
    // Applying the updater's value is no conflict: the field becomes shared.
    live = apply(live, "apply-one", "spec: {replicas: 5}");
    assertTrue(entry(live, "controller").at("/fieldsV1/f:spec/f:replicas").isObject());
  }

  @Test
  void conflictsOfSeveralManagersAreGroupedBySortedManager() throws Exception {
    ObjectNode live = apply(null, "b-applier", "spec: {replicas: 3}");
    live = apply(live, "a-applier", "metadata: {labels: {x: y}}");
    ObjectNode before = live;
    ApplyConflictException conflict = assertThrows(ApplyConflictException.class,
        () -> apply(before, "c", "metadata: {labels: {x: z}}\nspec: {replicas: 4}"));
    assertEquals("Apply failed with 2 conflicts: conflicts with \"a-applier\":\n- .metadata.labels.x\n"
        + "conflicts with \"b-applier\":\n- .spec.replicas", conflict.getMessage());
    assertEquals(2, conflict.conflicts().size());
  }

  // ---- associative lists ---------------------------------------------------------------------

  private static String containers(String... names) {
    StringBuilder spec = new StringBuilder("spec:\n  template:\n    spec:\n      containers:\n");
    for (String name : names) {
      spec.append("      - {name: ").append(name).append(", image: ").append(name).append(":1}\n");
    }
    return spec.toString();
  }

  private static List<String> containerNames(JsonNode object) {
    return object.at("/spec/template/spec/containers").findValuesAsText("name");
  }

  @Test
  void anItemNoLongerAppliedIsRemoved() throws Exception {
    ObjectNode live = apply(null, "apply-one", containers("a", "b"));
    live = apply(live, "apply-one", containers("a"));
    assertEquals(List.of("a"), containerNames(live));
  }

  @Test
  void anItemAnotherApplierOwnsStays() throws Exception {
    ObjectNode live = apply(null, "apply-one", containers("a", "b"));
    live = apply(live, "apply-two", containers("b"));
    live = apply(live, "apply-one", containers("a"));
    assertEquals(List.of("a", "b"), containerNames(live));
    assertFalse(entry(live, "apply-one").at("/fieldsV1/f:spec/f:template/f:spec/f:containers").has("k:{\"name\":\"b\"}"));

    live = apply(live, "apply-two", "metadata: {labels: {x: y}}");
    assertEquals(List.of("a"), containerNames(live));
  }

  @Test
  void anUpdatersFieldInAnItemDoesNotKeepTheItem() throws Exception {
    // The item itself is what counts; a field of it someone else owns goes with it.
    ObjectNode live = apply(null, "apply-one", containers("a", "b"));
    ObjectNode edited = live.deepCopy();
    ((ObjectNode) edited.at("/spec/template/spec/containers/1")).put("workingDir", "/srv");
    live = STATEFUL_SETS.update(live, edited, "editor", null, NOW);
    live = apply(live, "apply-one", containers("a"));
    assertEquals(List.of("a"), containerNames(live));
    assertNull(entry(live, "editor"));
  }

  @Test
  void setItemsAreMergedAndRemovedByValue() throws Exception {
    ObjectNode live = apply(null, "apply-one", "metadata: {finalizers: [x, y]}");
    live = apply(live, "apply-two", "metadata: {finalizers: [z]}");
    assertEquals(json("[\"x\",\"y\",\"z\"]"), live.at("/metadata/finalizers"));
    assertEquals(json("{\"v:\\\"x\\\"\":{},\"v:\\\"y\\\"\":{}}"), entry(live, "apply-one").at("/fieldsV1/f:metadata/f:finalizers"));

    live = apply(live, "apply-one", "metadata: {finalizers: [x]}");
    assertEquals(json("[\"x\",\"z\"]"), live.at("/metadata/finalizers"));
  }

  @Test
  void aFieldNoLongerAppliedIsRemovedAndMapEntriesToo() throws Exception {
    ObjectNode live = apply(null, "apply-one", "metadata: {labels: {a: b, c: d}}\nspec: {replicas: 3, serviceName: s}");
    live = apply(live, "apply-one", "metadata: {labels: {a: b}}\nspec: {serviceName: s}");
    assertEquals(json("{\"a\":\"b\"}"), live.at("/metadata/labels"));
    assertTrue(live.at("/spec/replicas").isMissingNode());
  }

  // ---- merge order (typed/merge_test.go) -----------------------------------------------------

  static Stream<Arguments> setOrders() {
    return Stream.of(
        Arguments.of("[a,b,c]", "[a,b]", "[a,b,c]"),
        Arguments.of("[a,b]", "[b,a]", "[b,a]"),
        Arguments.of("[a,b,c]", "[d,e,f]", "[a,b,c,d,e,f]"),
        Arguments.of("[a,b,c,g,f]", "[c,d,e,f]", "[a,b,c,g,d,e,f]"),
        Arguments.of("[c,d,e,f]", "[a,c,e]", "[a,c,d,e,f]"),
        Arguments.of("[a,b,c,x,y,z]", "[d,e,f,x,y,z]", "[a,b,c,d,e,f,x,y,z]"),
        Arguments.of("[c,a,g,f]", "[c,f,a,g]", "[c,f,a,g]"),
        Arguments.of("[a,b,c,d]", "[d,e,f,a]", "[b,c,d,e,f,a]"),
        Arguments.of("[c,d,e,f,g,h,i,j]", "[2,h,3,e,4,k,l]", "[c,d,f,g,2,h,i,j,3,e,4,k,l]"),
        Arguments.of("[a,b,c,d,e,f,g,h,i,j]", "[1,b,2,h,3,e,4,k,l]", "[a,1,b,c,d,f,g,2,h,i,j,3,e,4,k,l]"));
  }

  @ParameterizedTest
  @MethodSource("setOrders")
  void setsMergeInUpstreamsOrder(String lhs, String rhs, String merged) {
    JsonNode out = Typed.merge(yaml("metadata: {finalizers: " + lhs + "}"), yaml("metadata: {finalizers: " + rhs + "}"), SCHEMA);
    assertEquals(yaml("metadata: {finalizers: " + merged + "}").get("metadata").get("finalizers").toString(),
        out.at("/metadata/finalizers").toString());
  }

  @Test
  void mapListsMergeInUpstreamsOrder() {
    JsonNode lhs = yaml(containers("a", "b", "c"));
    assertEquals(List.of("a", "c", "b"), containerNames(Typed.merge(lhs, yaml(containers("c", "b")), SCHEMA)));
    assertEquals(List.of("b", "c", "a"), containerNames(Typed.merge(lhs, yaml(containers("c", "a")), SCHEMA)));
    assertEquals(List.of("a", "b", "c", "d"), containerNames(Typed.merge(lhs, yaml(containers("d")), SCHEMA)));
  }

  // ---- FieldsV1 (fieldpath/serialize_test.go) ------------------------------------------------

  @Test
  void fieldsV1RoundTrips() {
    String fields = "{\"f:metadata\":{\"f:finalizers\":{\"v:\\\"a\\\\u003cb\\\"\":{}},\"f:labels\":{\"f:app\":{},\".\":{}}},"
        + "\"f:spec\":{\"f:template\":{\"f:spec\":{\"f:containers\":{\"k:{\\\"name\\\":\\\"nginx\\\"}\":{"
        + "\"f:ports\":{\"k:{\\\"containerPort\\\":80,\\\"protocol\\\":\\\"TCP\\\"}\":{\"f:containerPort\":{},\".\":{}},"
        + "\"k:{\\\"containerPort\\\":443,\\\"protocol\\\":\\\"TCP\\\"}\":{}},\".\":{}}}}}}}";
    FieldSet set = FieldSet.fromFieldsV1(json(fields));
    assertEquals(fields, set.toFieldsV1().toString());
    assertTrue(set.has(List.of(new PathElement.Field("metadata"), new PathElement.Field("labels"))));
    assertFalse(set.has(List.of(new PathElement.Field("spec"))));
    // Ports sort by number, not by their text; "." comes last, as upstream writes it; a key's
    // text escapes <, > and & as Go's encoder does.
    List<String> printed = set.paths().stream().map(FieldSet::toString).toList();
    assertTrue(printed.contains(".spec.template.spec.containers[name=\"nginx\"].ports[containerPort=443,protocol=\"TCP\"]"),
        printed.toString());
    assertTrue(printed.contains(".metadata.finalizers[=\"a<b\"]"), printed.toString());
  }

  @Test
  void keysReadFromEitherNumberNodeAreTheSame() {
    FieldSet set = FieldSet.fromFieldsV1(json("{\"k:{\\\"protocol\\\":\\\"TCP\\\",\\\"containerPort\\\":80}\":{}}"));
    assertEquals("{\"k:{\\\"containerPort\\\":80,\\\"protocol\\\":\\\"TCP\\\"}\":{}}", set.toFieldsV1().toString());
    assertThrows(IllegalArgumentException.class, () -> FieldSet.fromFieldsV1(json("{\"x\":{}}")));
  }
}
