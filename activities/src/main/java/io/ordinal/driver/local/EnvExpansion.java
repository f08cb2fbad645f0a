package io.ordinal.driver.local;

import java.util.Map;

/**
 * Kubernetes' {@code $(VAR)} expansion in command, args and env values: a reference to a defined
 * variable is replaced, an undefined one is left as written, and {@code $$} escapes a dollar sign.
 */
public final class EnvExpansion {
  private EnvExpansion() {}

  public static String expand(String input, Map<String, String> env) {
    if (input == null || input.indexOf('$') < 0) {
      return input;
    }
    StringBuilder out = new StringBuilder(input.length());
    int i = 0;
    while (i < input.length()) {
      char c = input.charAt(i);
      if (c != '$' || i + 1 >= input.length()) {
        out.append(c);
        i++;
        continue;
      }
      char next = input.charAt(i + 1);
      if (next == '$') {
        out.append('$');
        i += 2;
      } else if (next == '(') {
        int close = input.indexOf(')', i + 2);
        if (close < 0) {
          out.append(input, i, input.length());
          break;
        }
        String name = input.substring(i + 2, close);
        String value = env.get(name);
        out.append(value != null ? value : input.substring(i, close + 1));
        i = close + 1;
      } else {
        out.append(c);
        i++;
      }
    }
    return out.toString();
  }
}
