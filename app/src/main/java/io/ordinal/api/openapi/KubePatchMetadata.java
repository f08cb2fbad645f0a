package io.ordinal.api.openapi;

import io.ordinal.patch.ListTypes;
import io.ordinal.patch.ListTypes.ListType;
import io.ordinal.patch.PatchStrategies;
import io.ordinal.patch.PatchStrategies.FieldPatch;
import java.util.Map;
import java.util.TreeMap;

/**
 * The patch extensions of the model: the merge keys and strategies the server's strategic merge
 * patch uses ({@link PatchStrategies}, upstream's struct tags), so a client computes its patches
 * with the same keys the server merges them by, and upstream's list, map and struct types
 * ({@link ListTypes}, the same table server-side apply merges by).
 */
final class KubePatchMetadata implements PatchMetadata {
  static final KubePatchMetadata INSTANCE = new KubePatchMetadata();

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
    ListType list = ListTypes.declared(owner, property);
    if (list != null) {
      extensions.put("x-kubernetes-list-type", list.type());
      if (!list.keys().isEmpty()) {
        extensions.put("x-kubernetes-list-map-keys", list.keys());
      }
    }
    if (ListTypes.atomicMap(owner, property)) {
      extensions.put("x-kubernetes-map-type", "atomic");
    }
    return extensions;
  }

  @Override
  public Map<String, Object> typeExtensions(Class<?> type) {
    // +structType=atomic is published on the type, as upstream's documents do.
    return ListTypes.atomicStruct(type) ? Map.of("x-kubernetes-map-type", "atomic") : Map.of();
  }
}
