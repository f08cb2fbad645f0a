package io.ordinal.api.apply;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * A set of field paths (structured-merge-diff's {@code fieldpath.Set}), kept as a tree: each node
 * is a path, marked when the path itself is in the set. Nodes with nothing marked at or below
 * them are not kept, so a node exists exactly when the set has that path or one under it.
 */
final class FieldSet {
  private final TreeMap<PathElement, FieldSet> children = new TreeMap<>();
  private boolean member;

  static FieldSet of(List<List<PathElement>> paths) {
    FieldSet set = new FieldSet();
    paths.forEach(set::insert);
    return set;
  }

  boolean isEmpty() {
    return children.isEmpty();
  }

  void insert(List<PathElement> path) {
    FieldSet node = this;
    for (PathElement element : path) {
      node = node.children.computeIfAbsent(element, e -> new FieldSet());
    }
    node.member = true;
  }

  /** Whether {@code path} itself is in the set. */
  boolean has(List<PathElement> path) {
    FieldSet node = node(path);
    return node != null && node != this && node.member;
  }

  /** The part of the set under {@code element} (paths relative to it), or null if there is none. */
  FieldSet child(PathElement element) {
    return children.get(element);
  }

  /** Whether this node, reached by {@link #child}, is itself in the set. */
  boolean member() {
    return member;
  }

  /** The node of {@code path}, or null. */
  FieldSet node(List<PathElement> path) {
    FieldSet node = this;
    for (PathElement element : path) {
      node = node.children.get(element);
      if (node == null) {
        return null;
      }
    }
    return node;
  }

  FieldSet copy() {
    FieldSet copy = new FieldSet();
    copy.member = member;
    children.forEach((element, child) -> copy.children.put(element, child.copy()));
    return copy;
  }

  FieldSet union(FieldSet other) {
    FieldSet out = copy();
    out.addAll(other);
    return out;
  }

  private void addAll(FieldSet other) {
    member |= other.member;
    other.children.forEach((element, child) ->
        children.computeIfAbsent(element, e -> new FieldSet()).addAll(child));
  }

  /** The paths of this set that are not in {@code other}. */
  FieldSet difference(FieldSet other) {
    FieldSet out = new FieldSet();
    out.member = member && !other.member;
    children.forEach((element, child) -> {
      FieldSet otherChild = other.children.get(element);
      FieldSet kept = otherChild == null ? child.copy() : child.difference(otherChild);
      if (kept.member || !kept.isEmpty()) {
        out.children.put(element, kept);
      }
    });
    return out;
  }

  /** The paths in both sets. */
  FieldSet intersection(FieldSet other) {
    FieldSet out = new FieldSet();
    out.member = member && other.member;
    children.forEach((element, child) -> {
      FieldSet otherChild = other.children.get(element);
      if (otherChild != null) {
        FieldSet both = child.intersection(otherChild);
        if (both.member || !both.isEmpty()) {
          out.children.put(element, both);
        }
      }
    });
    return out;
  }

  /** The paths of this set that neither are in {@code prefixes} nor lie under a path that is. */
  FieldSet recursiveDifference(FieldSet prefixes) {
    FieldSet out = new FieldSet();
    out.member = member;
    children.forEach((element, child) -> {
      FieldSet prefix = prefixes.children.get(element);
      if (prefix == null) {
        out.children.put(element, child.copy());
      } else if (!prefix.member) {
        FieldSet kept = child.recursiveDifference(prefix);
        if (kept.member || !kept.isEmpty()) {
          out.children.put(element, kept);
        }
      }
    });
    return out;
  }

  /** Every path, in upstream's order: at each level the paths themselves, then what lies under them. */
  void forEach(Consumer<List<PathElement>> action) {
    forEach(new ArrayList<>(), action);
  }

  private void forEach(List<PathElement> prefix, Consumer<List<PathElement>> action) {
    children.forEach((element, child) -> {
      if (child.member) {
        action.accept(append(prefix, element));
      }
    });
    children.forEach((element, child) -> {
      if (!child.isEmpty()) {
        child.forEach(append(prefix, element), action);
      }
    });
  }

  List<List<PathElement>> paths() {
    List<List<PathElement>> paths = new ArrayList<>();
    forEach(paths::add);
    return paths;
  }

  static List<PathElement> append(List<PathElement> path, PathElement element) {
    List<PathElement> longer = new ArrayList<>(path.size() + 1);
    longer.addAll(path);
    longer.add(element);
    return List.copyOf(longer);
  }

  /** A path as upstream prints it in conflicts: {@code .spec.template.spec.containers[name="nginx"].image}. */
  static String toString(List<PathElement> path) {
    StringBuilder out = new StringBuilder();
    path.forEach(out::append);
    return out.toString();
  }

  /**
   * The FieldsV1 form: one object per node, keyed by serialized path elements in order, a path
   * that is in the set and has nothing under it as {@code {}}, and {@code ".": {}} after the
   * entries of a path that is in the set and has paths under it too.
   */
  ObjectNode toFieldsV1() {
    ObjectNode out = JsonNodeFactory.instance.objectNode();
    children.forEach((element, child) -> {
      ObjectNode entry = child.toFieldsV1();
      if (child.member && !child.isEmpty()) {
        entry.putObject(".");
      }
      out.set(element.serialize(), entry);
    });
    return out;
  }

  static FieldSet fromFieldsV1(JsonNode fields) {
    if (fields == null || fields.isNull()) {
      return new FieldSet();
    }
    if (!fields.isObject()) {
      throw new IllegalArgumentException("fieldsV1 must be an object, not " + fields.getNodeType());
    }
    FieldSet set = new FieldSet();
    set.read((ObjectNode) fields);
    return set;
  }

  private void read(ObjectNode fields) {
    for (Iterator<Map.Entry<String, JsonNode>> it = fields.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> entry = it.next();
      if (!entry.getValue().isObject()) {
        throw new IllegalArgumentException("the value of " + entry.getKey() + " must be an object");
      }
      if (entry.getKey().equals(".")) {
        continue;
      }
      PathElement element = PathElement.parse(entry.getKey());
      if (element == null) {
        continue; // an element kind this version does not know: dropped, as upstream drops it
      }
      ObjectNode value = (ObjectNode) entry.getValue();
      FieldSet child = children.computeIfAbsent(element, e -> new FieldSet());
      child.read(value);
      // {} is a path in the set; so is one whose object lists "." among paths under it.
      if (value.has(".") || child.isEmpty()) {
        child.member = true;
      }
    }
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof FieldSet other && member == other.member && children.equals(other.children);
  }

  @Override
  public int hashCode() {
    return children.hashCode();
  }

  @Override
  public String toString() {
    List<String> paths = new ArrayList<>();
    forEach(path -> paths.add(toString(path)));
    return paths.toString();
  }
}
