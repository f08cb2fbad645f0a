package io.ordinal.patch;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EphemeralContainer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * What upstream's struct tags and markers say about fields of its types, kept by model class and
 * JSON property: the patch strategies ({@link PatchStrategies}) and the list types
 * ({@link ListTypes}) are two such tables.
 */
final class FieldTable {
  /** One field's fact: {@code owner}'s JSON property {@code property} has {@code value}. */
  record Fact<V>(Class<?> owner, String property, V value) {}

  private FieldTable() {}

  static <V> Fact<V> fact(Class<?> owner, String property, V value) {
    return new Fact<>(owner, property, value);
  }

  /**
   * The facts of a container's fields, for Container and EphemeralContainer alike: upstream's
   * EphemeralContainerCommon keeps Container's fields with the same tags and markers.
   */
  static <V> List<Fact<V>> ofContainers(Function<Class<?>, List<Fact<V>>> facts) {
    List<Fact<V>> both = new ArrayList<>(facts.apply(Container.class));
    both.addAll(facts.apply(EphemeralContainer.class));
    return both;
  }

  /** The table, class then property, unmodifiable, in the order the facts are given. */
  @SafeVarargs
  static <V> Map<Class<?>, Map<String, V>> of(List<Fact<V>>... groups) {
    Map<Class<?>, Map<String, V>> table = new LinkedHashMap<>();
    for (List<Fact<V>> group : groups) {
      for (Fact<V> fact : group) {
        table.computeIfAbsent(fact.owner(), owner -> new LinkedHashMap<>()).put(fact.property(), fact.value());
      }
    }
    table.replaceAll((owner, fields) -> Collections.unmodifiableMap(fields));
    return Collections.unmodifiableMap(table);
  }
}
