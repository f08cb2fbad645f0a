package io.ordinal.api.openapi;

import com.fasterxml.jackson.databind.JsonNode;
import io.ordinal.store.KubeJson;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A JSON value as YAML, the way gnostic writes a vendor extension into {@code Any.yaml}
 * ({@code compiler.Marshal}: go-yaml v3, styles cleared, indent 4), so the protobuf carries the
 * bytes upstream's would. kubectl parses these back (the group-version-kind of a schema, patch
 * strategies), so what matters is the value; the bytes matter to compare with upstream's.
 *
 * <p>Covers the shapes extensions have: scalars, mappings and sequences nested in mappings, and
 * sequences of scalars or of mappings of scalars. Deeper nesting inside a sequence item, where
 * go-yaml's indentation has quirks of its own, throws rather than guess.
 */
final class GoYaml {
  private GoYaml() {}

  /** Words go-yaml v3 resolves to null, a bool or a float: a string so spelled is double-quoted. */
  private static final Set<String> RESERVED = Set.of("", "~", "null", "Null", "NULL", "true", "True", "TRUE",
      "false", "False", "FALSE", ".nan", ".NaN", ".NAN", ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF",
      "-.inf", "-.Inf", "-.INF", "<<");
  /** go-yaml's ints (Go's ParseInt with base prefixes, underscores allowed) and floats. */
  private static final Pattern NUMBER = Pattern.compile(
      "[-+]?(0b[01_]+|0o?[0-7_]+|0x[0-9a-fA-F_]+|[0-9][0-9_]*)|[-+]?(\\.[0-9]+|[0-9]+(\\.[0-9]*)?)([eE][-+]?[0-9]+)?");
  /** Anything go-yaml might read as a timestamp (its forms all start with a date). */
  private static final Pattern TIMESTAMP = Pattern.compile("[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}.*");

  static String write(JsonNode value) {
    StringBuilder out = new StringBuilder();
    if (value.isObject() && !value.isEmpty()) {
      mapping(out, value, 0);
    } else if (value.isArray() && !value.isEmpty()) {
      sequence(out, value, 0);
    } else {
      out.append(scalar(value)).append('\n');
    }
    return out.toString();
  }

  /** A block mapping at {@code indent}; nested collections 4 further in, as go-yaml's default. */
  private static void mapping(StringBuilder out, JsonNode mapping, int indent) {
    for (Iterator<Map.Entry<String, JsonNode>> it = mapping.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> entry = it.next();
      out.repeat(' ', indent).append(string(entry.getKey())).append(':');
      entry(out, entry.getValue(), indent);
    }
  }

  private static void entry(StringBuilder out, JsonNode value, int indent) {
    if (value.isObject() && !value.isEmpty()) {
      out.append('\n');
      mapping(out, value, indent + 4);
    } else if (value.isArray() && !value.isEmpty()) {
      out.append('\n');
      sequence(out, value, indent + 4);
    } else {
      out.append(' ').append(scalar(value)).append('\n');
    }
  }

  /** A block sequence: scalars after "- ", a mapping of scalars with its first key there and the rest below it. */
  private static void sequence(StringBuilder out, JsonNode sequence, int indent) {
    for (JsonNode item : sequence) {
      out.repeat(' ', indent).append("- ");
      if (item.isObject() && !item.isEmpty()) {
        boolean first = true;
        for (Iterator<Map.Entry<String, JsonNode>> it = item.fields(); it.hasNext(); ) {
          Map.Entry<String, JsonNode> entry = it.next();
          if (entry.getValue().isContainerNode() && !entry.getValue().isEmpty()) {
            throw new IllegalArgumentException("a collection in a mapping in a sequence is not written as YAML: " + item);
          }
          if (!first) {
            out.repeat(' ', indent + 2);
          }
          first = false;
          out.append(string(entry.getKey())).append(": ").append(scalar(entry.getValue())).append('\n');
        }
      } else if (item.isArray() && !item.isEmpty()) {
        throw new IllegalArgumentException("a sequence in a sequence is not written as YAML: " + sequence);
      } else {
        out.append(scalar(item)).append('\n');
      }
    }
  }

  /** A scalar, or an empty collection ({} and [], as go-yaml writes them in flow style). */
  private static String scalar(JsonNode value) {
    if (value.isObject()) {
      return "{}";
    }
    if (value.isArray()) {
      return "[]";
    }
    if (value.isTextual()) {
      return string(value.textValue());
    }
    if (value.isNull() || value.isBoolean() || value.isNumber()) {
      return value.toString(); // null, true, false and numbers as JSON spells them; YAML reads them alike
    }
    throw new IllegalArgumentException("not written as YAML: " + value);
  }

  /**
   * A string: double-quoted when plain it would read as something else (empty, null, a bool, a
   * number, a timestamp), as go-yaml forces; plain when go-yaml's emitter allows a plain scalar;
   * else single-quoted, as it falls back to. (Non-ASCII is single-quoted here where go-yaml may
   * write it plain: the same value, other bytes.)
   */
  static String string(String s) {
    if (RESERVED.contains(s) || NUMBER.matcher(s).matches() || TIMESTAMP.matcher(s).matches()) {
      return KubeJson.write(KubeJson.JSON.getNodeFactory().textNode(s)); // YAML's double quotes read JSON's escapes
    }
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < 0x20 || c == 0x7f) {
        throw new IllegalArgumentException("a string with control characters is not written as YAML: " + s);
      }
    }
    return plain(s) ? s : "'" + s.replace("'", "''") + "'";
  }

  /** Whether go-yaml's emitter writes the string plain in a block: no indicator where it would be read as one. */
  private static boolean plain(String s) {
    char first = s.charAt(0);
    boolean spaceNext = s.length() == 1 || s.charAt(1) == ' ';
    if ("[]{}#&*!|>'\"%@`,".indexOf(first) >= 0 || ("-?:".indexOf(first) >= 0 && spaceNext)) {
      return false;
    }
    if (s.startsWith(" ") || s.endsWith(" ") || s.endsWith(":") || s.contains(": ") || s.contains(" #")) {
      return false;
    }
    return s.chars().allMatch(c -> c >= 0x20 && c < 0x7f);
  }
}
