package io.ordinal.patch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.ordinal.patch.PatchStrategies.FieldPatch;
import io.ordinal.store.KubeJson;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class StrategicMergePatchTest {

  // ---- upstream's cases (k8s.io/apimachinery/pkg/util/strategicpatch/patch_test.go) ----------
  // They use upstream's fixture type MergeItem; these classes and tags mirror its struct tags.

  @SuppressWarnings("unused")
  static class MergeItem {
    public String name;
    public String value;
    public String other;
    public List<MergeItem> mergingList;
    public List<MergeItem> nonMergingList;
    public List<Integer> mergingIntList;
    public List<Integer> nonMergingIntList;
    public List<MergeItem> mergeItemPtr;
    public Map<String, String> simpleMap;
    public JsonNode replacingItem;
    public RetainKeysMergeItem retainKeysMap;
    public List<MergeItem> retainKeysMergingList;
  }

  @SuppressWarnings("unused")
  static class RetainKeysMergeItem {
    public String name;
    public String value;
    public String other;
    public Map<String, String> simpleMap;
    public List<Integer> mergingIntList;
    public List<MergeItem> mergingList;
    public List<MergeItem> nonMergingList;
  }

  static final Map<Class<?>, Map<String, FieldPatch>> MERGE_ITEM_TAGS = Map.of(
      MergeItem.class, Map.of(
          "mergingList", new FieldPatch("merge", "name"),
          "mergingIntList", new FieldPatch("merge", null),
          "mergeItemPtr", new FieldPatch("merge", "name"),
          "replacingItem", new FieldPatch("replace", null),
          "retainKeysMap", new FieldPatch("retainKeys", null),
          "retainKeysMergingList", new FieldPatch("merge,retainKeys", "name")),
      RetainKeysMergeItem.class, Map.of(
          "mergingIntList", new FieldPatch("merge", null),
          "mergingList", new FieldPatch("merge", "name")));

  static JsonNode patchMergeItem(String original, String patch) {
    return StrategicMergePatch.apply(yaml(original), yaml(patch), MergeItem.class,
        (owner, property) -> MERGE_ITEM_TAGS.getOrDefault(owner, Map.of())
            .getOrDefault(property, FieldPatch.NONE));
  }

  /** Description (upstream's), object, patch, expected result; all YAML as upstream writes them. */
  static Stream<Arguments> upstreamCases() {
    return Stream.of(
        Arguments.of("add field and delete field from map", """
            name: 1
            other: a
            """, """
            name: null
            value: 1
            """, """
            value: 1
            other: a
            """),
        Arguments.of("delete field from nested map", """
            simpleMap: {key1: 1, key2: 1, other: a}
            """, """
            simpleMap: {key2: null}
            """, """
            simpleMap: {key1: 1, other: a}
            """),
        Arguments.of("defined null values should propagate overwrite current fields (with conflict)", """
            name: a
            other: a
            """, """
            name: 1
            value: 1
            other: null
            """, """
            name: 1
            value: 1
            """),
        Arguments.of("replace list of scalars", """
            nonMergingIntList: [1, 2]
            """, """
            nonMergingIntList: [2, 3]
            """, """
            nonMergingIntList: [2, 3]
            """),
        Arguments.of("unique scalars when merging lists", """
            mergingIntList: [1, 2]
            """, """
            mergingIntList: [2, 3]
            """, """
            mergingIntList: [1, 2, 3]
            """),
        Arguments.of("preserve the order from the patch in a merging int list", """
            mergingIntList: [1, 2, 3]
            """, """
            mergingIntList: [3, 1]
            """, """
            mergingIntList: [2, 3, 1]
            """),
        Arguments.of("preserve the order from the patch in a merging list 2", """
            mergingList:
              - name: 1
              - name: 2
                value: b
              - name: 3
            """, """
            mergingList:
              - name: 3
                value: c
              - name: 1
                value: a
            """, """
            mergingList:
              - name: 2
                value: b
              - name: 3
                value: c
              - name: 1
                value: a
            """),
        Arguments.of("delete map from nested map", """
            simpleMap: {key1: 1, key2: 1}
            """, """
            simpleMap:
              $patch: delete
            """, """
            simpleMap: {}
            """),
        Arguments.of("delete all items from merging list", """
            mergingList: [{name: 1}, {name: 2}]
            """, """
            mergingList:
              - $patch: replace
            """, """
            mergingList: []
            """),
        Arguments.of("merge empty merging lists", """
            mergingList: []
            """, """
            mergingList: []
            """, """
            mergingList: []
            """),
        Arguments.of("delete all keys from map", """
            name: 1
            value: 1
            """, """
            $patch: replace
            """, """
            {}
            """),
        Arguments.of("add key and delete all keys from map", """
            name: 1
            value: 1
            """, """
            other: a
            $patch: replace
            """, """
            other: a
            """),
        Arguments.of("delete all maps from merging list with conflict", """
            mergingList:
              - name: 1
                other: a
              - name: 2
                other: b
            """, """
            mergingList:
              - name: 1
                $patch: delete
              - name: 2
                $patch: delete
            """, """
            mergingList: []
            """),
        Arguments.of("delete all duplicate entries in a merging list", """
            mergingList:
              - name: 1
              - name: 1
              - name: 2
                value: a
              - name: 3
              - name: 3
            """, """
            mergingList:
              - name: 1
                $patch: delete
              - name: 3
                $patch: delete
            """, """
            mergingList:
              - name: 2
                value: a
            """),
        Arguments.of("retainKeys map can delete a field when no retainKeys directive present", """
            retainKeysMap: {name: foo, value: a}
            """, """
            retainKeysMap: {value: null}
            """, """
            retainKeysMap: {name: foo}
            """),
        Arguments.of("$setElementOrder contains item that is not present in the list to be merged", """
            mergingList: [{name: 1}, {name: 3}]
            """, """
            $setElementOrder/mergingList: [{name: 3}, {name: 2}, {name: 1}]
            mergingList:
              - name: 3
                value: 3
              - name: 1
                value: 1
            """, """
            mergingList:
              - name: 3
                value: 3
              - name: 1
                value: 1
            """),
        Arguments.of("delete items in lists of scalars", """
            mergingIntList: [1, 2, 3, 4]
            """, """
            $setElementOrder/mergingIntList: [1, 2]
            $deleteFromPrimitiveList/mergingIntList: [3]
            """, """
            mergingIntList: [1, 2, 4]
            """),
        Arguments.of("add and delete items in lists of scalars", """
            mergingIntList: [1, 2, 3]
            """, """
            $setElementOrder/mergingIntList: [1, 2, 4]
            $deleteFromPrimitiveList/mergingIntList: [3]
            mergingIntList: [4]
            """, """
            mergingIntList: [1, 2, 4]
            """),
        Arguments.of("merge lists of maps", """
            mergingList:
              - name: 1
                other: a
              - name: 2
                value: 2
                other: b
            """, """
            $setElementOrder/mergingList: [{name: 4}, {name: 1}, {name: 2}, {name: 3}]
            mergingList:
              - name: 4
                value: 4
              - name: 3
                value: 3
            """, """
            mergingList:
              - name: 4
                value: 4
              - name: 1
                other: a
              - name: 2
                value: 2
                other: b
              - name: 3
                value: 3
            """),
        Arguments.of("merge lists of maps with conflict", """
            mergingList:
              - name: 1
                other: a
              - name: 2
                value: 3
                other: b
            """, """
            $setElementOrder/mergingList: [{name: 1}, {name: 2}, {name: 3}]
            mergingList:
              - name: 2
                value: 2
              - name: 3
                value: 3
            """, """
            mergingList:
              - name: 1
                other: a
              - name: 2
                value: 2
                other: b
              - name: 3
                value: 3
            """),
        Arguments.of("delete missing map from merging list with conflict", """
            mergingList:
              - name: 3
                other: a
            """, """
            $setElementOrder/mergingList: [{name: 2}]
            mergingList:
              - name: 2
              - name: 1
                $patch: delete
            """, """
            mergingList:
              - name: 2
              - name: 3
                other: a
            """),
        Arguments.of("add map and delete map from merging list", """
            mergingList:
              - name: 1
              - name: 2
                other: b
              - name: 4
                other: c
            """, """
            $setElementOrder/mergingList: [{name: 2}, {name: 3}]
            mergingList:
              - name: 3
              - name: 1
                $patch: delete
            """, """
            mergingList:
              - name: 2
                other: b
              - name: 4
                other: c
              - name: 3
            """),
        Arguments.of("add map and delete map from merging list with conflict", """
            mergingList:
              - name: 1
                other: a
              - name: 4
                other: c
            """, """
            $setElementOrder/mergingList: [{name: 2}, {name: 3}]
            mergingList:
              - name: 2
              - name: 3
              - name: 1
                $patch: delete
            """, """
            mergingList:
              - name: 4
                other: c
              - name: 2
              - name: 3
            """),
        Arguments.of("add field to map in merging list nested in merging list", """
            mergingList:
              - name: 1
                other: a
                mergingList:
                  - name: 1
                  - name: 2
                    value: 2
              - name: 2
                other: b
            """, """
            $setElementOrder/mergingList: [{name: 1}, {name: 2}]
            mergingList:
              - $setElementOrder/mergingList: [{name: 1}, {name: 2}]
                name: 1
                mergingList:
                  - name: 1
                    value: 1
            """, """
            mergingList:
              - name: 1
                other: a
                mergingList:
                  - name: 1
                    value: 1
                  - name: 2
                    value: 2
              - name: 2
                other: b
            """),
        Arguments.of("add field to map in merging list nested in merging list with deletion conflict", """
            mergingList:
              - name: 1
                other: a
                mergingList:
                  - name: 2
                    value: 2
                    other: d
              - name: 2
                other: b
            """, """
            $setElementOrder/mergingList: [{name: 1}, {name: 2}]
            mergingList:
              - $setElementOrder/mergingList: [{name: 2}, {name: 1}]
                name: 1
                mergingList:
                  - name: 1
                    value: 1
            """, """
            mergingList:
              - name: 1
                other: a
                mergingList:
                  - name: 2
                    value: 2
                    other: d
                  - name: 1
                    value: 1
              - name: 2
                other: b
            """),
        Arguments.of("merge lists of scalars", """
            mergingIntList: [1, 2, 4]
            """, """
            $setElementOrder/mergingIntList: [1, 2, 3]
            mergingIntList: [3]
            """, """
            mergingIntList: [1, 2, 3, 4]
            """),
        Arguments.of("add an item in a list of primitives and preserve order", """
            mergingIntList: [1, 4, 2]
            """, """
            $setElementOrder/mergingIntList: [3, 1, 2]
            mergingIntList: [3]
            """, """
            mergingIntList: [3, 1, 4, 2]
            """),
        Arguments.of("delete an item in a list and preserve order", """
            mergingList:
              - name: 1
                other: a
              - name: 2
                value: 2
                other: b
              - name: 3
                value: 3
            """, """
            $setElementOrder/mergingList: [{name: 2}, {name: 1}]
            mergingList:
              - name: 3
                $patch: delete
            """, """
            mergingList:
              - name: 2
                value: 2
                other: b
              - name: 1
                other: a
            """),
        Arguments.of("set elements order in a list with server-only items 3", """
            mergingList:
              - name: 1
                other: a
              - name: 2
                value: 2
              - name: 7
              - name: 9
              - name: 8
              - name: 3
                value: 3
              - name: 4
                value: 4
            """, """
            $setElementOrder/mergingList: [{name: 2}, {name: 1}, {name: 4}, {name: 3}]
            """, """
            mergingList:
              - name: 2
                value: 2
              - name: 1
                other: a
              - name: 7
              - name: 9
              - name: 8
              - name: 4
                value: 4
              - name: 3
                value: 3
            """),
        Arguments.of("set elements order in a int list with server-only items 2", """
            mergingIntList: [1, 2, 9, 3, 4]
            """, """
            $setElementOrder/mergingIntList: [2, 1, 4, 3]
            """, """
            mergingIntList: [2, 1, 9, 4, 3]
            """),
        Arguments.of("behavior of set element order for a merging list with duplicate", """
            mergingList:
              - name: 1
              - name: 2
                value: dup1
              - name: 3
              - name: 2
                value: dup2
              - name: 4
            """, """
            $setElementOrder/mergingList: [{name: 2}, {name: 1}, {name: 4}, {name: 3}, {name: 2}]
            """, """
            mergingList:
              - name: 2
                value: dup1
              - name: 2
                value: dup2
              - name: 1
              - name: 4
              - name: 3
            """),
        Arguments.of("retainKeys map should clear defaulted field with conflict (discriminated union)", """
            retainKeysMap: {name: type1, value: foo}
            """, """
            retainKeysMap:
              $retainKeys: [name, other]
              name: type2
              other: bar
            """, """
            retainKeysMap: {name: type2, other: bar}
            """),
        Arguments.of("retainKeys map adds an item and deletes an item in nested merging int list", """
            retainKeysMap:
              name: foo
              mergingIntList: [1, 2, 3, 4]
            """, """
            retainKeysMap:
              $retainKeys: [mergingIntList, name]
              mergingIntList: [5]
              $deleteFromPrimitiveList/mergingIntList: [2]
              $setElementOrder/mergingIntList: [1, 3, 5]
            """, """
            retainKeysMap:
              name: foo
              mergingIntList: [1, 3, 5, 4]
            """),
        Arguments.of("retainKeys list of maps clears a field", """
            retainKeysMergingList:
              - name: bar
              - name: foo
                value: a
                other: x
            """, """
            $setElementOrder/retainKeysMergingList: [{name: bar}, {name: foo}]
            retainKeysMergingList:
              - $retainKeys: [name, value]
                name: foo
            """, """
            retainKeysMergingList:
              - name: bar
              - name: foo
                value: a
            """),
        Arguments.of("delete and reorder in one list, reorder in another", """
            mergingList:
              - {name: a, value: a}
              - {name: b, value: b}
            mergeItemPtr:
              - {name: c, value: c}
              - {name: d, value: d}
            """, """
            $setElementOrder/mergingList: [{name: b}]
            $setElementOrder/mergeItemPtr: [{name: d}, {name: c}]
            mergingList:
              - $patch: delete
                name: a
            """, """
            mergingList:
              - {name: b, value: b}
            mergeItemPtr:
              - {name: d, value: d}
              - {name: c, value: c}
            """),
        Arguments.of("replace RawExtension field and merge list", """
            name: my-object
            mergingList: [{name: 1}, {name: 3}]
            replacingItem: {Some: Generic, Yaml: Inside, The: RawExtension, Field: Period}
            """, """
            $setElementOrder/mergingList: [{name: 1}, {name: 2}]
            mergingList: [{name: 2}]
            replacingItem: {Newly: Modified, Yaml: Inside, The: RawExtension}
            """, """
            name: my-object
            mergingList: [{name: 1}, {name: 2}, {name: 3}]
            replacingItem: {Newly: Modified, Yaml: Inside, The: RawExtension}
            """));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("upstreamCases")
  void appliesUpstreamCase(String description, String original, String patch, String expected) {
    assertEquals(yaml(expected), patchMergeItem(original, patch));
  }

  @Test
  void rejectsAPatchListOutOfTheSetElementOrder() {
    // upstream: "should check if order in $setElementOrder and patch list match"
    assertRejected("doesn't match", """
        mergingList: [{name: 1}, {name: 3}, {name: 2}]
        """, """
        $setElementOrder/mergingList: [{name: 1}, {name: 2}, {name: 3}]
        mergingList:
          - {name: 3, value: 3}
          - {name: 1, value: 1}
        """);
  }

  @Test
  void rejectsAListElementWithoutItsMergeKey() {
    // upstream: "missing merge key should error out"
    assertRejected("mergingList: map: {\"value\":\"b\"} does not contain declared merge key: name", """
        mergingList: [{name: 1, value: a}]
        """, """
        mergingList: [{value: b}]
        """);
  }

  @Test
  void rejectsAnUnknownPatchTypeInAnObject() {
    assertRejected("simpleMap: unknown patch type: \"merge\"", """
        simpleMap: {key1: a}
        """, """
        simpleMap: {$patch: merge}
        """);
  }

  @Test
  void rejectsAMergeDirectiveInAList() {
    assertRejected("merging lists cannot yet be specified in the patch", """
        mergingList: [{name: 1}]
        """, """
        mergingList: [{$patch: merge}]
        """);
  }

  @Test
  void rejectsAnUnknownPatchTypeInAListElement() {
    assertRejected("unknown patch type: \"remove\"", """
        mergingList: [{name: 1}]
        """, """
        mergingList: [{name: 1, $patch: remove}]
        """);
  }

  @Test
  void rejectsAKeyThatRetainKeysDoesNotList() {
    assertRejected("retainKeysMap: invalid patch format of retainKeys", """
        retainKeysMap: {name: foo}
        """, """
        retainKeysMap:
          $retainKeys: [name]
          value: bar
        """);
  }

  @Test
  void rejectsADeletionListWithoutItsListName() {
    assertRejected("invalid patch format of primitive list", """
        mergingIntList: [1]
        """, """
        $deleteFromPrimitiveListmergingIntList: [1]
        """);
  }

  @Test
  void rejectsListsOfListsAndMixedElementTypes() {
    assertRejected("lists of lists are not supported", """
        mergingIntList: [1]
        """, """
        mergingIntList: [[2]]
        """);
    assertRejected("list element types are not identical", """
        mergingIntList: [1]
        """, """
        mergingIntList: [b]
        """);
  }

  @Test
  void rejectsAPatchThatIsNotAnObject() {
    assertThrows(IllegalArgumentException.class,
        () -> StrategicMergePatch.apply(yaml("{}"), yaml("[1]"), StatefulSet.class));
  }

  @Test
  void aFieldMissingFromTheObjectTakesThePatchValueWithoutNullsOrDirectives() {
    // upstream drops nulls (discardNullValuesFromPatch) and $patch maps (removeDirectives) here.
    assertEquals(yaml("""
        mergingList: [{name: 1, mergingList: [{name: 3}]}]
        """), patchMergeItem("{}", """
        mergingList:
          - name: 1
            value: null
            mergingList:
              - name: 2
                $patch: delete
              - name: 3
        """));
  }

  @Test
  void leavesBothInputsUnchanged() {
    JsonNode original = yaml("""
        mergingList: [{name: 1, value: a}, {name: 2}]
        simpleMap: {key: a}
        """);
    JsonNode patch = yaml("""
        $setElementOrder/mergingList: [{name: 2}]
        mergingList: [{name: 1, $patch: delete}]
        simpleMap: {key: null}
        """);
    JsonNode originalCopy = original.deepCopy();
    JsonNode patchCopy = patch.deepCopy();

    JsonNode result = StrategicMergePatch.apply(original, patch, MergeItem.class,
        (owner, property) -> MERGE_ITEM_TAGS.getOrDefault(owner, Map.of())
            .getOrDefault(property, FieldPatch.NONE));

    assertEquals(yaml("{mergingList: [{name: 2}], simpleMap: {}}"), result);
    assertEquals(originalCopy, original);
    assertEquals(patchCopy, patch);
  }

  // ---- StatefulSets and Pods, with the tags of PatchStrategies -------------------------------

  static final String STATEFUL_SET = """
      apiVersion: apps/v1
      kind: StatefulSet
      metadata:
        name: web
        namespace: default
        labels: {app: web, tier: db}
        annotations: {kubectl.kubernetes.io/last-applied-configuration: old}
      spec:
        replicas: 3
        serviceName: web
        selector: {matchLabels: {app: web}}
        template:
          metadata:
            labels: {app: web}
            annotations: {team: storage}
          spec:
            containers:
              - name: app
                image: app:1
                ports: [{containerPort: 8080, name: http}]
                env:
                  - {name: A, value: "1"}
                  - {name: B, value: "2"}
                  - {name: C, value: "3"}
                volumeMounts: [{name: data, mountPath: /data}]
              - name: sidecar
                image: sidecar:1
                env: [{name: S, value: "1"}]
            tolerations: [{key: a, operator: Exists}]
            volumes:
              - name: data
                emptyDir: {}
      """;

  static StatefulSet patchStatefulSet(String patchJson) {
    JsonNode result = StrategicMergePatch.apply(yaml(STATEFUL_SET), yaml(patchJson), StatefulSet.class);
    try {
      return KubeJson.JSON.treeToValue(result, StatefulSet.class);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  static Container container(StatefulSet set, String name) {
    return set.getSpec().getTemplate().getSpec().getContainers().stream()
        .filter(container -> container.getName().equals(name)).findFirst().orElseThrow();
  }

  static List<String> names(List<EnvVar> env) {
    return env.stream().map(EnvVar::getName).toList();
  }

  @Test
  void changingOneContainersImageByNameLeavesTheOtherContainersAndTheEnvAlone() {
    StatefulSet set = patchStatefulSet("""
        {"spec":{"template":{"spec":{"containers":[{"name":"sidecar","image":"sidecar:2"}]}}}}
        """);

    List<Container> containers = set.getSpec().getTemplate().getSpec().getContainers();
    assertEquals(List.of("app", "sidecar"), containers.stream().map(Container::getName).toList());
    assertEquals("sidecar:2", container(set, "sidecar").getImage());
    assertEquals(List.of("S"), names(container(set, "sidecar").getEnv()));
    assertEquals("app:1", container(set, "app").getImage());
    assertEquals(List.of("A", "B", "C"), names(container(set, "app").getEnv()));
    assertEquals(8080, container(set, "app").getPorts().get(0).getContainerPort());
  }

  @Test
  void rolloutRestartAddsTheTemplateAnnotationAndKeepsTheOthers() {
    StatefulSet set = patchStatefulSet("""
        {"spec":{"template":{"metadata":{"annotations":{
          "kubectl.kubernetes.io/restartedAt":"2025-01-02T03:04:05Z"}}}}}
        """);

    assertEquals(Map.of("team", "storage", "kubectl.kubernetes.io/restartedAt", "2025-01-02T03:04:05Z"),
        set.getSpec().getTemplate().getMetadata().getAnnotations());
    assertEquals(2, set.getSpec().getTemplate().getSpec().getContainers().size());
    assertEquals(3, set.getSpec().getReplicas());
  }

  @Test
  void rolloutUndoReplacesTheWholeTemplateAndNothingElse() {
    // kubectl rollout undo sends the revision's template with "$patch": "replace".
    StatefulSet set = patchStatefulSet("""
        {"spec":{"template":{"$patch":"replace",
          "metadata":{"labels":{"app":"web"}},
          "spec":{"containers":[{"name":"app","image":"app:0"}]}}}}
        """);

    assertEquals(List.of("app"), set.getSpec().getTemplate().getSpec().getContainers().stream()
        .map(Container::getName).toList());
    assertEquals("app:0", container(set, "app").getImage());
    assertEquals(List.of(), container(set, "app").getEnv());
    assertEquals(Map.of(), set.getSpec().getTemplate().getMetadata().getAnnotations());
    assertEquals(List.of(), set.getSpec().getTemplate().getSpec().getVolumes());
    assertEquals(3, set.getSpec().getReplicas());
    assertEquals("web", set.getSpec().getServiceName());
  }

  @Test
  void applyDeletesTheEnvVarAndTheLabelRemovedFromTheManifest() {
    // The three-way patch kubectl apply sends after B and the tier label left the manifest;
    // C was added on the server by someone else and stays.
    StatefulSet set = patchStatefulSet("""
        {"metadata":{"annotations":{"kubectl.kubernetes.io/last-applied-configuration":"new"},
                     "labels":{"tier":null}},
         "spec":{"template":{"spec":{
           "$setElementOrder/containers":[{"name":"app"},{"name":"sidecar"}],
           "containers":[{"name":"app",
             "$setElementOrder/env":[{"name":"A"}],
             "env":[{"$patch":"delete","name":"B"}]}]}}}}
        """);

    assertEquals(Map.of("app", "web"), set.getMetadata().getLabels());
    assertEquals("new", set.getMetadata().getAnnotations()
        .get("kubectl.kubernetes.io/last-applied-configuration"));
    assertEquals(List.of("A", "C"), names(container(set, "app").getEnv()));
    assertEquals(List.of("S"), names(container(set, "sidecar").getEnv()));
  }

  @Test
  void applyAddsAnEnvVarWhereTheManifestPutsIt() {
    StatefulSet set = patchStatefulSet("""
        {"spec":{"template":{"spec":{
           "$setElementOrder/containers":[{"name":"app"},{"name":"sidecar"}],
           "containers":[{"name":"app",
             "$setElementOrder/env":[{"name":"A"},{"name":"N"},{"name":"B"},{"name":"C"}],
             "env":[{"name":"N","value":"new"}]}]}}}}
        """);

    assertEquals(List.of("A", "N", "B", "C"), names(container(set, "app").getEnv()));
  }

  @Test
  void retainKeysSwitchesAVolumeFromOneSourceToAnother() {
    StatefulSet set = patchStatefulSet("""
        {"spec":{"template":{"spec":{
           "$setElementOrder/volumes":[{"name":"data"}],
           "volumes":[{"$retainKeys":["configMap","name"],"name":"data",
                       "configMap":{"name":"settings"}}]}}}}
        """);

    Volume volume = set.getSpec().getTemplate().getSpec().getVolumes().get(0);
    assertEquals("settings", volume.getConfigMap().getName());
    assertNull(volume.getEmptyDir());
  }

  @Test
  void aPortIsMergedByContainerPortAndTolerationsAreReplacedWhole() {
    StatefulSet set = patchStatefulSet("""
        {"spec":{"template":{"spec":{
           "containers":[{"name":"app","ports":[{"containerPort":9090,"name":"metrics"}]}],
           "tolerations":[{"key":"b","operator":"Exists"}]}}}}
        """);

    // Without $setElementOrder upstream puts the patch's new elements first.
    assertEquals(List.of(9090, 8080), container(set, "app").getPorts().stream()
        .map(port -> port.getContainerPort()).toList());
    assertEquals(List.of("b"), set.getSpec().getTemplate().getSpec().getTolerations().stream()
        .map(toleration -> toleration.getKey()).toList());
  }

  @Test
  void finalizersMergeAsASetAndDeleteFromPrimitiveListRemovesOne() {
    JsonNode original = yaml("{metadata: {name: web, finalizers: [a, b]}}");

    assertEquals(yaml("[c, a, b]"), StrategicMergePatch.apply(original,
        yaml("{metadata: {finalizers: [c, a]}}"), StatefulSet.class).at("/metadata/finalizers"));
    assertEquals(yaml("[b]"), StrategicMergePatch.apply(original,
        yaml("{metadata: {$deleteFromPrimitiveList/finalizers: [a]}}"), StatefulSet.class)
        .at("/metadata/finalizers"));
  }

  @Test
  void aContainerWithoutANameIsRejectedWithItsPath() {
    IllegalArgumentException error = assertThrows(IllegalArgumentException.class,
        () -> patchStatefulSet("""
            {"spec":{"template":{"spec":{"containers":[{"image":"x"}]}}}}
            """));
    assertEquals("spec.template.spec.containers: map: {\"image\":\"x\"} "
        + "does not contain declared merge key: name", error.getMessage());
  }

  @Test
  void anEnvVarOfANamedContainerWithoutANameIsRejectedWithItsPath() {
    IllegalArgumentException error = assertThrows(IllegalArgumentException.class,
        () -> patchStatefulSet("""
            {"spec":{"template":{"spec":{"containers":[{"name":"app","env":[{"value":"x"}]}]}}}}
            """));
    assertTrue(error.getMessage().startsWith("spec.template.spec.containers[name=\"app\"].env: "),
        error.getMessage());
  }

  @Test
  void podConditionsMergeByType() {
    JsonNode pod = yaml("""
        metadata: {name: web-0}
        status:
          conditions:
            - {type: PodScheduled, status: "True"}
            - {type: Ready, status: "False"}
        """);
    JsonNode patched = StrategicMergePatch.apply(pod,
        yaml("{status: {conditions: [{type: Ready, status: \"True\"}]}}"), Pod.class);

    List<PodCondition> conditions = KubeJson.JSON.convertValue(patched, Pod.class).getStatus().getConditions();
    assertEquals(List.of("PodScheduled=True", "Ready=True"), conditions.stream()
        .map(condition -> condition.getType() + "=" + condition.getStatus()).toList());
  }

  // ---- helpers ------------------------------------------------------------------------------

  static void assertRejected(String messagePart, String original, String patch) {
    IllegalArgumentException error = assertThrows(IllegalArgumentException.class,
        () -> patchMergeItem(original, patch));
    assertTrue(error.getMessage().contains(messagePart), error.getMessage());
  }

  static JsonNode yaml(String text) {
    try {
      return KubeJson.YAML.readTree(text);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }
}
