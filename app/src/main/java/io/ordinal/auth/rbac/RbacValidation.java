package io.ordinal.auth.rbac;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.rbac.AggregationRule;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.rbac.RoleRef;
import io.fabric8.kubernetes.api.model.rbac.Subject;
import io.ordinal.apimachinery.FieldError;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Defaulting and validation of RBAC objects as upstream's pkg/apis/rbac/v1/defaults.go and
 * pkg/apis/rbac/validation/validation.go do them, with their field paths and messages.
 */
public final class RbacValidation {
  public static final String GROUP = "rbac.authorization.k8s.io";
  private static final Pattern DNS_SUBDOMAIN =
      Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

  private RbacValidation() {}

  /** Upstream's defaults: a binding's roleRef and User/Group subjects are in the RBAC group. */
  public static void defaults(HasMetadata object) {
    RoleRef ref = roleRef(object);
    if (ref != null && (ref.getApiGroup() == null || ref.getApiGroup().isEmpty())) {
      ref.setApiGroup(GROUP);
    }
    for (Subject subject : subjects(object)) {
      if (subject != null && (subject.getApiGroup() == null || subject.getApiGroup().isEmpty())
          && ("User".equals(subject.getKind()) || "Group".equals(subject.getKind()))) {
        subject.setApiGroup(GROUP);
      }
    }
  }

  public static List<FieldError> validate(HasMetadata object) {
    List<FieldError> errors = new ArrayList<>();
    String name = object.getMetadata() == null ? null : object.getMetadata().getName();
    if (name == null || name.isEmpty()) {
      errors.add(new FieldError("FieldValueRequired", "metadata.name", "Required value: name or generateName is required"));
    } else {
      nameErrors(name).forEach(m -> errors.add(invalid("metadata.name", quote(name), m)));
    }
    switch (object) {
      case Role role -> rules(role.getRules(), true, errors);
      case ClusterRole role -> {
        AggregationRule aggregation = role.getAggregationRule();
        if (aggregation != null && (aggregation.getClusterRoleSelectors() == null
            || aggregation.getClusterRoleSelectors().isEmpty())) {
          errors.add(new FieldError("FieldValueRequired", "aggregationRule.clusterRoleSelectors",
              "Required value: at least one clusterRoleSelector required if aggregationRule is non-nil"));
        }
        if (aggregation != null && aggregation.getClusterRoleSelectors() != null) {
          for (int i = 0; i < aggregation.getClusterRoleSelectors().size(); i++) {
            LabelSelector selector = aggregation.getClusterRoleSelectors().get(i);
            if (selector == null) {
              errors.add(new FieldError("FieldValueRequired", "aggregationRule.clusterRoleSelectors[" + i + "]", "Required value"));
            }
          }
        }
        rules(role.getRules(), false, errors);
      }
      case RoleBinding binding -> binding(binding.getRoleRef(), binding.getSubjects(), true, errors);
      case ClusterRoleBinding binding -> binding(binding.getRoleRef(), binding.getSubjects(), false, errors);
      default -> throw new IllegalArgumentException("not an RBAC object: " + object.getClass());
    }
    return errors;
  }

  /** An update may not change a binding's roleRef (delete and create the binding instead). */
  public static List<FieldError> validateUpdate(HasMetadata object, HasMetadata old) {
    List<FieldError> errors = validate(object);
    RoleRef ref = roleRef(object);
    if (ref != null && !Objects.equals(ref, roleRef(old))) {
      errors.add(invalid("roleRef", "rbac.RoleRef{APIGroup:" + quote(ref.getApiGroup()) + ", Kind:" + quote(ref.getKind())
          + ", Name:" + quote(ref.getName()) + "}", "cannot change roleRef"));
    }
    return errors;
  }

  private static void rules(List<PolicyRule> rules, boolean namespaced, List<FieldError> errors) {
    if (rules == null) {
      return;
    }
    for (int i = 0; i < rules.size(); i++) {
      String path = "rules[" + i + "]";
      PolicyRule rule = rules.get(i);
      if (rule == null) {
        errors.add(new FieldError("FieldValueRequired", path, "Required value"));
        continue;
      }
      if (Rules.list(rule.getVerbs()).isEmpty()) {
        errors.add(new FieldError("FieldValueRequired", path + ".verbs", "Required value: verbs must contain at least one value"));
      }
      List<String> urls = Rules.list(rule.getNonResourceURLs());
      if (!urls.isEmpty()) {
        if (namespaced) {
          errors.add(invalid(path + ".nonResourceURLs", goStrings(urls), "namespaced rules cannot apply to non-resource URLs"));
        }
        if (!Rules.list(rule.getApiGroups()).isEmpty() || !Rules.list(rule.getResources()).isEmpty()
            || !Rules.list(rule.getResourceNames()).isEmpty()) {
          errors.add(invalid(path + ".nonResourceURLs", goStrings(urls),
              "rules cannot apply to both regular resources and non-resource URLs"));
        }
        continue;
      }
      if (Rules.list(rule.getApiGroups()).isEmpty()) {
        errors.add(new FieldError("FieldValueRequired", path + ".apiGroups",
            "Required value: resource rules must supply at least one api group"));
      }
      if (Rules.list(rule.getResources()).isEmpty()) {
        errors.add(new FieldError("FieldValueRequired", path + ".resources",
            "Required value: resource rules must supply at least one resource"));
      }
    }
  }

  private static void binding(RoleRef ref, List<Subject> subjects, boolean namespaced, List<FieldError> errors) {
    if (ref == null) {
      ref = new RoleRef();
    }
    if (!GROUP.equals(ref.getApiGroup())) {
      errors.add(notSupported("roleRef.apiGroup", ref.getApiGroup(), GROUP));
    }
    List<String> kinds = namespaced ? List.of("Role", "ClusterRole") : List.of("ClusterRole");
    if (ref.getKind() == null || !kinds.contains(ref.getKind())) {
      errors.add(notSupported("roleRef.kind", ref.getKind(), kinds.toArray(String[]::new)));
    }
    if (ref.getName() == null || ref.getName().isEmpty()) {
      errors.add(new FieldError("FieldValueRequired", "roleRef.name", "Required value"));
    } else {
      String name = ref.getName();
      nameErrors(name).forEach(m -> errors.add(invalid("roleRef.name", quote(name), m)));
    }
    if (subjects == null) {
      return;
    }
    for (int i = 0; i < subjects.size(); i++) {
      String path = "subjects[" + i + "]";
      Subject subject = subjects.get(i);
      if (subject == null) {
        errors.add(new FieldError("FieldValueRequired", path, "Required value"));
        continue;
      }
      String name = subject.getName();
      if (name == null || name.isEmpty()) {
        errors.add(new FieldError("FieldValueRequired", path + ".name", "Required value"));
      }
      String group = subject.getApiGroup() == null ? "" : subject.getApiGroup();
      switch (subject.getKind() == null ? "" : subject.getKind()) {
        case "ServiceAccount" -> {
          if (name != null && !name.isEmpty() && (name.length() > 253 || !DNS_SUBDOMAIN.matcher(name).matches())) {
            errors.add(invalid(path + ".name", quote(name), "a lowercase RFC 1123 subdomain must consist of lower case"
                + " alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character"));
          }
          if (!group.isEmpty()) {
            errors.add(notSupported(path + ".apiGroup", group, ""));
          }
          if (!namespaced && (subject.getNamespace() == null || subject.getNamespace().isEmpty())) {
            errors.add(new FieldError("FieldValueRequired", path + ".namespace", "Required value"));
          }
        }
        case "User", "Group" -> {
          if (!GROUP.equals(group)) {
            errors.add(notSupported(path + ".apiGroup", group, GROUP));
          }
        }
        default -> errors.add(notSupported(path + ".kind", subject.getKind(), "ServiceAccount", "User", "Group"));
      }
    }
  }

  /** Upstream's ValidateRBACName: a path segment. */
  private static List<String> nameErrors(String name) {
    List<String> errors = new ArrayList<>();
    if (name.equals(".") || name.equals("..")) {
      errors.add("may not be '" + name + "'");
    }
    for (String bad : List.of("/", "%")) {
      if (name.contains(bad)) {
        errors.add("may not contain '" + bad + "'");
      }
    }
    return errors;
  }

  static RoleRef roleRef(HasMetadata object) {
    return switch (object) {
      case RoleBinding b -> b.getRoleRef();
      case ClusterRoleBinding b -> b.getRoleRef();
      default -> null;
    };
  }

  static List<Subject> subjects(HasMetadata object) {
    List<Subject> subjects = switch (object) {
      case RoleBinding b -> b.getSubjects();
      case ClusterRoleBinding b -> b.getSubjects();
      default -> null;
    };
    return subjects == null ? List.of() : subjects;
  }

  private static FieldError invalid(String field, String rendered, String detail) {
    return new FieldError("FieldValueInvalid", field, "Invalid value: " + rendered + ": " + detail);
  }

  private static FieldError notSupported(String field, String value, String... supported) {
    return new FieldError("FieldValueNotSupported", field, "Unsupported value: " + quote(value == null ? "" : value)
        + ": supported values: \"" + String.join("\", \"", supported) + "\"");
  }

  private static String goStrings(List<String> values) {
    return "[]string{" + String.join(", ", values.stream().map(RbacValidation::quote).toList()) + "}";
  }

  private static String quote(String value) {
    return "\"" + (value == null ? "" : value.replace("\\", "\\\\").replace("\"", "\\\"")) + "\"";
  }
}
