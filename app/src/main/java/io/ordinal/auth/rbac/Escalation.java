package io.ordinal.auth.rbac;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleRef;
import io.ordinal.request.RequestAttributes;
import io.ordinal.request.User;
import java.util.List;
import java.util.Optional;

/**
 * Privilege-escalation prevention (upstream's ConfirmNoEscalation and BindingAuthorized,
 * pkg/registry/rbac/validation/rule.go, pkg/registry/rbac/escalation_check.go): a user may write a
 * role only with rules it holds itself, in the role's namespace (or cluster-wide), unless it may
 * {@code escalate} roles; and may bind a role only if it holds the role's rules, unless it may
 * {@code bind} it. {@code system:masters} may do both. An aggregated ClusterRole can come to hold
 * anything, so writing one takes every permission (or {@code escalate}).
 */
public final class Escalation {
  private Escalation() {}

  /** Empty when the user may write the object; else the reason, as upstream words it. */
  public static Optional<String> check(Policy policy, User user, HasMetadata object) {
    if (user.inGroup(User.MASTERS)) {
      return Optional.empty();
    }
    String namespace = object.getMetadata().getNamespace() == null ? "" : object.getMetadata().getNamespace();
    List<PolicyRule> granted;
    RoleRef ref = RbacValidation.roleRef(object);
    if (ref == null) {
      String resource = object instanceof Role ? "roles" : "clusterroles";
      if (allowed(policy, user, "escalate", resource, namespace, object.getMetadata().getName())) {
        return Optional.empty();
      }
      granted = switch (object) {
        case ClusterRole role when role.getAggregationRule() != null -> Bootstrap.FULL_AUTHORITY;
        case ClusterRole role -> role.getRules() == null ? List.of() : role.getRules();
        case Role role -> role.getRules() == null ? List.of() : role.getRules();
        default -> List.of();
      };
    } else {
      String resource = "Role".equals(ref.getKind()) ? "roles" : "clusterroles";
      if (allowed(policy, user, "bind", resource, namespace, ref.getName())) {
        return Optional.empty();
      }
      try {
        granted = policy.roleRules(ref, namespace);
      } catch (IllegalArgumentException e) {
        return Optional.of(e.getMessage());
      }
    }
    Policy.RuleSet owned = policy.rulesFor(user, namespace);
    List<PolicyRule> missing = Rules.uncovered(owned.rules(), granted);
    if (missing.isEmpty()) {
      return Optional.empty();
    }
    StringBuilder message = new StringBuilder("user \"" + user.name() + "\" (groups=["
        + String.join(" ", user.groups().stream().map(g -> "\"" + g + "\"").toList())
        + "]) is attempting to grant RBAC permissions not currently held:");
    missing.forEach(rule -> message.append('\n').append(Rules.describe(rule)));
    if (!owned.errors().isEmpty()) {
      message.append("; resolution errors: ").append(String.join(", ", owned.errors()));
    }
    return Optional.of(message.toString());
  }

  private static boolean allowed(Policy policy, User user, String verb, String resource, String namespace, String name) {
    return policy.authorize(user, new RequestAttributes(true, verb, "", RbacValidation.GROUP, "v1", namespace, resource,
        "", name == null ? "" : name)).allowed();
  }
}
