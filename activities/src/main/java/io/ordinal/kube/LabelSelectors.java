package io.ordinal.kube;

import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

/** Label selector matching, as in Kubernetes ({@code metav1.LabelSelector} and the {@code labelSelector} query). */
public final class LabelSelectors {
  private LabelSelectors() {}

  public static boolean matches(LabelSelector selector, Map<String, String> labels) {
    if (selector.getMatchLabels() != null) {
      for (var entry : selector.getMatchLabels().entrySet()) {
        if (!entry.getValue().equals(labels.get(entry.getKey()))) {
          return false;
        }
      }
    }
    if (selector.getMatchExpressions() != null) {
      for (LabelSelectorRequirement r : selector.getMatchExpressions()) {
        List<String> values = r.getValues() == null ? List.of() : r.getValues();
        boolean has = labels.containsKey(r.getKey());
        boolean ok = switch (r.getOperator()) {
          case "In" -> has && values.contains(labels.get(r.getKey()));
          case "NotIn" -> !has || !values.contains(labels.get(r.getKey()));
          case "Exists" -> has;
          case "DoesNotExist" -> !has;
          default -> false;
        };
        if (!ok) {
          return false;
        }
      }
    }
    return true;
  }

  /**
   * Parses the string form of a selector ({@code app=nginx,tier!=db,env in (a,b),!legacy,track}).
   *
   * @throws IllegalArgumentException when the text is not a selector
   */
  public static LabelSelector parse(String text) {
    Map<String, String> matchLabels = new HashMap<>();
    List<LabelSelectorRequirement> expressions = new ArrayList<>();
    for (String term : splitTerms(text)) {
      String t = term.trim();
      if (t.isEmpty()) {
        continue;
      }
      var setMatch = Pattern.compile("^([^\\s!=]+)\\s+(in|notin)\\s+\\(([^)]*)\\)$").matcher(t);
      if (setMatch.matches()) {
        List<String> values = Arrays.stream(setMatch.group(3).split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
        expressions.add(new LabelSelectorRequirement(setMatch.group(1), setMatch.group(2).equals("in") ? "In" : "NotIn", values));
      } else if (t.contains("!=")) {
        String[] kv = t.split("!=", 2);
        expressions.add(new LabelSelectorRequirement(kv[0].trim(), "NotIn", List.of(kv[1].trim())));
      } else if (t.contains("==") || t.contains("=")) {
        String[] kv = t.split("==?", 2);
        matchLabels.put(kv[0].trim(), kv[1].trim());
      } else if (t.startsWith("!")) {
        expressions.add(new LabelSelectorRequirement(t.substring(1).trim(), "DoesNotExist", List.of()));
      } else if (t.matches("[A-Za-z0-9./_-]+")) {
        expressions.add(new LabelSelectorRequirement(t, "Exists", List.of()));
      } else {
        throw new IllegalArgumentException("unable to parse requirement: " + t);
      }
    }
    return new LabelSelector(expressions, matchLabels);
  }

  /** The string form of a selector, as a Scale's {@code status.selector} carries it. */
  public static String format(LabelSelector selector) {
    List<String> terms = new ArrayList<>();
    if (selector.getMatchLabels() != null) {
      new TreeMap<>(selector.getMatchLabels()).forEach((k, v) -> terms.add(k + "=" + v));
    }
    if (selector.getMatchExpressions() != null) {
      for (LabelSelectorRequirement r : selector.getMatchExpressions()) {
        String values = String.join(",", r.getValues() == null ? List.of() : r.getValues());
        terms.add(switch (r.getOperator()) {
          case "In" -> r.getKey() + " in (" + values + ")";
          case "NotIn" -> r.getKey() + " notin (" + values + ")";
          case "Exists" -> r.getKey();
          default -> "!" + r.getKey();
        });
      }
    }
    return String.join(",", terms);
  }

  /** Splits on commas that are not inside parentheses. */
  private static List<String> splitTerms(String text) {
    List<String> terms = new ArrayList<>();
    int depth = 0, start = 0;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '(') depth++;
      else if (c == ')') depth--;
      else if (c == ',' && depth == 0) {
        terms.add(text.substring(start, i));
        start = i + 1;
      }
    }
    terms.add(text.substring(start));
    return terms;
  }
}
