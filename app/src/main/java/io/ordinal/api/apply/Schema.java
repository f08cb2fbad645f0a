package io.ordinal.api.apply;

import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EphemeralContainer;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetSpec;
import io.fabric8.kubernetes.api.model.autoscaling.v1.Scale;
import io.ordinal.patch.ListTypes;
import io.ordinal.patch.ListTypes.ListType;
import io.ordinal.patch.PatchStrategies;
import io.ordinal.store.KubeJson;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What is known about the value at one position of an object, from the fabric8 model class and
 * {@link ListTypes}: its Java type (null where the model says nothing, e.g. an additional
 * property: then objects are granular and lists atomic, as structured-merge-diff's deduced type),
 * how a list there merges, whether an object there is atomic, and whether the position is a
 * named field of a struct (rather than a map key or a list item).
 */
record Schema(JavaType type, ListType list, boolean atomicMap, boolean named) {

  /**
   * Struct-valued fields that Go never leaves out: they are not pointers, so upstream's objects
   * always carry them, as {} at least. Comparing as if they were there keeps the update
   * ownership of e.g. a new object from listing {@code .spec} itself, as upstream's does not.
   */
  private static final Map<Class<?>, Set<String>> ALWAYS_PRESENT = Map.of(
      StatefulSet.class, Set.of("metadata", "spec", "status"),
      StatefulSetSpec.class, Set.of("template", "updateStrategy"),
      PodTemplateSpec.class, Set.of("metadata", "spec"),
      Container.class, Set.of("resources"),
      EphemeralContainer.class, Set.of("resources"),
      Scale.class, Set.of("metadata", "spec", "status"));

  static Schema root(Class<?> type) {
    return new Schema(KubeJson.JSON.constructType(type), ListType.ATOMIC, false, false);
  }

  /** The position of field or map key {@code name} of an object here. */
  Schema field(String name) {
    if (type == null) {
      return new Schema(null, ListType.ATOMIC, false, false);
    }
    if (type.isMapLikeType()) {
      return new Schema(type.getContentType(), ListType.ATOMIC, false, false);
    }
    Class<?> owner = type.getRawClass();
    return new Schema(PatchStrategies.propertyType(type, name), ListTypes.of(owner, name),
        ListTypes.atomicMap(owner, name), true);
  }

  /** The position of an item of a list here. */
  Schema element() {
    JavaType element = type != null && (type.isCollectionLikeType() || type.isArrayType()) ? type.getContentType() : null;
    return new Schema(element, ListType.ATOMIC, false, false);
  }

  /** Whether an object here is owned as a whole ({@code +structType=atomic} or {@code +mapType=atomic}). */
  boolean atomicObject() {
    return atomicMap || (type != null && ListTypes.atomicStruct(type.getRawClass()));
  }

  /** Whether the model says an object goes here (a struct or a map), so a null here holds no field. */
  boolean objectTyped() {
    if (type == null || listTyped()) {
      return false;
    }
    Class<?> raw = type.getRawClass();
    return type.isMapLikeType() || !(type.isPrimitive() || type.isEnumType() || raw.getName().startsWith("java.")
        || raw == IntOrString.class || raw == Quantity.class || JsonNode.class.isAssignableFrom(raw));
  }

  /** Whether a list here is modelled as a list (so a null here is the list's own value only if it is atomic). */
  boolean listTyped() {
    return type != null && (type.isCollectionLikeType() || type.isArrayType());
  }

  /** Fields of an object here that Go always writes (see {@link #ALWAYS_PRESENT}). */
  Set<String> alwaysPresent() {
    return type == null ? Set.of() : ALWAYS_PRESENT.getOrDefault(type.getRawClass(), Set.of());
  }

  /**
   * The path element of list item {@code item} (at {@code index}) of a list here: its key fields
   * for a map list (defaults filling in omitted keys), its value for a set.
   */
  PathElement itemElement(JsonNode item, int index, List<PathElement> path) {
    if (list.map()) {
      if (!item.isObject()) {
        throw invalid(path, index, "associative list with keys has an element that is not a map type");
      }
      Class<?> elementClass = element().type() == null ? null : element().type().getRawClass();
      List<PathElement.KeyField> key = new ArrayList<>();
      for (String name : list.keys()) {
        JsonNode value = item.get(name);
        if (value == null) {
          String fallback = elementClass == null ? null : ListTypes.keyDefault(elementClass, name);
          if (fallback == null) {
            throw invalid(path, index, "associative list with keys has an element that omits key field \""
                + name + "\" (and doesn't have default value)");
          }
          value = KubeJson.JSON.getNodeFactory().textNode(fallback);
        }
        key.add(new PathElement.KeyField(name, value));
      }
      return new PathElement.Key(key);
    }
    if (list.set()) {
      if (item.isContainerNode()) {
        throw invalid(path, index, "associative list without keys has an element that's a "
            + (item.isObject() ? "map" : "list") + " type");
      }
      return new PathElement.Value(item);
    }
    return new PathElement.Index(index);
  }

  /** The items of {@code array}, by path element, first occurrence of each; duplicates refused if {@code unique}. */
  Map<PathElement, JsonNode> items(JsonNode array, List<PathElement> path, boolean unique) {
    Map<PathElement, JsonNode> items = new LinkedHashMap<>();
    if (array == null || !array.isArray()) {
      return items;
    }
    for (int i = 0; i < array.size(); i++) {
      PathElement element = itemElement(array.get(i), i, path);
      if (items.putIfAbsent(element, array.get(i)) != null && unique) {
        throw new IllegalArgumentException(at(path) + "duplicate entries for key " + element);
      }
    }
    return items;
  }

  private static IllegalArgumentException invalid(List<PathElement> path, int index, String message) {
    return new IllegalArgumentException(at(path) + "element " + index + ": " + message);
  }

  private static String at(List<PathElement> path) {
    return path.isEmpty() ? "" : FieldSet.toString(path) + ": ";
  }
}
