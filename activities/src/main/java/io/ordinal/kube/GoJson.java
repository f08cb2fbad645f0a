package io.ordinal.kube;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * JSON as upstream's Go code writes it. {@link #decodeEncode} is what a value becomes when read into
 * its Go type and written back (what kube-apiserver stores, what a controller sees); {@link #marshal}
 * is encoding/json's Marshal of the generic map such a value reads into (what upstream's StatefulSet
 * controller hashes): keys sorted by their bytes, Go's escaping, numbers as float64.
 */
public final class GoJson {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
  private static final String QUANTITY = "k8s.io/apimachinery/pkg/api/resource.Quantity";

  private GoJson() {}

  /**
   * {@code value} read into the Go struct {@code type} and written back: fields Go does not know are
   * dropped, what it always writes is there (with its zero if absent), what omitempty or omitzero
   * leaves out is gone, and quantities are in their canonical form. {@code value} is not changed.
   */
  public static ObjectNode decodeEncode(JsonNode value, String type) {
    return decodeEncode(value, type, false);
  }

  /** As {@link #decodeEncode(JsonNode, String)}; with {@code keepUnknown} fields Go does not know stay as they are. */
  private static ObjectNode decodeEncode(JsonNode value, String type, boolean keepUnknown) {
    ObjectNode out = NODES.objectNode();
    for (GoTypes.Field field : GoTypes.fields(type)) {
      JsonNode given = value == null ? null : value.get(field.name());
      if (given == null || given.isNull()) {
        if (field.always()) {
          out.set(field.name(), field.zero() == null ? NODES.nullNode() : field.zero().deepCopy());
        }
        continue;
      }
      JsonNode written = field(given, field, keepUnknown);
      if (!omitted(written, field)) {
        out.set(field.name(), written);
      }
    }
    if (keepUnknown && value != null) {
      value.properties().forEach(entry -> {
        if (GoTypes.fields(type).stream().noneMatch(f -> f.name().equals(entry.getKey()))) {
          out.set(entry.getKey(), entry.getValue().deepCopy());
        }
      });
    }
    return out;
  }

  /**
   * Whether two values of the Go struct {@code type} are the same once read into it: an absent field
   * and its zero, "0.5" and "500m", an empty list and none, are. What a GET wrote, PUT back, is what
   * was stored. Fields Go does not know (Ordinal's own, such as a rolling update's {@code paused})
   * are compared as they are.
   */
  public static boolean same(JsonNode a, JsonNode b, String type) {
    return decodeEncode(a, type, true).equals(decodeEncode(b, type, true));
  }

  private static JsonNode field(JsonNode given, GoTypes.Field field, boolean keepUnknown) {
    switch (field.shape()) {
      case "list" -> {
        if (!given.isArray()) {
          return given.deepCopy();
        }
        ArrayNode out = NODES.arrayNode();
        given.forEach(element -> out.add(element(element, field, keepUnknown)));
        return out;
      }
      case "map" -> {
        if (!given.isObject()) {
          return given.deepCopy();
        }
        ObjectNode out = NODES.objectNode();
        given.properties().forEach(entry -> out.set(entry.getKey(), element(entry.getValue(), field, keepUnknown)));
        return out;
      }
      default -> {
        return element(given, field, keepUnknown);
      }
    }
  }

  private static JsonNode element(JsonNode given, GoTypes.Field field, boolean keepUnknown) {
    if (field.type() != null && (given.isObject() || given.isNull())) {
      return decodeEncode(given, field.type(), keepUnknown);
    }
    if (QUANTITY.equals(field.codec()) && (given.isTextual() || given.isNumber())) {
      String written = given.isTextual() ? given.asText() : given.decimalValue().toPlainString();
      return GoQuantity.canonical(written).<JsonNode>map(NODES::textNode).orElse(given.deepCopy());
    }
    return given.deepCopy();
  }

  /** encoding/json's omitempty (an empty value of the field's kind) and omitzero (a zero value). */
  private static boolean omitted(JsonNode written, GoTypes.Field field) {
    if (field.omit().isEmpty()) {
      return false;
    }
    return switch (field.kind()) {
      case "string" -> written.isTextual() && written.asText().isEmpty();
      case "int", "float" -> written.isNumber() && written.decimalValue().signum() == 0;
      case "bool" -> written.isBoolean() && !written.asBoolean();
      // omitzero leaves out only a nil slice or map, which null was already taken for.
      case "slice", "map" -> field.omit().equals("empty") && written.size() == 0 && written.isContainerNode();
      case "struct" -> field.omit().equals("zero") && field.zero() != null && written.equals(field.zero());
      default -> false;
    };
  }

  /**
   * encoding/json's Marshal of {@code value} read into {@code map[string]interface{}}: object keys in
   * byte order, strings escaped as Go escapes them (HTML characters too), numbers as float64 writes
   * them.
   */
  public static byte[] marshal(JsonNode value) {
    StringBuilder out = new StringBuilder();
    write(value, out);
    return out.toString().getBytes(StandardCharsets.UTF_8);
  }

  private static void write(JsonNode value, StringBuilder out) {
    switch (value.getNodeType()) {
      case OBJECT -> {
        List<Map.Entry<String, JsonNode>> entries = new ArrayList<>(value.properties());
        entries.sort((a, b) -> Arrays.compareUnsigned(a.getKey().getBytes(StandardCharsets.UTF_8),
            b.getKey().getBytes(StandardCharsets.UTF_8)));
        out.append('{');
        for (int i = 0; i < entries.size(); i++) {
          if (i > 0) {
            out.append(',');
          }
          quote(entries.get(i).getKey(), out);
          out.append(':');
          write(entries.get(i).getValue(), out);
        }
        out.append('}');
      }
      case ARRAY -> {
        out.append('[');
        for (int i = 0; i < value.size(); i++) {
          if (i > 0) {
            out.append(',');
          }
          write(value.get(i), out);
        }
        out.append(']');
      }
      case STRING -> quote(value.asText(), out);
      case NUMBER -> out.append(float64(value.decimalValue()));
      case BOOLEAN -> out.append(value.asBoolean());
      default -> out.append("null");
    }
  }

  /** strconv.FormatFloat(f, 'f', -1, 64) within [1e-6, 1e21), else Go's short exponent form. */
  static String float64(BigDecimal number) {
    double f = number.doubleValue();
    if (f == 0) {
      return "0";
    }
    BigDecimal shortest = new BigDecimal(Double.toString(f));
    double abs = Math.abs(f);
    if (abs >= 1e-6 && abs < 1e21) {
      return shortest.stripTrailingZeros().toPlainString();
    }
    BigDecimal stripped = shortest.stripTrailingZeros();
    String digits = stripped.unscaledValue().abs().toString();
    int exponent = digits.length() - 1 - stripped.scale();
    String mantissa = digits.length() == 1 ? digits : digits.charAt(0) + "." + digits.substring(1);
    // strconv writes at least two exponent digits; encoding/json trims "e-07" to "e-7".
    return (f < 0 ? "-" : "") + mantissa + "e" + (exponent < 0 ? "-" + -exponent : String.format("+%02d", exponent));
  }

  /** encoding/json's string escaping with its default HTML escaping. */
  public static void quote(String text, StringBuilder out) {
    out.append('"');
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        case '\b' -> out.append("\\b");
        case '\f' -> out.append("\\f");
        case '<', '>', '&', '\u2028', '\u2029' -> out.append(String.format("\\u%04x", (int) c));
        default -> {
          if (c < 0x20) {
            out.append(String.format("\\u%04x", (int) c));
          } else if (Character.isSurrogate(c) && !(Character.isHighSurrogate(c) && i + 1 < text.length()
              && Character.isLowSurrogate(text.charAt(i + 1)))
              && !(Character.isLowSurrogate(c) && i > 0 && Character.isHighSurrogate(text.charAt(i - 1)))) {
            out.append("\\ufffd"); // Go writes invalid UTF-8 as the replacement character
          } else {
            out.append(c);
          }
        }
      }
    }
    out.append('"');
  }
}
