package io.ordinal.e2e;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The samples of a Prometheus text exposition (format 0.0.4), for reading values in tests. Whether the
 * text is valid is promtool's to say ({@link Promtool}); this reads what the tests ask about.
 */
record Exposition(String text, List<Sample> samples) {

  record Sample(String name, Map<String, String> labels, double value) {}

  static Exposition parse(String text) {
    List<Sample> samples = new ArrayList<>();
    for (String line : text.split("\n")) {
      if (line.isBlank() || line.startsWith("#")) {
        continue;
      }
      int brace = line.indexOf('{');
      int space = line.indexOf(' ');
      String name;
      Map<String, String> labels = new LinkedHashMap<>();
      int rest;
      if (brace >= 0 && brace < space) {
        name = line.substring(0, brace);
        rest = readLabels(line, brace + 1, labels);
      } else {
        name = line.substring(0, space);
        rest = space;
      }
      String[] value = line.substring(rest).trim().split(" ");
      samples.add(new Sample(name, labels, Double.parseDouble(value[0])));
    }
    return new Exposition(text, samples);
  }

  /** Reads {@code a="x",b="y"}} from {@code at}; returns the index after the closing brace. */
  private static int readLabels(String line, int at, Map<String, String> labels) {
    int i = at;
    while (line.charAt(i) != '}') {
      int equals = line.indexOf('=', i);
      String key = line.substring(i, equals);
      StringBuilder value = new StringBuilder();
      int j = equals + 2; // past ="
      while (line.charAt(j) != '"') {
        if (line.charAt(j) == '\\') {
          j++;
          value.append(line.charAt(j) == 'n' ? '\n' : line.charAt(j));
        } else {
          value.append(line.charAt(j));
        }
        j++;
      }
      labels.put(key, value.toString());
      i = j + 1;
      if (line.charAt(i) == ',') {
        i++;
      }
    }
    return i + 1;
  }

  /** The sum of the samples named {@code name} whose labels include {@code selector}; 0 when none. */
  double sum(String name, Map<String, String> selector) {
    return samples.stream().filter(s -> s.name().equals(name) && s.labels().entrySet().containsAll(selector.entrySet()))
        .mapToDouble(Sample::value).sum();
  }

  boolean has(String name) {
    return samples.stream().anyMatch(s -> s.name().equals(name));
  }

  /** The {@code # TYPE} the exposition gives {@code family}, or null. */
  String type(String family) {
    for (String line : text.split("\n")) {
      if (line.startsWith("# TYPE " + family + " ")) {
        return line.substring(("# TYPE " + family + " ").length()).trim();
      }
    }
    return null;
  }
}
