package io.ordinal.auth.rbac;

import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.ordinal.request.RequestAttributes;
import java.util.ArrayList;
import java.util.List;

/**
 * Whether a rule allows a request (upstream's RuleAllows and its matchers in
 * pkg/apis/rbac/v1/evaluation_helpers.go), and whether a set of rules covers another (the
 * escalation check's Covers, pkg/registry/rbac/validation/policy_comparator.go).
 */
public final class Rules {
  public static final String ALL = "*";

  private Rules() {}

  public static boolean allows(PolicyRule rule, RequestAttributes request) {
    if (request.resourceRequest()) {
      return verbMatches(rule, request.verb()) && groupMatches(rule, request.apiGroup())
          && resourceMatches(rule, request.resourcePath(), request.subresource())
          && nameMatches(rule, request.name());
    }
    return verbMatches(rule, request.verb()) && nonResourceMatches(rule, request.path());
  }

  /** A request verb of {@code *} (kubectl auth can-i '*' ...) only matches a rule that says {@code *}. */
  static boolean verbMatches(PolicyRule rule, String verb) {
    return has(rule.getVerbs(), ALL) || has(rule.getVerbs(), verb);
  }

  static boolean groupMatches(PolicyRule rule, String group) {
    return has(rule.getApiGroups(), ALL) || has(rule.getApiGroups(), group);
  }

  /**
   * {@code *} matches every resource and subresource; otherwise the rule names {@code resource} or
   * {@code resource/subresource} exactly, or {@code *}{@code /subresource} for that subresource of
   * any resource. There is no {@code resource/*} form upstream: a rule for {@code pods} does not
   * cover {@code pods/exec}.
   */
  static boolean resourceMatches(PolicyRule rule, String combined, String subresource) {
    for (String resource : list(rule.getResources())) {
      if (resource.equals(ALL) || resource.equals(combined)) {
        return true;
      }
      if (!subresource.isEmpty() && resource.length() == subresource.length() + 2 && resource.startsWith("*/")
          && resource.endsWith(subresource)) {
        return true;
      }
    }
    return false;
  }

  /**
   * No resourceNames: any object. With resourceNames, a request without a name (create, list,
   * deletecollection) is never allowed.
   */
  static boolean nameMatches(PolicyRule rule, String name) {
    List<String> names = list(rule.getResourceNames());
    return names.isEmpty() || (!name.isEmpty() && names.contains(name));
  }

  /** {@code *}, the exact path, or a prefix ending in {@code *} ({@code /apis/*} is not {@code /apis}). */
  static boolean nonResourceMatches(PolicyRule rule, String path) {
    for (String url : list(rule.getNonResourceURLs())) {
      if (url.equals(ALL) || url.equals(path)
          || (url.endsWith(ALL) && path.startsWith(url.substring(0, url.length() - 1)))) {
        return true;
      }
    }
    return false;
  }

  /**
   * The rules of {@code requested} that {@code owned} does not cover, broken down to one verb, one
   * group, one resource (one name) or one URL each: empty when every one is covered.
   */
  public static List<PolicyRule> uncovered(List<PolicyRule> owned, List<PolicyRule> requested) {
    List<PolicyRule> missing = new ArrayList<>();
    for (PolicyRule rule : requested) {
      for (PolicyRule atom : breakdown(rule)) {
        if (owned.stream().noneMatch(owner -> covers(owner, atom))) {
          missing.add(atom);
        }
      }
    }
    return missing;
  }

  /** One rule per verb × group × resource × name, and per verb × URL (upstream's BreakdownRule). */
  static List<PolicyRule> breakdown(PolicyRule rule) {
    List<PolicyRule> atoms = new ArrayList<>();
    for (String group : list(rule.getApiGroups())) {
      for (String resource : list(rule.getResources())) {
        for (String verb : list(rule.getVerbs())) {
          if (list(rule.getResourceNames()).isEmpty()) {
            atoms.add(rule(List.of(verb), List.of(group), List.of(resource), List.of(), List.of()));
          }
          for (String name : list(rule.getResourceNames())) {
            atoms.add(rule(List.of(verb), List.of(group), List.of(resource), List.of(name), List.of()));
          }
        }
      }
    }
    for (String url : list(rule.getNonResourceURLs())) {
      for (String verb : list(rule.getVerbs())) {
        atoms.add(rule(List.of(verb), List.of(), List.of(), List.of(), List.of(url)));
      }
    }
    return atoms;
  }

  /** Whether {@code owner} grants everything the single-entry rule {@code atom} does (upstream's ruleCovers). */
  static boolean covers(PolicyRule owner, PolicyRule atom) {
    boolean verbs = has(owner.getVerbs(), ALL) || list(owner.getVerbs()).containsAll(list(atom.getVerbs()));
    if (!list(atom.getNonResourceURLs()).isEmpty()) {
      return verbs && list(atom.getNonResourceURLs()).stream().allMatch(url -> list(owner.getNonResourceURLs()).stream()
          .anyMatch(o -> o.equals(ALL) || o.equals(url) || (o.endsWith(ALL) && url.startsWith(o.substring(0, o.length() - 1)))));
    }
    boolean groups = has(owner.getApiGroups(), ALL) || list(owner.getApiGroups()).containsAll(list(atom.getApiGroups()));
    boolean resources = list(atom.getResources()).stream().allMatch(r -> resourceCovered(list(owner.getResources()), r));
    boolean names = list(owner.getResourceNames()).isEmpty()
        || (!list(atom.getResourceNames()).isEmpty() && list(owner.getResourceNames()).containsAll(list(atom.getResourceNames())));
    return verbs && groups && resources && names;
  }

  /** {@code *}, the exact resource, or for {@code r/sub} a {@code *}{@code /sub} (upstream's resourceCoversAll). */
  private static boolean resourceCovered(List<String> owned, String resource) {
    if (owned.contains(ALL) || owned.contains(resource)) {
      return true;
    }
    int slash = resource.indexOf('/');
    return slash > 0 && owned.contains("*/" + resource.substring(slash + 1));
  }

  public static PolicyRule rule(List<String> verbs, List<String> groups, List<String> resources, List<String> names,
      List<String> urls) {
    PolicyRule rule = new PolicyRule();
    rule.setVerbs(new ArrayList<>(verbs));
    rule.setApiGroups(new ArrayList<>(groups));
    rule.setResources(new ArrayList<>(resources));
    rule.setResourceNames(new ArrayList<>(names));
    rule.setNonResourceURLs(new ArrayList<>(urls));
    return rule;
  }

  /** A rule as upstream prints it in the escalation message: {@code {APIGroups:["apps"], Resources:["statefulsets"], Verbs:["get"]}}. */
  public static String describe(PolicyRule rule) {
    List<String> parts = new ArrayList<>();
    if (!list(rule.getApiGroups()).isEmpty()) {
      parts.add("APIGroups:" + quoted(rule.getApiGroups()));
    }
    if (!list(rule.getResources()).isEmpty()) {
      parts.add("Resources:" + quoted(rule.getResources()));
    }
    if (!list(rule.getResourceNames()).isEmpty()) {
      parts.add("ResourceNames:" + quoted(rule.getResourceNames()));
    }
    if (!list(rule.getNonResourceURLs()).isEmpty()) {
      parts.add("NonResourceURLs:" + quoted(rule.getNonResourceURLs()));
    }
    parts.add("Verbs:" + quoted(rule.getVerbs()));
    return "{" + String.join(", ", parts) + "}";
  }

  private static String quoted(List<String> values) {
    return "[" + String.join(" ", values.stream().map(v -> "\"" + v + "\"").toList()) + "]";
  }

  static boolean has(List<String> values, String value) {
    return values != null && values.contains(value);
  }

  static List<String> list(List<String> values) {
    return values == null ? List.of() : values;
  }
}
