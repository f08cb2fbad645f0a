package io.ordinal.api.apply;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import io.ordinal.store.KubeJson;
import io.ordinal.kube.GoJson;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Collectors;

/**
 * One step of a field path (structured-merge-diff's {@code fieldpath.PathElement}): a field of an
 * object, a list item known by its key fields, a set item known by its value, or an index.
 * Ordered as upstream orders them (fields, then keys, then values, then indexes), which is the
 * order of a FieldsV1 object's entries.
 */
sealed interface PathElement extends Comparable<PathElement> {

  /** A field of an object or a key of a map: {@code f:name}. */
  record Field(String name) implements PathElement {
    @Override
    public String toString() {
      return "." + name;
    }
  }

  /** An item of a list keyed by some of its fields (sorted by name): {@code k:{"name":"nginx"}}. */
  record Key(List<KeyField> fields) implements PathElement {
    public Key {
      fields = fields.stream().sorted(Comparator.comparing(KeyField::name, Values::compareStrings)).toList();
    }

    @Override
    public String toString() {
      return fields.stream().map(f -> f.name() + "=" + Key.show(f.value()))
          .collect(Collectors.joining(",", "[", "]"));
    }

    /** A value as Go's {@code value.ToString} shows it: strings quoted, anything else as JSON. */
    static String show(JsonNode value) {
      if (value.isTextual()) {
        return Values.goQuoted(value.asText());
      }
      return value.toString();
    }
  }

  /** One key field's name and value. */
  record KeyField(String name, JsonNode value) {
    public KeyField {
      value = Values.normalize(value);
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof KeyField other && name.equals(other.name) && Values.equal(value, other.value);
    }

    @Override
    public int hashCode() {
      return name.hashCode();
    }
  }

  /** An item of a set of scalars: {@code v:"value"}. */
  record Value(JsonNode value) implements PathElement {
    public Value {
      value = Values.normalize(value);
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Value other && Values.equal(value, other.value);
    }

    @Override
    public int hashCode() {
      return 0;
    }

    @Override
    public String toString() {
      return "[=" + Key.show(value) + "]";
    }
  }

  /** An item by position, for lists whose items have no identity: {@code i:0}. */
  record Index(int index) implements PathElement {
    @Override
    public String toString() {
      return "[" + index + "]";
    }
  }

  @Override
  default int compareTo(PathElement other) {
    int kind = Integer.compare(rank(), other.rank());
    if (kind != 0) {
      return kind;
    }
    return switch (this) {
      case Field f -> Values.compareStrings(f.name(), ((Field) other).name());
      case Key k -> compareKeys(k.fields(), ((Key) other).fields());
      case Value v -> Values.compare(v.value(), ((Value) other).value());
      case Index i -> Integer.compare(i.index(), ((Index) other).index());
    };
  }

  private int rank() {
    return switch (this) {
      case Field f -> 0;
      case Key k -> 1;
      case Value v -> 2;
      case Index i -> 3;
    };
  }

  private static int compareKeys(List<KeyField> a, List<KeyField> b) {
    for (int i = 0; i < Math.min(a.size(), b.size()); i++) {
      int c = Values.compareStrings(a.get(i).name(), b.get(i).name());
      if (c == 0) {
        c = Values.compare(a.get(i).value(), b.get(i).value());
      }
      if (c != 0) {
        return c;
      }
    }
    return Integer.compare(a.size(), b.size());
  }

  /** The FieldsV1 key of this element. */
  default String serialize() {
    return switch (this) {
      case Field f -> "f:" + f.name();
      case Key k -> {
        StringBuilder out = new StringBuilder("k:{");
        for (int i = 0; i < k.fields().size(); i++) {
          KeyField field = k.fields().get(i);
          if (i > 0) {
            out.append(',');
          }
          GoJson.quote(field.name(), out);
          out.append(':').append(Values.goJson(field.value()));
        }
        yield out.append('}').toString();
      }
      case Value v -> "v:" + Values.goJson(v.value());
      case Index i -> "i:" + i.index();
    };
  }

  /**
   * Reads a FieldsV1 key; null for a kind of element this version does not know, which upstream
   * drops rather than keeps.
   */
  static PathElement parse(String serialized) {
    if (serialized.length() < 2) {
      throw new IllegalArgumentException("key must be 2 characters long: " + serialized);
    }
    if (serialized.charAt(1) != ':') {
      throw new IllegalArgumentException("missing colon: " + serialized);
    }
    String body = serialized.substring(2);
    try {
      return switch (serialized.charAt(0)) {
        case 'f' -> new Field(body);
        case 'v' -> new Value(KubeJson.JSON.readTree(body));
        case 'k' -> {
          JsonNode object = KubeJson.JSON.readTree(body);
          if (object == null || !object.isObject()) {
            throw new IllegalArgumentException("key is not a JSON object: " + serialized);
          }
          List<KeyField> fields = new ArrayList<>();
          object.fields().forEachRemaining(e -> fields.add(new KeyField(e.getKey(), e.getValue())));
          yield new Key(fields);
        }
        case 'i' -> new Index(Integer.parseInt(body));
        default -> null;
      };
    } catch (JsonProcessingException | NumberFormatException e) {
      throw new IllegalArgumentException("invalid path element " + serialized + ": " + e.getMessage(), e);
    }
  }
}
