package io.ordinal.api.apply;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.ordinal.kube.GoJson;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * JSON values as structured-merge-diff sees them: equality where 80 and 80.0 are the same number
 * whatever Jackson node holds them, upstream's total order of values ({@code value.Compare}), and
 * JSON text written as Go's encoder writes it (keys sorted, {@code <>&} escaped), which the
 * {@code k:} and {@code v:} path elements of FieldsV1 embed.
 */
final class Values {
  private Values() {}

  /** Deep equality; numbers compare by value, objects ignore key order. */
  static boolean equal(JsonNode a, JsonNode b) {
    if (a == null || b == null) {
      return a == b;
    }
    if (a.isNumber() && b.isNumber()) {
      return compareNumbers(a, b) == 0;
    }
    if (a.getNodeType() != b.getNodeType()) {
      return false;
    }
    if (a.isObject()) {
      if (a.size() != b.size()) {
        return false;
      }
      for (Iterator<Map.Entry<String, JsonNode>> it = a.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> field = it.next();
        if (!equal(field.getValue(), b.get(field.getKey()))) {
          return false;
        }
      }
      return true;
    }
    if (a.isArray()) {
      if (a.size() != b.size()) {
        return false;
      }
      for (int i = 0; i < a.size(); i++) {
        if (!equal(a.get(i), b.get(i))) {
          return false;
        }
      }
      return true;
    }
    return a.equals(b);
  }

  /** Upstream's order: numbers, then strings, booleans, lists, maps, null. */
  static int compare(JsonNode a, JsonNode b) {
    int rank = Integer.compare(rank(a), rank(b));
    if (rank != 0) {
      return rank;
    }
    return switch (a.getNodeType()) {
      case NUMBER -> compareNumbers(a, b);
      case STRING -> compareStrings(a.asText(), b.asText());
      case BOOLEAN -> Boolean.compare(a.asBoolean(), b.asBoolean());
      case ARRAY -> {
        for (int i = 0; i < Math.min(a.size(), b.size()); i++) {
          int c = compare(a.get(i), b.get(i));
          if (c != 0) {
            yield c;
          }
        }
        yield Integer.compare(a.size(), b.size());
      }
      case OBJECT -> {
        List<String> aKeys = sortedKeys(a);
        List<String> bKeys = sortedKeys(b);
        for (int i = 0; i < Math.min(aKeys.size(), bKeys.size()); i++) {
          int c = compareStrings(aKeys.get(i), bKeys.get(i));
          if (c == 0) {
            c = compare(a.get(aKeys.get(i)), b.get(bKeys.get(i)));
          }
          if (c != 0) {
            yield c;
          }
        }
        yield Integer.compare(aKeys.size(), bKeys.size());
      }
      default -> 0;
    };
  }

  /** Go compares strings byte by byte in UTF-8, which is code point order. */
  static int compareStrings(String a, String b) {
    int i = 0;
    int j = 0;
    while (i < a.length() && j < b.length()) {
      int ca = a.codePointAt(i);
      int cb = b.codePointAt(j);
      if (ca != cb) {
        return Integer.compare(ca, cb);
      }
      i += Character.charCount(ca);
      j += Character.charCount(cb);
    }
    return Integer.compare(a.length() - i, b.length() - j);
  }

  /** Integral numbers as longs, so that a key read from an IntNode and one from a LongNode are the same. */
  static JsonNode normalize(JsonNode value) {
    if (value.isIntegralNumber() && value.canConvertToLong()) {
      return JsonNodeFactory.instance.numberNode(value.asLong());
    }
    return value;
  }

  /** JSON text as Go's encoding/json writes it: object keys sorted, HTML characters escaped. */
  static String goJson(JsonNode value) {
    return new String(GoJson.marshal(value), StandardCharsets.UTF_8);
  }

  /** A string as Go's {@code %q} writes it (conflict messages, paths): quoted, with Go's escapes. */
  static String goQuoted(String s) {
    StringBuilder out = new StringBuilder("\"");
    s.codePoints().forEach(c -> {
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        default -> {
          if (c < 0x20 || c == 0x7f) {
            out.append(String.format("\\x%02x", c));
          } else {
            out.appendCodePoint(c);
          }
        }
      }
    });
    return out.append('"').toString();
  }

  private static List<String> sortedKeys(JsonNode object) {
    List<String> keys = new ArrayList<>();
    object.fieldNames().forEachRemaining(keys::add);
    keys.sort(Values::compareStrings);
    return keys;
  }

  private static int rank(JsonNode value) {
    return switch (value.getNodeType()) {
      case NUMBER -> 0;
      case STRING -> 1;
      case BOOLEAN -> 2;
      case ARRAY -> 3;
      case OBJECT, POJO -> 4;
      default -> 5;
    };
  }

  private static int compareNumbers(JsonNode a, JsonNode b) {
    if (a.isIntegralNumber() && b.isIntegralNumber()) {
      return a.bigIntegerValue().compareTo(b.bigIntegerValue());
    }
    return Double.compare(a.asDouble(), b.asDouble());
  }
}
