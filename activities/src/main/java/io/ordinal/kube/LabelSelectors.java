package io.ordinal.kube;

import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Label selectors as Kubernetes has them: {@code metav1.LabelSelector} matching, and the string
 * form of the {@code labelSelector} query, parsed as strictly as apimachinery's {@code labels.Parse}
 * (pkg/labels/selector.go).
 */
public final class LabelSelectors {
  private LabelSelectors() {}

  /**
   * Whether the labels satisfy every matchLabels entry and matchExpression. {@code NotIn} and
   * {@code !=} hold when the label is absent; {@code In}, {@code =} and {@code Gt}/{@code Lt} need it.
   */
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
          case "Gt", "Lt" -> has && compares(r.getOperator(), labels.get(r.getKey()), values);
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
   * The labels every match must carry with exactly these values (matchLabels, and {@code In} with
   * one value): a necessary condition a store can check before {@link #matches} decides.
   */
  public static Map<String, String> requiredLabels(LabelSelector selector) {
    Map<String, String> required = new TreeMap<>();
    if (selector.getMatchLabels() != null) {
      required.putAll(selector.getMatchLabels());
    }
    if (selector.getMatchExpressions() != null) {
      for (LabelSelectorRequirement r : selector.getMatchExpressions()) {
        if ("In".equals(r.getOperator()) && r.getValues() != null && r.getValues().size() == 1) {
          required.put(r.getKey(), r.getValues().getFirst());
        }
      }
    }
    return required;
  }

  /** Gt and Lt compare integers; a label or a bound that is not one matches nothing. */
  private static boolean compares(String operator, String label, List<String> values) {
    if (values.size() != 1) {
      return false;
    }
    try {
      long actual = Long.parseLong(label);
      long bound = Long.parseLong(values.getFirst());
      return operator.equals("Gt") ? actual > bound : actual < bound;
    } catch (NumberFormatException e) {
      return false;
    }
  }

  /**
   * Parses the string form of a selector: comma-separated requirements {@code key},
   * {@code !key}, {@code key=value}, {@code key==value}, {@code key!=value},
   * {@code key in (v1,v2)}, {@code key notin (v1,v2)}, {@code key>n}, {@code key<n}, keys and
   * values validated as label keys and values. Every requirement becomes a match expression,
   * sorted by key: {@code =} and {@code ==} as {@code In} with one value, {@code !=} as
   * {@code NotIn} (the same matching), {@code >} and {@code <} as {@code Gt} and {@code Lt}.
   * As upstream, {@code key in ()} is valid and means the empty value.
   *
   * @throws IllegalArgumentException with upstream's message when the text is not a selector
   */
  public static LabelSelector parse(String text) {
    List<LabelSelectorRequirement> requirements = new Parser(text).parse();
    requirements.sort(Comparator.comparing(LabelSelectorRequirement::getKey));
    return new LabelSelector(requirements, new HashMap<>());
  }

  /**
   * The string form of a selector, as a Scale's {@code status.selector} carries it: upstream's
   * {@code LabelSelectorAsSelector(...).String()}, requirements sorted by key, values sorted.
   */
  public static String format(LabelSelector selector) {
    record Term(String key, String text) {}
    List<Term> terms = new ArrayList<>();
    if (selector.getMatchLabels() != null) {
      new TreeMap<>(selector.getMatchLabels()).forEach((k, v) -> terms.add(new Term(k, k + "=" + v)));
    }
    if (selector.getMatchExpressions() != null) {
      for (LabelSelectorRequirement r : selector.getMatchExpressions()) {
        String values = String.join(",", new TreeSet<>(r.getValues() == null ? List.of() : r.getValues()));
        terms.add(new Term(r.getKey(), switch (r.getOperator()) {
          case "In" -> r.getKey() + " in (" + values + ")";
          case "NotIn" -> r.getKey() + " notin (" + values + ")";
          case "Exists" -> r.getKey();
          case "Gt" -> r.getKey() + ">" + values;
          case "Lt" -> r.getKey() + "<" + values;
          default -> "!" + r.getKey();
        }));
      }
    }
    terms.sort(Comparator.comparing(Term::key));
    return String.join(",", terms.stream().map(Term::text).toList());
  }

  private enum Token {
    END, CLOSED_PAR, COMMA, DOES_NOT_EXIST, DOUBLE_EQUALS, EQUALS, GREATER_THAN, IDENTIFIER, IN,
    LESS_THAN, NOT_EQUALS, NOT_IN, OPEN_PAR
  }

  private record Scanned(Token token, String literal) {}

  private static final Map<String, Token> SYMBOLS = Map.ofEntries(
      Map.entry(")", Token.CLOSED_PAR), Map.entry(",", Token.COMMA), Map.entry("!", Token.DOES_NOT_EXIST),
      Map.entry("==", Token.DOUBLE_EQUALS), Map.entry("=", Token.EQUALS), Map.entry(">", Token.GREATER_THAN),
      Map.entry("in", Token.IN), Map.entry("<", Token.LESS_THAN), Map.entry("!=", Token.NOT_EQUALS),
      Map.entry("notin", Token.NOT_IN), Map.entry("(", Token.OPEN_PAR));

  /**
   * Upstream's lexer and recursive-descent parser, token for token, so that the same strings are
   * accepted and the errors read the same. {@code in} and {@code notin} are operators after a key
   * and plain identifiers where a value is expected.
   */
  private static final class Parser {
    private final List<Scanned> items = new ArrayList<>();
    private int position;

    Parser(String text) {
      Lexer lexer = new Lexer(text);
      Scanned item;
      do {
        item = lexer.next();
        items.add(item);
      } while (item.token() != Token.END);
    }

    List<LabelSelectorRequirement> parse() {
      List<LabelSelectorRequirement> requirements = new ArrayList<>();
      while (true) {
        Scanned next = lookahead(true);
        switch (next.token()) {
          case IDENTIFIER, DOES_NOT_EXIST -> {
            try {
              requirements.add(requirement());
            } catch (IllegalArgumentException e) {
              throw new IllegalArgumentException("unable to parse requirement: " + e.getMessage());
            }
            Scanned after = consume(true);
            switch (after.token()) {
              case END -> {
                return requirements;
              }
              case COMMA -> {
                Scanned following = lookahead(true);
                if (following.token() != Token.IDENTIFIER && following.token() != Token.DOES_NOT_EXIST) {
                  throw new IllegalArgumentException("found '" + following.literal() + "', expected: identifier after ','");
                }
              }
              default -> throw new IllegalArgumentException(
                  "found '" + after.literal() + "', expected: ',' or 'end of string'");
            }
          }
          case END -> {
            return requirements;
          }
          default -> throw new IllegalArgumentException(
              "found '" + next.literal() + "', expected: !, identifier, or 'end of string'");
        }
      }
    }

    private LabelSelectorRequirement requirement() {
      // [!] KEY, then an operator unless the key stands alone.
      String operator = null;
      Scanned key = consume(true);
      if (key.token() == Token.DOES_NOT_EXIST) {
        operator = "DoesNotExist";
        key = consume(true);
      }
      if (key.token() != Token.IDENTIFIER) {
        throw new IllegalArgumentException("found '" + key.literal() + "', expected: identifier");
      }
      String keyError = LabelSyntax.keyError(key.literal());
      if (keyError != null) {
        // The key is checked before any path is set, so upstream's field path prints as <nil>.
        throw new IllegalArgumentException("<nil>: Invalid value: " + LabelSyntax.quote(key.literal()) + ": " + keyError);
      }
      Token after = lookahead(true).token();
      if (operator == null && (after == Token.END || after == Token.COMMA)) {
        operator = "Exists";
      }
      if (operator != null) {
        return new LabelSelectorRequirement(key.literal(), operator, List.of());
      }

      Scanned op = consume(false);
      List<String> values;
      String kind;
      switch (op.token()) {
        case IN, NOT_IN -> {
          kind = op.token() == Token.IN ? "In" : "NotIn";
          values = values();
        }
        case EQUALS, DOUBLE_EQUALS -> {
          kind = "In";
          values = exactValue();
        }
        case NOT_EQUALS -> {
          kind = "NotIn";
          values = exactValue();
        }
        case GREATER_THAN, LESS_THAN -> {
          kind = op.token() == Token.GREATER_THAN ? "Gt" : "Lt";
          values = exactValue();
        }
        default -> throw new IllegalArgumentException(
            "found '" + op.literal() + "', expected: in, notin, =, ==, !=, gt, lt");
      }
      checkValues(key.literal(), kind, values);
      return new LabelSelectorRequirement(key.literal(), kind, values);
    }

    /** NewRequirement's checks of the values; all errors are reported, like a field.ErrorList aggregate. */
    private static void checkValues(String key, String operator, List<String> values) {
      List<String> errors = new ArrayList<>();
      if (operator.equals("Gt") || operator.equals("Lt")) {
        for (int i = 0; i < values.size(); i++) {
          try {
            Long.parseLong(values.get(i));
          } catch (NumberFormatException e) {
            errors.add("values[" + i + "]: Invalid value: " + LabelSyntax.quote(values.get(i))
                + ": for 'Gt', 'Lt' operators, the value must be an integer");
          }
        }
      }
      for (int i = 0; i < values.size(); i++) {
        String valueError = LabelSyntax.valueError(values.get(i));
        if (valueError != null) {
          errors.add("values[" + i + "][" + key + "]: Invalid value: " + LabelSyntax.quote(values.get(i)) + ": " + valueError);
        }
      }
      if (errors.size() == 1) {
        throw new IllegalArgumentException(errors.getFirst());
      } else if (!errors.isEmpty()) {
        throw new IllegalArgumentException("[" + String.join(", ", new LinkedHashSet<>(errors)) + "]");
      }
    }

    /** {@code (v1,v2)}: a set, sorted; empty entries are the empty value, and {@code ()} is just that. */
    private List<String> values() {
      Scanned open = consume(true);
      if (open.token() != Token.OPEN_PAR) {
        throw new IllegalArgumentException("found '" + open.literal() + "' expected: '('");
      }
      Scanned first = lookahead(true);
      switch (first.token()) {
        case IDENTIFIER, COMMA -> {
          TreeSet<String> values = identifiers();
          if (consume(true).token() != Token.CLOSED_PAR) {
            // Upstream names the token after '(' here, not the one it found.
            throw new IllegalArgumentException("found '" + first.literal() + "', expected: ')'");
          }
          return List.copyOf(values);
        }
        case CLOSED_PAR -> {
          consume(true);
          return List.of("");
        }
        default -> throw new IllegalArgumentException(
            "found '" + first.literal() + "', expected: ',', ')' or identifier");
      }
    }

    private TreeSet<String> identifiers() {
      TreeSet<String> values = new TreeSet<>();
      while (true) {
        Scanned item = consume(true);
        switch (item.token()) {
          case IDENTIFIER -> {
            values.add(item.literal());
            Scanned next = lookahead(true);
            if (next.token() == Token.CLOSED_PAR) {
              return values;
            } else if (next.token() != Token.COMMA) {
              throw new IllegalArgumentException("found '" + next.literal() + "', expected: ',' or ')'");
            }
          }
          case COMMA -> {
            // A comma with nothing before or after it stands for the empty value.
            if (values.isEmpty()) {
              values.add("");
            }
            Token next = lookahead(true).token();
            if (next == Token.CLOSED_PAR) {
              values.add("");
              return values;
            } else if (next == Token.COMMA) {
              values.add("");
            }
          }
          default -> throw new IllegalArgumentException("found '" + item.literal() + "', expected: ',', or identifier");
        }
      }
    }

    /** The value after {@code =}, {@code ==}, {@code !=}, {@code >} or {@code <}; nothing is the empty value. */
    private List<String> exactValue() {
      Token next = lookahead(true).token();
      if (next == Token.END || next == Token.COMMA) {
        return List.of("");
      }
      Scanned value = consume(true);
      if (value.token() == Token.IDENTIFIER) {
        return List.of(value.literal());
      }
      throw new IllegalArgumentException("found '" + value.literal() + "', expected: identifier");
    }

    /** The next token; where a value may stand ({@code asValue}), {@code in} and {@code notin} are identifiers. */
    private Scanned lookahead(boolean asValue) {
      return asValue ? asValue(items.get(position)) : items.get(position);
    }

    private Scanned consume(boolean asValue) {
      Scanned item = lookahead(asValue);
      position++;
      return item;
    }

    private static Scanned asValue(Scanned item) {
      return item.token() == Token.IN || item.token() == Token.NOT_IN ? new Scanned(Token.IDENTIFIER, item.literal()) : item;
    }
  }

  /** Upstream's Lexer: identifiers run to whitespace or a symbol; symbols are read longest first. */
  private static final class Lexer {
    private final String text;
    private int position;

    Lexer(String text) {
      this.text = text;
    }

    Scanned next() {
      char c = read();
      while (whitespace(c)) {
        c = read();
      }
      if (c == 0) {
        return new Scanned(Token.END, "");
      }
      position--;
      return special(c) ? symbol() : identifierOrKeyword();
    }

    private Scanned identifierOrKeyword() {
      StringBuilder buffer = new StringBuilder();
      while (true) {
        char c = read();
        if (c == 0) {
          break;
        }
        if (special(c) || whitespace(c)) {
          position--;
          break;
        }
        buffer.append(c);
      }
      String literal = buffer.toString();
      Token keyword = SYMBOLS.get(literal);
      return keyword != null ? new Scanned(keyword, literal) : new Scanned(Token.IDENTIFIER, literal);
    }

    private Scanned symbol() {
      StringBuilder buffer = new StringBuilder();
      Scanned last = null;
      while (true) {
        char c = read();
        if (c == 0) {
          break;
        }
        if (!special(c)) {
          position--;
          break;
        }
        buffer.append(c);
        Token token = SYMBOLS.get(buffer.toString());
        if (token != null) {
          last = new Scanned(token, buffer.toString());
        } else if (last != null) {
          position--;
          break;
        }
      }
      // Every single symbol is a token, so something was always scanned.
      return last;
    }

    /** The next character, or 0 at the end (as upstream, a NUL character ends the text too). */
    private char read() {
      return position < text.length() ? text.charAt(position++) : 0;
    }

    private static boolean whitespace(char c) {
      return c == ' ' || c == '\t' || c == '\r' || c == '\n';
    }

    private static boolean special(char c) {
      return c == '=' || c == '!' || c == '(' || c == ')' || c == ',' || c == '>' || c == '<';
    }
  }
}
