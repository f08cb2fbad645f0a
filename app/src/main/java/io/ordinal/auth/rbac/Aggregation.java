package io.ordinal.auth.rbac;

import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.ordinal.kube.LabelSelectors;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Aggregated ClusterRoles (upstream's clusterrole aggregation controller,
 * pkg/controller/clusterroleaggregation): a role with an {@code aggregationRule} has as rules the
 * union of the rules of every other ClusterRole its selectors match, in name order, without
 * duplicates. Worked out to a fixed point, since aggregated roles feed each other (view into edit
 * into admin).
 */
public final class Aggregation {
  private static final int MAX_ROUNDS = 16;

  private Aggregation() {}

  /** The aggregated roles whose rules must change, with their new rules. */
  public static Map<String, List<PolicyRule>> changes(List<ClusterRole> roles) {
    Map<String, List<PolicyRule>> rules = new LinkedHashMap<>();
    List<ClusterRole> sorted = roles.stream().sorted(Comparator.comparing(r -> r.getMetadata().getName())).toList();
    sorted.forEach(r -> rules.put(r.getMetadata().getName(), r.getRules() == null ? List.of() : r.getRules()));
    Map<String, List<PolicyRule>> changed = new LinkedHashMap<>();
    for (int round = 0; round < MAX_ROUNDS; round++) {
      boolean stable = true;
      for (ClusterRole owner : sorted) {
        if (owner.getAggregationRule() == null) {
          continue;
        }
        String name = owner.getMetadata().getName();
        List<PolicyRule> union = new ArrayList<>();
        for (ClusterRole member : sorted) {
          if (!member.getMetadata().getName().equals(name) && selected(owner, member)) {
            for (PolicyRule rule : rules.get(member.getMetadata().getName())) {
              if (union.stream().noneMatch(r -> same(r, rule))) {
                union.add(rule);
              }
            }
          }
        }
        if (!sameRules(union, rules.get(name))) {
          rules.put(name, union);
          changed.put(name, union);
          stable = false;
        }
      }
      if (stable) {
        break;
      }
    }
    return changed;
  }

  private static boolean selected(ClusterRole owner, ClusterRole member) {
    List<LabelSelector> selectors = owner.getAggregationRule().getClusterRoleSelectors();
    Map<String, String> labels = member.getMetadata().getLabels() == null ? Map.of() : member.getMetadata().getLabels();
    // An empty selector would select every role: upstream's controller skips it, and so does this.
    return selectors != null && selectors.stream().anyMatch(s -> !empty(s) && LabelSelectors.matches(s, labels));
  }

  private static boolean empty(LabelSelector selector) {
    return (selector.getMatchLabels() == null || selector.getMatchLabels().isEmpty())
        && (selector.getMatchExpressions() == null || selector.getMatchExpressions().isEmpty());
  }

  static boolean sameRules(List<PolicyRule> a, List<PolicyRule> b) {
    if (a.size() != b.size()) {
      return false;
    }
    for (int i = 0; i < a.size(); i++) {
      if (!same(a.get(i), b.get(i))) {
        return false;
      }
    }
    return true;
  }

  /** Equal rules, an absent list being an empty one. */
  static boolean same(PolicyRule a, PolicyRule b) {
    return key(a).equals(key(b));
  }

  private static List<List<String>> key(PolicyRule rule) {
    return List.of(Rules.list(rule.getVerbs()), Rules.list(rule.getApiGroups()), Rules.list(rule.getResources()),
        Rules.list(rule.getResourceNames()), Rules.list(rule.getNonResourceURLs()));
  }
}
