package io.ordinal.auth.rbac;

import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.rbac.RoleRef;
import io.fabric8.kubernetes.api.model.rbac.Subject;
import io.ordinal.request.RequestAttributes;
import io.ordinal.request.User;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The RBAC objects at one moment, immutable, and what they allow (upstream's RBACAuthorizer over
 * its rule resolver, plugin/pkg/auth/authorizer/rbac/rbac.go and pkg/registry/rbac/validation/rule.go):
 * every ClusterRoleBinding, then the RoleBindings of the request's namespace; the first rule that
 * allows the request decides. RBAC only ever allows: what no rule allows is not allowed.
 * Evaluated in memory, so an authorization never waits for the database.
 */
public final class Policy {
  private final Map<String, ClusterRole> clusterRoles = new HashMap<>();
  private final Map<String, Role> roles = new HashMap<>();
  private final List<ClusterRoleBinding> clusterRoleBindings;
  private final Map<String, List<RoleBinding>> roleBindings = new HashMap<>();

  public static final Policy EMPTY = new Policy(List.of(), List.of(), List.of(), List.of());

  public Policy(List<ClusterRole> clusterRoles, List<Role> roles, List<ClusterRoleBinding> clusterRoleBindings,
      List<RoleBinding> roleBindings) {
    clusterRoles.forEach(r -> this.clusterRoles.put(r.getMetadata().getName(), r));
    roles.forEach(r -> this.roles.put(r.getMetadata().getNamespace() + "/" + r.getMetadata().getName(), r));
    this.clusterRoleBindings = List.copyOf(clusterRoleBindings);
    roleBindings.forEach(b -> this.roleBindings.computeIfAbsent(b.getMetadata().getNamespace(), ns -> new ArrayList<>()).add(b));
  }

  /** @param reason upstream's "RBAC: allowed by ..." when allowed; the resolution errors, if any, otherwise */
  public record Decision(boolean allowed, String reason, String evaluationError) {}

  /** The rules that apply to a user in a namespace ("" for cluster scope), and the errors resolving them. */
  public record RuleSet(List<PolicyRule> rules, List<String> errors) {}

  public Decision authorize(User user, RequestAttributes request) {
    List<String> errors = new ArrayList<>();
    String[] allowedBy = new String[1];
    visit(user, request.namespace(), errors, (source, rule) -> {
      if (Rules.allows(rule, request)) {
        allowedBy[0] = "RBAC: allowed by " + source;
        return true;
      }
      return false;
    });
    if (allowedBy[0] != null) {
      return new Decision(true, allowedBy[0], "");
    }
    return new Decision(false, "", String.join(", ", errors));
  }

  public RuleSet rulesFor(User user, String namespace) {
    List<PolicyRule> rules = new ArrayList<>();
    List<String> errors = new ArrayList<>();
    visit(user, namespace, errors, (source, rule) -> {
      rules.add(rule);
      return false;
    });
    return new RuleSet(rules, errors);
  }

  /** The rules a role reference stands for, seen from a binding in {@code namespace} ("" for a ClusterRoleBinding). */
  public List<PolicyRule> roleRules(RoleRef ref, String namespace) {
    if ("ClusterRole".equals(ref.getKind())) {
      ClusterRole role = clusterRoles.get(ref.getName());
      if (role == null) {
        throw new IllegalArgumentException("clusterrole.rbac.authorization.k8s.io \"" + ref.getName() + "\" not found");
      }
      return role.getRules() == null ? List.of() : role.getRules();
    }
    if ("Role".equals(ref.getKind())) {
      Role role = roles.get(namespace + "/" + ref.getName());
      if (role == null) {
        throw new IllegalArgumentException("role.rbac.authorization.k8s.io \"" + ref.getName() + "\" not found");
      }
      return role.getRules() == null ? List.of() : role.getRules();
    }
    throw new IllegalArgumentException("unsupported role reference kind: \"" + ref.getKind() + "\"");
  }

  public List<ClusterRole> clusterRoles() {
    return List.copyOf(clusterRoles.values());
  }

  @FunctionalInterface
  private interface Visitor {
    /** @return true to stop */
    boolean visit(String source, PolicyRule rule);
  }

  private void visit(User user, String namespace, List<String> errors, Visitor visitor) {
    for (ClusterRoleBinding binding : clusterRoleBindings) {
      Subject subject = appliesTo(user, binding.getSubjects(), "");
      if (subject == null) {
        continue;
      }
      List<PolicyRule> rules;
      try {
        rules = roleRules(binding.getRoleRef(), "");
      } catch (IllegalArgumentException e) {
        errors.add(e.getMessage());
        continue;
      }
      String source = "ClusterRoleBinding \"" + binding.getMetadata().getName() + "\" of ClusterRole \""
          + binding.getRoleRef().getName() + "\" to " + describe(subject, "");
      for (PolicyRule rule : rules) {
        if (visitor.visit(source, rule)) {
          return;
        }
      }
    }
    if (namespace.isEmpty()) {
      return;
    }
    for (RoleBinding binding : roleBindings.getOrDefault(namespace, List.of())) {
      Subject subject = appliesTo(user, binding.getSubjects(), namespace);
      if (subject == null) {
        continue;
      }
      List<PolicyRule> rules;
      try {
        rules = roleRules(binding.getRoleRef(), namespace);
      } catch (IllegalArgumentException e) {
        errors.add(e.getMessage());
        continue;
      }
      String source = "RoleBinding \"" + binding.getMetadata().getName() + "/" + namespace + "\" of "
          + binding.getRoleRef().getKind() + " \"" + binding.getRoleRef().getName() + "\" to " + describe(subject, namespace);
      for (PolicyRule rule : rules) {
        if (visitor.visit(source, rule)) {
          return;
        }
      }
    }
  }

  /** The first subject that is the user (by name, group or service account name), or null. */
  static Subject appliesTo(User user, List<Subject> subjects, String bindingNamespace) {
    if (subjects == null) {
      return null;
    }
    for (Subject subject : subjects) {
      if (subject.getKind() == null || subject.getName() == null) {
        continue;
      }
      boolean applies = switch (subject.getKind()) {
        case "User" -> user.name().equals(subject.getName());
        case "Group" -> user.groups().contains(subject.getName());
        case "ServiceAccount" -> {
          String ns = subject.getNamespace() == null || subject.getNamespace().isEmpty() ? bindingNamespace
              : subject.getNamespace();
          yield !ns.isEmpty() && user.name().equals("system:serviceaccount:" + ns + ":" + subject.getName());
        }
        default -> false;
      };
      if (applies) {
        return subject;
      }
    }
    return null;
  }

  private static String describe(Subject subject, String bindingNamespace) {
    if ("ServiceAccount".equals(subject.getKind())) {
      String ns = subject.getNamespace() == null || subject.getNamespace().isEmpty() ? bindingNamespace : subject.getNamespace();
      return "ServiceAccount \"" + subject.getName() + "/" + ns + "\"";
    }
    return subject.getKind() + " \"" + subject.getName() + "\"";
  }
}
