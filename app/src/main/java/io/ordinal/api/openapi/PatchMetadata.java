package io.ordinal.api.openapi;

import java.util.Map;

/**
 * The {@code x-kubernetes-*} extensions of a model property that tell clients how patches treat
 * it ({@code x-kubernetes-patch-strategy}, {@code x-kubernetes-patch-merge-key},
 * {@code x-kubernetes-list-type}, {@code x-kubernetes-list-map-keys}, {@code x-kubernetes-map-type}).
 */
@FunctionalInterface
interface PatchMetadata {
  /** A property without any. */
  PatchMetadata NONE = (owner, property) -> Map.of();

  /** The extensions of {@code owner}'s JSON property {@code property}, by name; empty when it has none. */
  Map<String, Object> extensions(Class<?> owner, String property);

  /** The extensions of the schema of model class {@code type} itself ({@code x-kubernetes-map-type}); empty when it has none. */
  default Map<String, Object> typeExtensions(Class<?> type) {
    return Map.of();
  }
}
