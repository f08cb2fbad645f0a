package io.ordinal.api.openapi;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EphemeralContainer;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.apps.StatefulSetStatus;
import io.ordinal.api.patch.PatchStrategies;
import io.ordinal.api.patch.PatchStrategies.FieldPatch;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The patch extensions of the model: the merge keys and strategies the server's strategic merge
 * patch uses ({@link PatchStrategies}, upstream's struct tags), so a client computes its patches
 * with the same keys the server merges them by, and upstream's list types where they say more than
 * the merge key does.
 */
final class KubePatchMetadata implements PatchMetadata {
  static final KubePatchMetadata INSTANCE = new KubePatchMetadata();

  /** {@code +listType} and {@code +listMapKey} markers of upstream's types.go that differ from the merge key. */
  private record ListType(String type, List<String> keys) {}

  private static final Map<Class<?>, Map<String, ListType>> LIST_TYPES = Map.of(
      ObjectMeta.class, Map.of(
          "finalizers", new ListType("set", List.of()),
          "ownerReferences", new ListType("map", List.of("uid"))),
      PodSpec.class, Map.of(
          "topologySpreadConstraints", new ListType("map", List.of("topologyKey", "whenUnsatisfiable"))),
      // A port is known by its number and protocol (53/TCP and 53/UDP), though patches merge it by number.
      Container.class, Map.of("ports", new ListType("map", List.of("containerPort", "protocol"))),
      EphemeralContainer.class, Map.of("ports", new ListType("map", List.of("containerPort", "protocol"))),
      StatefulSetStatus.class, Map.of("conditions", new ListType("map", List.of("type"))));

  private KubePatchMetadata() {}

  @Override
  public Map<String, Object> extensions(Class<?> owner, String property) {
    Map<String, Object> extensions = new TreeMap<>();
    FieldPatch patch = PatchStrategies.of(owner, property);
    if (patch.patchStrategy() != null) {
      extensions.put("x-kubernetes-patch-strategy", patch.patchStrategy());
    }
    if (patch.mergeKey() != null) {
      extensions.put("x-kubernetes-patch-merge-key", patch.mergeKey());
    }
    ListType list = LIST_TYPES.getOrDefault(owner, Map.of()).get(property);
    if (list != null) {
      extensions.put("x-kubernetes-list-type", list.type());
      if (!list.keys().isEmpty()) {
        extensions.put("x-kubernetes-list-map-keys", list.keys());
      }
    }
    return extensions;
  }
}
