package io.ordinal.kube;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Label key and value rules, with the messages of apimachinery's util/validation
 * (IsQualifiedName, IsValidLabelValue, IsDNS1123Subdomain and their RegexError wording).
 */
final class LabelSyntax {
  private LabelSyntax() {}

  private static final String NAME_FORMAT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
  private static final Pattern NAME = Pattern.compile(NAME_FORMAT);
  private static final String NAME_MESSAGE = regexError("must consist of alphanumeric characters, '-', '_' or '.',"
      + " and must start and end with an alphanumeric character", NAME_FORMAT, "MyName", "my.name", "123-abc");
  private static final String VALUE_FORMAT = "(" + NAME_FORMAT + ")?";
  private static final Pattern VALUE = Pattern.compile(VALUE_FORMAT);
  private static final String DNS_LABEL_FORMAT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
  private static final String SUBDOMAIN_FORMAT = DNS_LABEL_FORMAT + "(\\." + DNS_LABEL_FORMAT + ")*";
  private static final Pattern SUBDOMAIN = Pattern.compile(SUBDOMAIN_FORMAT);

  /** Why a label key is invalid ({@code [prefix/]name}), the reasons joined by "; "; null when valid. */
  static String keyError(String key) {
    List<String> errors = new ArrayList<>();
    String[] parts = key.split("/", -1);
    String name;
    switch (parts.length) {
      case 1 -> name = parts[0];
      case 2 -> {
        String prefix = parts[0];
        name = parts[1];
        if (prefix.isEmpty()) {
          errors.add("prefix part must be non-empty");
        } else {
          subdomainErrors(prefix).forEach(error -> errors.add("prefix part " + error));
        }
      }
      default -> {
        return "a qualified name " + NAME_MESSAGE + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')";
      }
    }
    if (name.isEmpty()) {
      errors.add("name part must be non-empty");
    } else if (length(name) > 63) {
      errors.add("name part must be no more than 63 characters");
    }
    if (!NAME.matcher(name).matches()) {
      errors.add("name part " + NAME_MESSAGE);
    }
    return errors.isEmpty() ? null : String.join("; ", errors);
  }

  /** Why a label value is invalid, the reasons joined by "; "; null when valid (the empty value is). */
  static String valueError(String value) {
    List<String> errors = new ArrayList<>();
    if (length(value) > 63) {
      errors.add("must be no more than 63 characters");
    }
    if (!VALUE.matcher(value).matches()) {
      errors.add(regexError("a valid label must be an empty string or consist of alphanumeric characters, '-', '_'"
          + " or '.', and must start and end with an alphanumeric character", VALUE_FORMAT, "MyValue", "my_value", "12345"));
    }
    return errors.isEmpty() ? null : String.join("; ", errors);
  }

  private static List<String> subdomainErrors(String value) {
    List<String> errors = new ArrayList<>();
    if (length(value) > 253) {
      errors.add("must be no more than 253 characters");
    }
    if (!SUBDOMAIN.matcher(value).matches()) {
      errors.add(regexError("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-'"
          + " or '.', and must start and end with an alphanumeric character", SUBDOMAIN_FORMAT, "example.com"));
    }
    return errors;
  }

  /** Upstream's RegexError, double spaces included: "(e.g. 'a',  or 'b', regex used for validation is '...')". */
  private static String regexError(String message, String format, String... examples) {
    StringBuilder out = new StringBuilder(message).append(" (e.g. ");
    for (int i = 0; i < examples.length; i++) {
      if (i > 0) {
        out.append(" or ");
      }
      out.append('\'').append(examples[i]).append("', ");
    }
    return out.append("regex used for validation is '").append(format).append("')").toString();
  }

  /** Go measures strings in bytes. */
  private static int length(String s) {
    return s.getBytes(StandardCharsets.UTF_8).length;
  }

  /** Go's %q of a string: quoted, with backslashes, quotes and control characters escaped. */
  static String quote(String s) {
    StringBuilder out = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\t' -> out.append("\\t");
        case '\r' -> out.append("\\r");
        default -> {
          if (c < 0x20 || c == 0x7f) {
            out.append(String.format("\\x%02x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    return out.append('"').toString();
  }
}
