package io.ordinal.kube;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirement;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class LabelSelectorsTest {
  // The cases of upstream's labels/selector_test.go (TestSelectorParse, TestSetSelectorParser,
  // TestSelectorMatches, TestRequirementConstructor).

  @ParameterizedTest
  @ValueSource(strings = {
      "x=a,y=b,z=c", "", "x!=a,y=b", "x=", "x= ", "x=,z= ", "x= ,z= ", "!x", "x>1", "x>1,z<5",
      "\rx", "this-is-a-dns.domain.com/key-with-dash", "this-is-another-dns.domain.com/key-with-dash in (so,what)",
      "0.1.2.domain/99 notin (10.10.100.1, tick.tack.clock)", "foo  in\t (abc)", "x notin\n (abc)",
      "x  notin\t\t\t(abc,def)", "x in (abc,def)", "x in (abc,)", "x in ()", "x notin (abc,,def),bar,z in (),w",
      "x,y in (a)", "x=a", "x<7", "x=a,y!=b", "x=a,y!=b,z in (h,i,j)", "x notin ( )", "x notin (, a)", "a ",
      "a in (x,y,notin, z,in)", "1foo in (bar)", "1234 in (bar)", "a,b", "x==a", "notin=in"})
  void parsesUpstreamsGoodSelectors(String text) {
    LabelSelectors.parse(text);
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "x=a||y=b", "x==a==b", "!x=a", "x<a", "x,,y", ",x,y", "x nott in (y)", "a in (xyz),", "a in (xyz)b notin ()",
      "a in (xyz abc)", "a notin(", "a (", "(", "foo>bar", "barz<blah", "a=b=c", "x in (a", "x in a", "=a", "!",
      "x!", "a b", "a@b", "a=b@c", "/a", "a/", "a/b/c", "Example.com/a", "-a", "a in (b c)"})
  void rejectsUpstreamsBadSelectors(String text) {
    assertThrows(IllegalArgumentException.class, () -> LabelSelectors.parse(text));
  }

  @Test
  void aKeyIsAtMost63CharactersAfterItsPrefix() {
    assertThrows(IllegalArgumentException.class, () -> LabelSelectors.parse("a".repeat(254)));
    assertThrows(IllegalArgumentException.class, () -> LabelSelectors.parse("a".repeat(64)));
    LabelSelectors.parse("example.com/" + "a".repeat(63));
    assertThrows(IllegalArgumentException.class, () -> LabelSelectors.parse("x=" + "a".repeat(64)));
  }

  static LabelSelectorRequirement requirement(String key, String operator, String... values) {
    return new LabelSelectorRequirement(key, operator, List.of(values));
  }

  @Test
  void requirementsAreMatchExpressionsSortedByKey() {
    assertEquals(List.of(requirement("x", "In", "a"), requirement("y", "NotIn", "b"), requirement("z", "In", "h", "i", "j")),
        LabelSelectors.parse("z in (j,i,h),y!=b,x=a").getMatchExpressions());
    assertEquals(List.of(requirement("bar", "Exists"), requirement("w", "Exists"), requirement("x", "NotIn", "", "abc", "def"),
        requirement("z", "In", "")), LabelSelectors.parse("x notin (abc,,def),bar,z in (),w").getMatchExpressions());
    assertEquals(List.of(requirement("a", "In", "in", "notin", "x", "y", "z")),
        LabelSelectors.parse("a in (x,y,notin, z,in)").getMatchExpressions());
    assertEquals(List.of(requirement("x", "NotIn", "", "a")), LabelSelectors.parse("x notin (, a)").getMatchExpressions());
    assertEquals(List.of(requirement("x", "Gt", "1"), requirement("z", "Lt", "5")),
        LabelSelectors.parse("x>1,z<5").getMatchExpressions());
    assertEquals(List.of(requirement("x", "DoesNotExist"), requirement("y", "In", "")),
        LabelSelectors.parse("y=,!x").getMatchExpressions());
    assertEquals(List.of(), LabelSelectors.parse("").getMatchExpressions());
  }

  @Test
  void theRequiredLabelsAreTheEqualitiesAndSingleValuedIns() {
    assertEquals(java.util.Map.of("app", "web", "tier", ""),
        LabelSelectors.requiredLabels(LabelSelectors.parse("app=web,tier in (),zone in (a,b),x!=y,present,!gone,n>1")));
    assertEquals(java.util.Map.of(), LabelSelectors.requiredLabels(LabelSelectors.parse("app notin (web)")));
    var selector = new io.fabric8.kubernetes.api.model.LabelSelector(null, java.util.Map.of("app", "db"));
    assertEquals(java.util.Map.of("app", "db"), LabelSelectors.requiredLabels(selector));
  }

  @Test
  void errorsReadAsUpstreams() {
    assertEquals("found '=', expected: ',' or 'end of string'", error("a=b=c"));
    assertEquals("found ',', expected: identifier after ','", error("x,,y"));
    assertEquals("found ',', expected: !, identifier, or 'end of string'", error(",x,y"));
    assertEquals("found '(', expected: !, identifier, or 'end of string'", error("("));
    assertEquals("unable to parse requirement: found 'nott', expected: in, notin, =, ==, !=, gt, lt", error("x nott in (y)"));
    assertEquals("unable to parse requirement: found 'abc', expected: ',' or ')'", error("a in (xyz abc)"));
    assertEquals("unable to parse requirement: found '', expected: ',', ')' or identifier", error("a notin("));
    assertEquals("unable to parse requirement: found 'b' expected: '('", error("a in b"));
    assertEquals("unable to parse requirement: found '', expected: identifier", error("!"));
    assertEquals("unable to parse requirement: values[0]: Invalid value: \"a\": for 'Gt', 'Lt' operators, the value must be an integer",
        error("x<a"));
    assertEquals("unable to parse requirement: <nil>: Invalid value: \"a@b\": name part must consist of alphanumeric"
        + " characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or"
        + " 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
        error("a@b"));
    assertEquals("unable to parse requirement: values[0][a]: Invalid value: \"b@c\": a valid label must be an empty string"
        + " or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric"
        + " character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is"
        + " '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')", error("a=b@c"));
    assertEquals("unable to parse requirement: <nil>: Invalid value: \"/a\": prefix part must be non-empty", error("/a"));
    assertEquals("unable to parse requirement: <nil>: Invalid value: \"Example.com/a\": prefix part a lowercase RFC 1123"
        + " subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an"
        + " alphanumeric character (e.g. 'example.com', regex used for validation is"
        + " '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')", error("Example.com/a"));
    assertEquals("unable to parse requirement: <nil>: Invalid value: \"" + "a".repeat(64) + "\": name part must be no more"
        + " than 63 characters", error("a".repeat(64)));
    // Two bad values: both reported, in value order.
    assertEquals("unable to parse requirement: [values[0][a]: Invalid value: \"-x\": " + valueRule()
        + ", values[1][a]: Invalid value: \"y-\": " + valueRule() + "]", error("a in (y-,-x)"));
  }

  static String valueRule() {
    return "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start"
        + " and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for"
        + " validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
  }

  static String error(String text) {
    return assertThrows(IllegalArgumentException.class, () -> LabelSelectors.parse(text)).getMessage();
  }

  static boolean matches(String selector, Map<String, String> labels) {
    return LabelSelectors.matches(LabelSelectors.parse(selector), labels);
  }

  @Test
  void matchesAsUpstream() {
    assertTrue(matches("", Map.of("x", "y")));
    assertTrue(matches("x=y", Map.of("x", "y")));
    assertTrue(matches("x=y,z=w", Map.of("x", "y", "z", "w")));
    assertTrue(matches("x!=y,z!=w", Map.of("x", "z", "z", "a")));
    assertTrue(matches("notin=in", Map.of("notin", "in")));
    assertTrue(matches("x", Map.of("x", "z")));
    assertTrue(matches("!x", Map.of("y", "z")));
    assertTrue(matches("x>1", Map.of("x", "2")));
    assertTrue(matches("x<1", Map.of("x", "0")));
    assertFalse(matches("x=z", Map.of()));
    assertFalse(matches("x=y", Map.of("x", "z")));
    assertFalse(matches("x=y,z=w", Map.of("x", "w", "z", "w")));
    assertFalse(matches("x!=y,z!=w", Map.of("x", "z", "z", "w")));
    assertFalse(matches("x", Map.of("y", "z")));
    assertFalse(matches("!x", Map.of("x", "z")));
    assertFalse(matches("x>1", Map.of("x", "0")));
    assertFalse(matches("x<1", Map.of("x", "2")));
    assertFalse(matches("x>1", Map.of("x", "v2")));
    assertFalse(matches("x>1", Map.of()));
    var labels = Map.of("foo", "bar", "baz", "blah");
    assertTrue(matches("foo=bar,baz=blah", labels));
    assertFalse(matches("foo=bar,foobar=bar,baz=blah", labels));
    // != and notin hold when the label is absent; in and = need it.
    assertTrue(matches("x!=a", Map.of()));
    assertTrue(matches("x notin (a)", Map.of()));
    assertFalse(matches("x in (a)", Map.of()));
    assertTrue(matches("x in ()", Map.of("x", "")));
    assertFalse(matches("x in ()", Map.of()));
    assertTrue(matches("x=", Map.of("x", "")));
    // Every requirement must hold, even two on one key.
    assertFalse(matches("a=b,a=c", Map.of("a", "b")));
  }

  @Test
  void matchesMetav1Selectors() {
    LabelSelector selector = new LabelSelectorBuilder().withMatchLabels(Map.of("app", "web"))
        .addNewMatchExpression().withKey("tier").withOperator("NotIn").withValues("db").endMatchExpression()
        .addNewMatchExpression().withKey("legacy").withOperator("DoesNotExist").endMatchExpression()
        .build();
    assertTrue(LabelSelectors.matches(selector, Map.of("app", "web")));
    assertTrue(LabelSelectors.matches(selector, Map.of("app", "web", "tier", "cache")));
    assertFalse(LabelSelectors.matches(selector, Map.of("app", "web", "tier", "db")));
    assertFalse(LabelSelectors.matches(selector, Map.of("app", "web", "legacy", "")));
    assertFalse(LabelSelectors.matches(selector, Map.of("tier", "cache")));
    assertTrue(LabelSelectors.matches(new LabelSelector(), Map.of()));
  }

  @Test
  void formatsAsUpstreamsSelectorString() {
    assertEquals("app=sc", LabelSelectors.format(new LabelSelectorBuilder().withMatchLabels(Map.of("app", "sc")).build()));
    LabelSelector selector = new LabelSelectorBuilder().withMatchLabels(Map.of("tier", "db", "app", "web"))
        .addNewMatchExpression().withKey("zone").withOperator("In").withValues("b", "a").endMatchExpression()
        .addNewMatchExpression().withKey("env").withOperator("Exists").endMatchExpression()
        .addNewMatchExpression().withKey("debug").withOperator("DoesNotExist").endMatchExpression()
        .addNewMatchExpression().withKey("track").withOperator("NotIn").withValues("canary").endMatchExpression()
        .build();
    assertEquals("app=web,!debug,env,tier=db,track notin (canary),zone in (a,b)", LabelSelectors.format(selector));
    assertEquals("", LabelSelectors.format(new LabelSelector()));
    // What parse gives back formats as an equivalent selector.
    assertEquals("x in (a),y notin (b),z>1", LabelSelectors.format(LabelSelectors.parse("z>1,y!=b,x=a")));
  }
}
