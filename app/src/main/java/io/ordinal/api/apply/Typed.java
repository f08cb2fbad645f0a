package io.ordinal.api.apply;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The walks of structured-merge-diff's {@code typed} package over JSON trees, each along the
 * object's {@link Schema}: the set of fields an object holds, the comparison of two objects, the
 * merge of an applied configuration into an object, and the removal of fields a manager let go.
 * A null {@link JsonNode} argument is a value that is not there.
 */
final class Typed {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private Typed() {}

  // ---- the fields of an object (typed.ToFieldSet) ----------------------------------------------

  /**
   * Every field {@code value} sets: its scalars, atomic lists and objects, map entries and list
   * items (the items themselves too, not only their fields); not the named fields of granular
   * structs, which are there only through what they hold.
   */
  static FieldSet fieldSet(JsonNode value, Schema schema) {
    FieldSet set = new FieldSet();
    collect(value, schema, List.of(), set);
    return set;
  }

  private static void collect(JsonNode value, Schema schema, List<PathElement> path, FieldSet set) {
    if (value.isObject()) {
      if (schema.atomicObject()) {
        set.insert(path);
        return;
      }
      value.fields().forEachRemaining(field -> {
        Schema child = schema.field(field.getKey());
        List<PathElement> childPath = FieldSet.append(path, new PathElement.Field(field.getKey()));
        collect(field.getValue(), child, childPath, set);
        if (!child.named()) {
          set.insert(childPath);
        }
      });
    } else if (value.isArray()) {
      if (schema.list().atomic()) {
        set.insert(path);
        return;
      }
      schema.items(value, path, true).forEach((element, item) -> {
        List<PathElement> itemPath = FieldSet.append(path, element);
        collect(item, schema.element(), itemPath, set);
        set.insert(itemPath);
      });
    } else if (value.isNull()) {
      // A null struct or map holds no field; a null list is a value only when the list is atomic.
      if (!schema.objectTyped() && !(schema.listTyped() && !schema.list().atomic())) {
        set.insert(path);
      }
    } else {
      set.insert(path);
    }
  }

  // ---- comparison (typed.Compare) ---------------------------------------------------------------

  /** What changed from one object to another: fields added, fields whose value changed, fields removed. */
  record Comparison(FieldSet added, FieldSet modified, FieldSet removed) {
    /** This comparison without the fields under {@code ignored} (upstream's ExcludeFields). */
    Comparison excluding(FieldSet ignored) {
      return new Comparison(added.recursiveDifference(ignored), modified.recursiveDifference(ignored),
          removed.recursiveDifference(ignored));
    }
  }

  static Comparison compare(JsonNode lhs, JsonNode rhs, Schema schema) {
    Comparison comparison = new Comparison(new FieldSet(), new FieldSet(), new FieldSet());
    compare(lhs, rhs, schema, List.of(), comparison);
    return comparison;
  }

  private static void compare(JsonNode lhs, JsonNode rhs, Schema schema, List<PathElement> path, Comparison out) {
    if (leaf(lhs, rhs, schema)) {
      if (lhs == null) {
        out.added().insert(path);
      } else if (rhs == null) {
        out.removed().insert(path);
      } else if (!Values.equal(lhs, rhs)) {
        out.modified().insert(path);
      }
      return;
    }
    if (isObject(lhs) || isObject(rhs)) {
      Set<String> names = new LinkedHashSet<>();
      if (lhs != null) {
        lhs.fieldNames().forEachRemaining(names::add);
      }
      if (rhs != null) {
        rhs.fieldNames().forEachRemaining(names::add);
      }
      Set<String> alwaysPresent = schema.alwaysPresent();
      names.addAll(alwaysPresent);
      for (String name : names) {
        JsonNode l = presentAsGoWritesIt(lhs, name, alwaysPresent);
        JsonNode r = presentAsGoWritesIt(rhs, name, alwaysPresent);
        if (l != null || r != null) {
          compare(l, r, schema.field(name), FieldSet.append(path, new PathElement.Field(name)), out);
        }
      }
    } else {
      for (Item item : items(lhs, rhs, schema, path, false)) {
        compare(item.lhs(), item.rhs(), schema.element(), FieldSet.append(path, item.element()), out);
      }
    }
    if (!path.isEmpty()) {
      if (lhs == null) {
        out.added().insert(path);
      } else if (rhs == null) {
        out.removed().insert(path);
      }
    }
  }

  /** Field {@code name} of {@code object}, or {} where Go would have written an empty struct. */
  private static JsonNode presentAsGoWritesIt(JsonNode object, String name, Set<String> alwaysPresent) {
    if (object == null) {
      return null;
    }
    JsonNode value = object.get(name);
    return value == null && alwaysPresent.contains(name) ? NODES.objectNode() : value;
  }

  // ---- merge (typed.Merge) ----------------------------------------------------------------------

  /**
   * {@code rhs} merged into {@code lhs}: scalars, atomic lists and atomic objects replaced,
   * granular objects merged field by field, map and set lists item by item (in upstream's order:
   * {@code rhs}'s order for the items it has, {@code lhs}'s items kept where they were). Null if
   * nothing is left.
   */
  static JsonNode merge(JsonNode lhs, JsonNode rhs, Schema schema) {
    return merge(lhs, rhs, schema, List.of());
  }

  private static JsonNode merge(JsonNode lhs, JsonNode rhs, Schema schema, List<PathElement> path) {
    if (leaf(lhs, rhs, schema)) {
      JsonNode kept = rhs != null ? rhs : lhs;
      return kept == null || kept.isNull() ? null : kept.deepCopy();
    }
    if (isObject(lhs) || isObject(rhs)) {
      ObjectNode out = NODES.objectNode();
      Set<String> names = new LinkedHashSet<>();
      if (lhs != null) {
        lhs.fieldNames().forEachRemaining(names::add);
      }
      if (rhs != null) {
        rhs.fieldNames().forEachRemaining(names::add);
      }
      for (String name : names) {
        JsonNode merged = merge(lhs == null ? null : lhs.get(name), rhs == null ? null : rhs.get(name),
            schema.field(name), FieldSet.append(path, new PathElement.Field(name)));
        if (merged != null) {
          out.set(name, merged);
        }
      }
      return out.isEmpty() ? null : out;
    }
    ArrayNode out = NODES.arrayNode();
    for (Item item : items(lhs, rhs, schema, path, true)) {
      JsonNode merged = merge(item.lhs(), item.rhs(), schema.element(), FieldSet.append(path, item.element()));
      if (merged != null) {
        out.add(merged);
      }
    }
    return out.isEmpty() ? null : out;
  }

  // ---- removal of fields a manager no longer applies (merge.Updater.prune) ---------------------

  /**
   * {@code merged} without the fields that {@code last} has and {@code owned} has not, and
   * without what lies under them. A named field of a struct counts as in a set when anything
   * under it is (upstream's EnsureNamedFieldsAreMembers); a list item or map entry only when it
   * is itself. Null if nothing is left.
   */
  static JsonNode prune(JsonNode merged, FieldSet last, FieldSet owned, Schema schema) {
    return prune(merged, last, owned, schema, List.of());
  }

  private static JsonNode prune(JsonNode node, FieldSet last, FieldSet owned, Schema schema, List<PathElement> path) {
    if (last == null || last.isEmpty()) {
      return node;
    }
    if (node.isObject() && !schema.atomicObject()) {
      ObjectNode out = NODES.objectNode();
      node.fields().forEachRemaining(field -> {
        Schema child = schema.field(field.getKey());
        PathElement element = new PathElement.Field(field.getKey());
        JsonNode kept = pruneChild(field.getValue(), element, last, owned, child, path);
        if (kept != null) {
          out.set(field.getKey(), kept);
        }
      });
      return out.isEmpty() ? null : out;
    }
    if (node.isArray() && !schema.list().atomic()) {
      ArrayNode out = NODES.arrayNode();
      for (int i = 0; i < node.size(); i++) {
        PathElement element = schema.itemElement(node.get(i), i, path);
        JsonNode kept = pruneChild(node.get(i), element, last, owned, schema.element(), path);
        if (kept != null) {
          out.add(kept);
        }
      }
      return out.isEmpty() ? null : out;
    }
    return node;
  }

  private static JsonNode pruneChild(JsonNode value, PathElement element, FieldSet last, FieldSet owned,
      Schema schema, List<PathElement> path) {
    FieldSet lastChild = last.child(element);
    if (lastChild == null) {
      return value;
    }
    FieldSet ownedChild = owned == null ? null : owned.child(element);
    boolean wasApplied = lastChild.member() || schema.named();
    boolean stillOwned = ownedChild != null && (ownedChild.member() || schema.named());
    if (wasApplied && !stillOwned) {
      return null;
    }
    return prune(value, lastChild, ownedChild, schema, FieldSet.append(path, element));
  }

  // ---- shared --------------------------------------------------------------------------------

  /**
   * Whether a value is handled whole: a scalar or null on either side, an atomic list or object,
   * sides of different shapes, or an empty-or-missing object or list on both sides (which keeps
   * {} and [] apart from a missing value).
   */
  private static boolean leaf(JsonNode lhs, JsonNode rhs, Schema schema) {
    if (isScalar(lhs) || isScalar(rhs)) {
      return true;
    }
    if (lhs != null && rhs != null && lhs.getNodeType() != rhs.getNodeType()) {
      return true;
    }
    JsonNode present = lhs != null ? lhs : rhs;
    if (present.isObject() ? schema.atomicObject() : schema.list().atomic()) {
      return true;
    }
    return (lhs == null || lhs.isEmpty()) && (rhs == null || rhs.isEmpty());
  }

  private static boolean isScalar(JsonNode value) {
    return value != null && !value.isContainerNode();
  }

  private static boolean isObject(JsonNode value) {
    return value != null && value.isObject();
  }

  /** A list item present on either side, by its path element. */
  private record Item(PathElement element, JsonNode lhs, JsonNode rhs) {}

  /**
   * The items of two lists, paired by path element, in structured-merge-diff's merged order:
   * items only {@code lhs} has stay where they are, the items {@code rhs} has come in its order,
   * each shared item at the first place both orders allow.
   */
  private static List<Item> items(JsonNode lhs, JsonNode rhs, Schema schema, List<PathElement> path, boolean rhsUnique) {
    Map<PathElement, JsonNode> left = schema.items(lhs, path, false);
    Map<PathElement, JsonNode> right = schema.items(rhs, path, rhsUnique);
    List<PathElement> lhsOrder = new ArrayList<>(left.keySet());
    List<PathElement> rhsOrder = new ArrayList<>(right.keySet());
    List<PathElement> shared = new ArrayList<>(rhsOrder.stream().filter(left::containsKey).toList());
    Set<PathElement> taken = new HashSet<>();
    List<Item> out = new ArrayList<>();
    int l = 0;
    int r = 0;
    while (l < lhsOrder.size() || r < rhsOrder.size()) {
      PathElement nextShared = shared.isEmpty() ? null : shared.get(0);
      if (l < lhsOrder.size() && r < rhsOrder.size()) {
        PathElement element = lhsOrder.get(l);
        if (element.equals(rhsOrder.get(r))) {
          out.add(new Item(element, left.get(element), right.get(element)));
          taken.add(element);
          shared.remove(element);
          l++;
          r++;
          continue;
        }
        if (right.containsKey(element) && nextShared != null && !nextShared.equals(element)) {
          l++; // shared, but another shared item comes first in rhs: it is placed when rhs reaches it
          continue;
        }
      }
      if (l < lhsOrder.size()) {
        PathElement element = lhsOrder.get(l);
        if (!right.containsKey(element)) {
          out.add(new Item(element, left.get(element), null));
          l++;
          continue;
        }
        if (taken.contains(element)) {
          l++;
          continue;
        }
      }
      if (r < rhsOrder.size()) {
        PathElement element = rhsOrder.get(r);
        out.add(new Item(element, left.get(element), right.get(element)));
        taken.add(element);
        shared.remove(element);
        r++;
      }
    }
    return out;
  }
}
