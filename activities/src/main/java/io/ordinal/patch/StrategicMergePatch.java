package io.ordinal.patch;

import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.ordinal.patch.PatchStrategies.FieldPatch;
import io.ordinal.store.KubeJson;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Applies a Kubernetes strategic merge patch ({@code application/strategic-merge-patch+json}) the
 * way the API server does: upstream's {@code StrategicMergeMapPatch} from
 * {@code k8s.io/apimachinery/pkg/util/strategicpatch}, with the struct tags of
 * {@link PatchStrategies}.
 *
 * <p>Objects merge key by key and {@code null} deletes a key. Lists tagged {@code merge} merge
 * element by element on their merge key, or as a set when they hold primitives; other lists are
 * replaced. Directives: {@code $patch} (replace or delete an object, replace a list, delete a list
 * element), {@code $retainKeys}, {@code $setElementOrder/<list>} and
 * {@code $deleteFromPrimitiveList/<list>}. The order of a merged list is upstream's: the order the
 * client asked for, with the elements only the server has kept where they were.
 */
public final class StrategicMergePatch {
  private static final String DIRECTIVE = "$patch";
  private static final String DELETE = "delete";
  private static final String REPLACE = "replace";
  private static final String MERGE = "merge";
  private static final String RETAIN_KEYS = "$retainKeys";
  private static final String DELETE_FROM_PRIMITIVE_LIST = "$deleteFromPrimitiveList";
  private static final String SET_ELEMENT_ORDER = "$setElementOrder";
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  /** Where the patch tags come from: {@link PatchStrategies} in production, fixtures in tests. */
  @FunctionalInterface
  interface Tags {
    FieldPatch of(Class<?> owner, String property);
  }

  private final Tags tags;

  private StrategicMergePatch(Tags tags) {
    this.tags = tags;
  }

  /**
   * Returns {@code original} with {@code patch} applied; neither input is changed.
   *
   * @param original the current object, as its JSON tree (an object)
   * @param patch the strategic merge patch (an object; JSON {@code null} changes nothing)
   * @param rootType the fabric8 class of the object, e.g. {@code StatefulSet.class}
   * @throws IllegalArgumentException if the patch is malformed or cannot apply to the object;
   *     the message names the field where possible
   */
  public static JsonNode apply(JsonNode original, JsonNode patch, Class<?> rootType) {
    return apply(original, patch, rootType, PatchStrategies::of);
  }

  static JsonNode apply(JsonNode original, JsonNode patch, Class<?> rootType, Tags tags) {
    Objects.requireNonNull(rootType, "rootType");
    if (original == null || !original.isObject()) {
      throw new IllegalArgumentException("the object to patch must be a JSON object");
    }
    if (patch == null || patch.isNull()) {
      return original.deepCopy();
    }
    if (!patch.isObject()) {
      throw new IllegalArgumentException("a strategic merge patch must be a JSON object");
    }
    // Upstream edits both maps in place; working on copies keeps the caller's trees intact.
    return new StrategicMergePatch(tags).mergeMap(
        original.deepCopy(), patch.deepCopy(), KubeJson.JSON.constructType(rootType), "");
  }

  // ---- objects ------------------------------------------------------------------------------

  /** upstream mergeMap: merges {@code patch} into {@code original} (both owned, edited in place). */
  private ObjectNode mergeMap(ObjectNode original, ObjectNode patch, JavaType type, String path) {
    JsonNode directive = patch.get(DIRECTIVE);
    if (directive != null) {
      return mapDirective(directive, patch, path);
    }
    applyRetainKeys(original, patch, path);
    applyElementOrders(original, patch, type, path);

    for (Map.Entry<String, JsonNode> entry : List.copyOf(patch.properties())) {
      String key = entry.getKey();
      JsonNode patchValue = entry.getValue();
      boolean deleteList = key.startsWith(DELETE_FROM_PRIMITIVE_LIST);
      if (deleteList) {
        key = listKey(key, DELETE_FROM_PRIMITIVE_LIST, path);
      }
      String at = field(path, key);
      if (patchValue.isNull()) {
        original.remove(key);
        continue;
      }
      JsonNode current = original.get(key);
      if (current == null || kind(current) != kind(patchValue)) {
        // Nothing to merge with: take the patch value (a deletion list has nothing to delete).
        if (!deleteList) {
          putWithoutDirectives(original, key, patchValue);
        }
        continue;
      }
      FieldPatch field = tagsOf(type, key);
      switch (kind(current)) {
        case MAP -> original.set(key, field.replace()
            ? patchValue
            : mergeMap((ObjectNode) current, (ObjectNode) patchValue,
                PatchStrategies.propertyType(type, key), at));
        case LIST -> original.set(key, NODES.arrayNode().addAll(mergeList(
            (ArrayNode) current, (ArrayNode) patchValue, elements(current).toArray(JsonNode[]::new),
            PatchStrategies.elementType(type, key), field, deleteList, at)));
        default -> original.set(key, patchValue);
      }
    }
    return original;
  }

  /** upstream handleDirectiveInMergeMap: {@code $patch} in an object replaces or deletes it. */
  private static ObjectNode mapDirective(JsonNode directive, ObjectNode patch, String path) {
    if (REPLACE.equals(directive.textValue())) {
      // The patch itself, as sent, becomes the object (nested nulls and directives included).
      patch.remove(DIRECTIVE);
      return patch;
    }
    if (DELETE.equals(directive.textValue())) {
      return NODES.objectNode();
    }
    throw bad(path, "unknown patch type: " + directive + " in map: " + patch);
  }

  /**
   * upstream applyRetainKeysDirective: {@code $retainKeys} lists the keys the object keeps; every
   * other key goes, and the patch may only set keys in the list.
   */
  private static void applyRetainKeys(ObjectNode original, ObjectNode patch, String path) {
    JsonNode retain = patch.remove(RETAIN_KEYS);
    if (retain == null) {
      return;
    }
    if (!retain.isArray()) {
      throw bad(path, "invalid patch format of retainKeys: " + RETAIN_KEYS + " must be a list");
    }
    Set<String> kept = new HashSet<>();
    retain.forEach(key -> {
      if (key.isTextual()) {
        kept.add(key.textValue());
      }
    });
    patch.properties().forEach(entry -> {
      String key = entry.getKey();
      boolean exempt = entry.getValue().isNull() || key.startsWith(DELETE_FROM_PRIMITIVE_LIST)
          || key.startsWith(SET_ELEMENT_ORDER);
      if (!exempt && !kept.contains(key)) {
        throw bad(path, "invalid patch format of retainKeys: \"" + key + "\" is set but not in "
            + RETAIN_KEYS + " " + retain);
      }
    });
    original.properties().removeIf(entry -> !kept.contains(entry.getKey()));
  }

  /**
   * upstream mergePatchIntoOriginal: each {@code $setElementOrder/<list>} is applied together with
   * the patch's {@code <list>}; the result follows that order, and elements only the server has
   * keep their place relative to the others.
   */
  private void applyElementOrders(ObjectNode original, ObjectNode patch, JavaType type, String path) {
    for (String directiveKey : keys(patch)) {
      if (!directiveKey.startsWith(SET_ELEMENT_ORDER)) {
        continue;
      }
      JsonNode order = patch.remove(directiveKey);
      String key = listKey(directiveKey, SET_ELEMENT_ORDER, path);
      String at = field(path, key);
      if (!order.isArray()) {
        throw bad(at, "invalid patch format of setElementOrder list: " + directiveKey + " must be a list");
      }
      JsonNode originalList = original.get(key);
      JsonNode patchList = patch.get(key);
      requireList(originalList, at);
      requireList(patchList, at);
      FieldPatch field = tagsOf(type, key);
      String mergeKey = mergeKeyOf(field);
      List<JsonNode> orderItems = elements(order);
      List<JsonNode> patchItems = patchList == null ? List.of() : elements(patchList);
      validateOrder(patchItems, orderItems, mergeKey, at);

      // The original list as the caller's Go slice sees it after the merge edited it in place.
      JsonNode[] originalView = originalList == null
          ? new JsonNode[0] : elements(originalList).toArray(JsonNode[]::new);
      List<JsonNode> merged;
      if (originalList != null && patchList != null) {
        merged = mergeList((ArrayNode) originalList, (ArrayNode) patchList, originalView,
            PatchStrategies.elementType(type, key), field, false, at);
      } else if (originalList != null) {
        merged = elements(originalList);
      } else if (patchList != null) {
        merged = elements(withoutDirectives(patchList));
      } else {
        continue;
      }
      List<JsonNode> serverOrder = Arrays.asList(originalView);
      Kind kind = elementKind(at, serverOrder, patchItems);
      Partition parts = partition(merged, orderItems, mergeKey, at);
      original.set(key, NODES.arrayNode().addAll(
          normalizeOrder(parts.inPatch(), parts.serverOnly(), orderItems, serverOrder, mergeKey, kind, at)));
      patch.remove(key);
    }
  }

  /**
   * upstream validatePatchWithSetOrderList: the patch's list elements (deletions and other
   * directives aside) must appear in {@code $setElementOrder}, in the same relative order.
   */
  private static void validateOrder(List<JsonNode> patchItems, List<JsonNode> order, String mergeKey,
      String path) {
    if (patchItems.isEmpty() || order.isEmpty()) {
      return;
    }
    List<JsonNode> items = mergeKey.isEmpty() ? patchItems : withoutDeletions(patchItems, path);
    int patchIndex = 0;
    int orderIndex = 0;
    while (patchIndex < items.size() && orderIndex < order.size()) {
      JsonNode item = items.get(patchIndex);
      if (item.isObject() && item.has(DIRECTIVE)) {
        patchIndex++;
        continue;
      }
      if (mergeKeyValueEqual(item, order.get(orderIndex), mergeKey, path)) {
        patchIndex++;
      }
      orderIndex++;
    }
    if (patchIndex < items.size()) {
      throw bad(path, "The order in patch list: " + patchItems + " doesn't match "
          + SET_ELEMENT_ORDER + " list: " + order);
    }
  }

  // ---- lists --------------------------------------------------------------------------------

  /**
   * upstream mergeSliceHandler: merge-tagged lists and deletion lists merge, others are replaced.
   * {@code backing} holds the original elements; like Go's slice array it is edited in place.
   */
  private List<JsonNode> mergeList(ArrayNode original, ArrayNode patch, JsonNode[] backing,
      JavaType elementType, FieldPatch field, boolean deleteList, String path) {
    if (!field.merge() && !deleteList) {
      return elements(patch);
    }
    List<JsonNode> patchItems = elements(patch);
    if (original.isEmpty() && patchItems.isEmpty()) {
      return List.of();
    }
    String mergeKey = mergeKeyOf(field);
    Kind kind = elementKind(path, elements(original), patchItems);
    if (kind != Kind.MAP) {
      List<JsonNode> originalItems = Arrays.asList(backing);
      if (deleteList) {
        return deleteAll(originalItems, patchItems);
      }
      List<JsonNode> merged = distinct(originalItems, patchItems);
      Partition parts = partition(merged, patchItems, mergeKey, path);
      return normalizeOrder(parts.inPatch(), parts.serverOnly(), patchItems, originalItems, mergeKey,
          kind, path);
    }
    if (mergeKey.isEmpty()) {
      throw bad(path, "cannot merge lists without merge key");
    }
    return mergeObjectList(new GoSlice(backing), patchItems, elementType, mergeKey, path);
  }

  /** upstream mergeSlice for lists of objects, with mergeSliceWith(out)SpecialElements. */
  private List<JsonNode> mergeObjectList(GoSlice original, List<JsonNode> patch, JavaType elementType,
      String mergeKey, String path) {
    // Elements with $patch: "delete" removes every element with that key, "replace" makes the
    // patch's other elements the whole list.
    List<JsonNode> plain = new ArrayList<>();
    boolean replace = false;
    for (JsonNode item : patch) {
      JsonNode directive = item.get(DIRECTIVE);
      if (directive == null) {
        plain.add(item);
      } else if (DELETE.equals(directive.textValue())) {
        JsonNode value = mergeKeyOf(item, mergeKey, path);
        for (int at = original.indexOf(mergeKey, value, path); at >= 0;
            at = original.indexOf(mergeKey, value, path)) {
          original.remove(at);
        }
      } else if (REPLACE.equals(directive.textValue())) {
        replace = true;
      } else if (MERGE.equals(directive.textValue())) {
        throw bad(path, "merging lists cannot yet be specified in the patch");
      } else {
        throw bad(path, "unknown patch type: " + directive + " in map: " + item);
      }
    }
    GoSlice list = replace ? new GoSlice(plain.toArray(JsonNode[]::new)) : original;
    List<JsonNode> patchItems = replace ? List.of() : plain;
    List<JsonNode> serverOrder = list.toList();

    for (JsonNode item : patchItems) {
      JsonNode value = mergeKeyOf(item, mergeKey, path);
      int at = list.indexOf(mergeKey, value, path);
      if (at >= 0) {
        String elementPath = path + "[" + mergeKey + "=" + value + "]";
        list.set(at, mergeMap((ObjectNode) list.get(at), (ObjectNode) item, elementType, elementPath));
      } else {
        list.append(item); // as sent: nested nulls and directives are not cleaned here upstream
      }
    }
    List<JsonNode> merged = list.toList();
    Partition parts = partition(merged, patchItems, mergeKey, path);
    return normalizeOrder(parts.inPatch(), parts.serverOnly(), patchItems, serverOrder, mergeKey,
        Kind.MAP, path);
  }

  /**
   * Go's slice over the original list's array: removal shifts the rest left in the same array,
   * and appends fill the freed slots before spilling into a new array. A caller holding the whole
   * array (the {@code $setElementOrder} step) sees those edits, and upstream's order depends on it.
   */
  private static final class GoSlice {
    private final JsonNode[] array;
    private int length;
    private final List<JsonNode> spilled = new ArrayList<>();

    GoSlice(JsonNode[] array) {
      this.array = array;
      this.length = array.length;
    }

    JsonNode get(int index) {
      return index < length ? array[index] : spilled.get(index - length);
    }

    void set(int index, JsonNode value) {
      if (index < length) {
        array[index] = value;
      } else {
        spilled.set(index - length, value);
      }
    }

    /** Only before any append, as upstream deletes before it merges. */
    void remove(int index) {
      System.arraycopy(array, index + 1, array, index, length - index - 1);
      length--;
    }

    void append(JsonNode value) {
      if (spilled.isEmpty() && length < array.length) {
        array[length++] = value;
      } else {
        spilled.add(value);
      }
    }

    /** upstream findMapInSliceBasedOnKeyValue: the first element whose merge key equals value. */
    int indexOf(String mergeKey, JsonNode value, String path) {
      for (int i = 0; i < length + spilled.size(); i++) {
        JsonNode item = get(i);
        if (!item.isObject()) {
          throw bad(path, "value for key " + i + " is not a map");
        }
        if (item.has(mergeKey) && same(item.get(mergeKey), value)) {
          return i;
        }
      }
      return -1;
    }

    List<JsonNode> toList() {
      List<JsonNode> list = new ArrayList<>(Arrays.asList(array).subList(0, length));
      list.addAll(spilled);
      return list;
    }
  }

  private record Partition(List<JsonNode> inPatch, List<JsonNode> serverOnly) {}

  /**
   * upstream partition{Primitives,Maps}ByPresentInList: splits merged elements into those the
   * patch (or its {@code $setElementOrder}) names and those only the server has.
   */
  private static Partition partition(List<JsonNode> merged, List<JsonNode> by, String mergeKey,
      String path) {
    List<JsonNode> inPatch = new ArrayList<>();
    List<JsonNode> serverOnly = new ArrayList<>();
    if (mergeKey.isEmpty()) {
      Set<Value> named = new HashSet<>();
      by.forEach(item -> named.add(Value.of(item)));
      merged.forEach(item -> (named.contains(Value.of(item)) ? inPatch : serverOnly).add(item));
      return new Partition(inPatch, serverOnly);
    }
    for (JsonNode item : merged) {
      if (!item.isObject()) {
        throw bad(path, "expected a map, but received a " + kind(item).json);
      }
      JsonNode value = mergeKeyOf(item, mergeKey, path);
      boolean named = false;
      for (int i = 0; i < by.size() && !named; i++) {
        JsonNode other = by.get(i);
        if (!other.isObject()) {
          throw bad(path, "value for key " + i + " is not a map");
        }
        named = other.has(mergeKey) && same(other.get(mergeKey), value);
      }
      (named ? inPatch : serverOnly).add(item);
    }
    return new Partition(inPatch, serverOnly);
  }

  /**
   * upstream normalizeElementOrder: the patch's elements in the patch's order, the server's own
   * elements in the server's order, then the two interleaved by the server's order.
   */
  private static List<JsonNode> normalizeOrder(List<JsonNode> inPatch, List<JsonNode> serverOnly,
      List<JsonNode> patchOrder, List<JsonNode> serverOrder, String mergeKey, Kind kind, String path) {
    List<JsonNode> left = sortBy(serverOnly, serverOrder, mergeKey, kind, path);
    List<JsonNode> right = sortBy(inPatch, patchOrder, mergeKey, kind, path);
    // upstream mergeSortedSlice: a server element goes first only if the server's order puts it
    // before the next patch element; a patch element the server lacks goes before both.
    List<JsonNode> result = new ArrayList<>(left.size() + right.size());
    int i = 0;
    int j = 0;
    while (i < left.size() && j < right.size()) {
      int l = indexIn(serverOrder, left.get(i), mergeKey, kind);
      int r = indexIn(serverOrder, right.get(j), mergeKey, kind);
      if (l >= 0 && r >= 0 && l < r) {
        result.add(left.get(i++));
      } else {
        result.add(right.get(j++));
      }
    }
    result.addAll(left.subList(i, left.size()));
    result.addAll(right.subList(j, right.size()));
    return result;
  }

  /** upstream normalizeSliceOrder: a stable sort by position in {@code order}; deletions last. */
  private static List<JsonNode> sortBy(List<JsonNode> items, List<JsonNode> order, String mergeKey,
      Kind kind, String path) {
    List<JsonNode> sorted = new ArrayList<>();
    List<JsonNode> deletions = new ArrayList<>();
    if (kind == Kind.MAP) {
      requireMergeKeys(items, mergeKey, path);
      requireMergeKeys(order, mergeKey, path);
      items.forEach(item -> (isDeletion(item) ? deletions : sorted).add(item));
    } else {
      sorted.addAll(items);
    }
    // Every element is found in practice; one that is not (never seen upstream) goes last.
    sorted.sort(Comparator.comparingInt(item -> {
      int index = indexIn(order, item, mergeKey, kind);
      return index < 0 ? Integer.MAX_VALUE : index;
    }));
    sorted.addAll(deletions);
    return sorted;
  }

  /** upstream index: position by merge key for objects, by value for primitives; -1 if absent. */
  private static int indexIn(List<JsonNode> list, JsonNode item, String mergeKey, Kind kind) {
    Value wanted = kind == Kind.MAP ? keyValue(item, mergeKey) : Value.of(item);
    for (int i = 0; i < list.size(); i++) {
      JsonNode other = list.get(i);
      if (wanted.equals(kind == Kind.MAP ? keyValue(other, mergeKey) : Value.of(other))) {
        return i;
      }
    }
    return -1;
  }

  private static Value keyValue(JsonNode item, String mergeKey) {
    return item.isObject() ? Value.of(item.get(mergeKey)) : Value.of(null);
  }

  /** upstream deleteFromSlice: every occurrence of the listed primitives goes. */
  private static List<JsonNode> deleteAll(List<JsonNode> items, List<JsonNode> toDelete) {
    Set<Value> deleted = new HashSet<>();
    toDelete.forEach(item -> deleted.add(Value.of(item)));
    return items.stream().filter(item -> !deleted.contains(Value.of(item))).toList();
  }

  /** Union of primitives without duplicates (the order is normalized afterwards). */
  private static List<JsonNode> distinct(List<JsonNode> original, List<JsonNode> patch) {
    Set<Value> seen = new HashSet<>();
    List<JsonNode> union = new ArrayList<>();
    for (List<JsonNode> list : List.of(original, patch)) {
      list.forEach(item -> {
        if (seen.add(Value.of(item))) {
          union.add(item);
        }
      });
    }
    return union;
  }

  /** upstream extractToDeleteItems (the kept half): elements without {@code $patch: delete}. */
  private static List<JsonNode> withoutDeletions(List<JsonNode> items, String path) {
    List<JsonNode> kept = new ArrayList<>();
    for (JsonNode item : items) {
      if (!item.isObject()) {
        throw bad(path, "expected a map, but received a " + kind(item).json);
      }
      if (!isDeletion(item)) {
        kept.add(item);
      }
    }
    return kept;
  }

  private static boolean isDeletion(JsonNode item) {
    JsonNode directive = item.get(DIRECTIVE);
    return directive != null && DELETE.equals(directive.textValue());
  }

  // ---- values -------------------------------------------------------------------------------

  /** The JSON kinds upstream tells apart (Go's types after decoding: int64 is not float64). */
  private enum Kind {
    MAP("map"), LIST("list"), STRING("string"), INTEGER("integer"), FLOAT("float"),
    BOOLEAN("boolean"), NULL("null");

    final String json;

    Kind(String json) {
      this.json = json;
    }
  }

  private static Kind kind(JsonNode node) {
    if (node == null || node.isNull()) {
      return Kind.NULL;
    } else if (node.isObject()) {
      return Kind.MAP;
    } else if (node.isArray()) {
      return Kind.LIST;
    } else if (node.isTextual()) {
      return Kind.STRING;
    } else if (node.isIntegralNumber()) {
      return Kind.INTEGER;
    } else if (node.isNumber()) {
      return Kind.FLOAT;
    } else if (node.isBoolean()) {
      return Kind.BOOLEAN;
    }
    throw new IllegalArgumentException("unsupported JSON value: " + node.getNodeType());
  }

  /** upstream sliceElementType: all elements of the lists have one kind, and are not lists. */
  private static Kind elementKind(String path, List<JsonNode> first, List<JsonNode> second) {
    Kind kind = null;
    for (List<JsonNode> list : List.of(first, second)) {
      for (JsonNode item : list) {
        Kind itemKind = kind(item);
        if (itemKind == Kind.LIST) {
          throw bad(path, "lists of lists are not supported");
        }
        if (itemKind == Kind.NULL || (kind != null && kind != itemKind)) {
          throw bad(path, "list element types are not identical: " + first + " " + second);
        }
        kind = itemKind;
      }
    }
    if (kind == null) {
      throw bad(path, "no elements in any of the given slices");
    }
    return kind;
  }

  /**
   * A JSON value compared as Go compares decoded values with {@code ==}: same kind and value, so
   * 1 equals 1 whatever Jackson's node class, but 1 does not equal 1.0 or "1".
   */
  private record Value(Kind kind, Object value) {
    static Value of(JsonNode node) {
      Kind kind = StrategicMergePatch.kind(node);
      return new Value(kind, switch (kind) {
        case STRING -> node.textValue();
        case INTEGER -> node.bigIntegerValue();
        case FLOAT -> node.doubleValue();
        case BOOLEAN -> node.booleanValue();
        case NULL -> null;
        case MAP, LIST -> node;
      });
    }
  }

  private static boolean same(JsonNode a, JsonNode b) {
    return Value.of(a).equals(Value.of(b));
  }

  /** upstream mergeKeyValueEqual: by merge key for objects, by value for primitives. */
  private static boolean mergeKeyValueEqual(JsonNode left, JsonNode right, String mergeKey,
      String path) {
    if (mergeKey.isEmpty()) {
      return same(left, right);
    }
    for (JsonNode item : List.of(left, right)) {
      if (!item.isObject()) {
        throw bad(path, "expected a map, but received a " + kind(item).json);
      }
    }
    return same(mergeKeyOf(left, mergeKey, path), mergeKeyOf(right, mergeKey, path));
  }

  private static JsonNode mergeKeyOf(JsonNode item, String mergeKey, String path) {
    if (!item.has(mergeKey)) {
      throw bad(path, "map: " + item + " does not contain declared merge key: " + mergeKey);
    }
    return item.get(mergeKey);
  }

  private static void requireMergeKeys(List<JsonNode> items, String mergeKey, String path) {
    for (JsonNode item : items) {
      if (!item.isObject()) {
        throw bad(path, "expected a map, but received a " + kind(item).json);
      }
      mergeKeyOf(item, mergeKey, path);
    }
  }

  private static void requireList(JsonNode node, String path) {
    if (node != null && !node.isArray()) {
      throw bad(path, "expected a list, but received a " + kind(node).json);
    }
  }

  /**
   * Sets a value that replaces what was there: upstream drops its null fields
   * (discardNullValuesFromPatch) and its {@code $patch} directives (removeDirectives).
   */
  private static void putWithoutDirectives(ObjectNode target, String key, JsonNode value) {
    discardNulls(value);
    JsonNode cleaned = withoutDirectives(value);
    if (cleaned == null) {
      target.remove(key);
    } else {
      target.set(key, cleaned);
    }
  }

  private static void discardNulls(JsonNode node) {
    if (node.isObject()) {
      node.properties().removeIf(entry -> entry.getValue().isNull());
      node.forEach(StrategicMergePatch::discardNulls);
    } else if (node.isArray()) {
      node.forEach(StrategicMergePatch::discardNulls);
    }
  }

  /** upstream removeDirectives: null for an object with {@code $patch}, else the value without them. */
  private static JsonNode withoutDirectives(JsonNode node) {
    if (node.isObject()) {
      if (node.has(DIRECTIVE)) {
        return null;
      }
      ObjectNode object = (ObjectNode) node;
      for (String key : keys(object)) {
        JsonNode cleaned = withoutDirectives(object.get(key));
        if (cleaned == null) {
          object.remove(key);
        } else {
          object.set(key, cleaned);
        }
      }
      return object;
    }
    if (node.isArray()) {
      ArrayNode kept = NODES.arrayNode();
      node.forEach(item -> {
        JsonNode cleaned = withoutDirectives(item);
        if (cleaned != null) {
          kept.add(cleaned);
        }
      });
      return kept;
    }
    return node;
  }

  // ---- helpers ------------------------------------------------------------------------------

  private FieldPatch tagsOf(JavaType type, String key) {
    return type != null && PatchStrategies.isBean(type)
        ? tags.of(type.getRawClass(), key) : FieldPatch.NONE;
  }

  private static String mergeKeyOf(FieldPatch field) {
    return field.mergeKey() == null ? "" : field.mergeKey();
  }

  /** upstream extractKey: "$prefix/key" gives key. */
  private static String listKey(String directiveKey, String prefix, String path) {
    int slash = directiveKey.indexOf('/');
    if (slash < 0 || !directiveKey.substring(0, slash).equals(prefix)) {
      String what = prefix.equals(SET_ELEMENT_ORDER) ? "setElementOrder list" : "primitive list";
      throw bad(path, "invalid patch format of " + what + ": " + directiveKey);
    }
    return directiveKey.substring(slash + 1);
  }

  private static List<String> keys(ObjectNode object) {
    return object.properties().stream().map(Map.Entry::getKey).toList();
  }

  private static List<JsonNode> elements(JsonNode list) {
    List<JsonNode> items = new ArrayList<>(list.size());
    list.forEach(items::add);
    return items;
  }

  private static String field(String path, String key) {
    return path.isEmpty() ? key : path + "." + key;
  }

  private static IllegalArgumentException bad(String path, String message) {
    return new IllegalArgumentException(path.isEmpty() ? message : path + ": " + message);
  }
}
