package io.ordinal.auth.rbac;

import static io.ordinal.auth.rbac.Rules.rule;

import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.rbac.AggregationRule;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Subject;
import io.ordinal.request.User;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The default roles and bindings (upstream's bootstrappolicy/policy.go), cut down to what Ordinal
 * serves. admin, edit and view are aggregated from the {@code system:aggregate-to-*} roles, so a
 * ClusterRole labelled {@code rbac.authorization.k8s.io/aggregate-to-view: "true"} extends view (and
 * with it edit and admin). Ordinal's rollout actions are verbs on {@code statefulsets/rollout}.
 */
public final class Bootstrap {
  public static final String AUTOUPDATE = "rbac.authorization.kubernetes.io/autoupdate";
  public static final String BOOTSTRAPPING = "kubernetes.io/bootstrapping";
  public static final String AGGREGATE_TO = "rbac.authorization.k8s.io/aggregate-to-";

  static final List<String> READ = List.of("get", "list", "watch");
  static final List<String> WRITE = List.of("create", "delete", "deletecollection", "patch", "update");
  static final List<String> READ_WRITE = List.of("create", "delete", "deletecollection", "get", "list", "patch",
      "update", "watch");
  /** Ordinal's rollout actions that change a set (see RequestAttributes). */
  public static final List<String> ROLLOUT_ACTIONS = List.of("complete", "pause", "restart", "resume", "undo");

  /** cluster-admin's rules: every resource and every path, every verb. */
  public static final List<PolicyRule> FULL_AUTHORITY = List.of(
      rule(List.of("*"), List.of("*"), List.of("*"), List.of(), List.of()),
      rule(List.of("*"), List.of(), List.of(), List.of(), List.of("*")));

  private Bootstrap() {}

  public static List<ClusterRole> clusterRoles() {
    List<ClusterRole> roles = new ArrayList<>();
    roles.add(role("cluster-admin", Map.of(), null, FULL_AUTHORITY.toArray(PolicyRule[]::new)));
    roles.add(role("system:discovery", Map.of(), null, rule(List.of("get"), List.of(), List.of(), List.of(),
        List.of("/api", "/api/*", "/apis", "/apis/*", "/healthz", "/livez", "/openapi", "/openapi/*", "/readyz",
            "/version", "/version/"))));
    // Ordinal's /health is its own probe, as public as upstream's /healthz.
    roles.add(role("system:public-info-viewer", Map.of(), null, rule(List.of("get"), List.of(), List.of(), List.of(),
        List.of("/health", "/healthz", "/livez", "/readyz", "/version", "/version/"))));
    // Upstream's role for scrapers: the probes and /metrics, bound to the group system:monitoring.
    roles.add(role("system:monitoring", Map.of(), null, rule(List.of("get"), List.of(), List.of(), List.of(),
        List.of("/healthz", "/healthz/*", "/livez", "/livez/*", "/metrics", "/readyz", "/readyz/*"))));
    roles.add(role("system:basic-user", Map.of(), null,
        rule(List.of("create"), List.of("authorization.k8s.io"),
            List.of("selfsubjectaccessreviews", "selfsubjectrulesreviews"), List.of(), List.of()),
        rule(List.of("create"), List.of("authentication.k8s.io"), List.of("selfsubjectreviews"), List.of(), List.of())));

    roles.add(role("admin", Map.of(), aggregating("admin")));
    roles.add(role("edit", Map.of(AGGREGATE_TO + "admin", "true"), aggregating("edit")));
    roles.add(role("view", Map.of(AGGREGATE_TO + "edit", "true"), aggregating("view")));
    roles.add(role("system:aggregate-to-admin", Map.of(AGGREGATE_TO + "admin", "true"), null,
        rule(READ_WRITE, List.of("rbac.authorization.k8s.io"), List.of("rolebindings", "roles"), List.of(), List.of())));
    roles.add(role("system:aggregate-to-edit", Map.of(AGGREGATE_TO + "edit", "true"), null,
        // Secrets are read by edit, not view, as upstream: they are what escalates.
        rule(READ, List.of(""), List.of("pods/exec", "secrets"), List.of(), List.of()),
        rule(WRITE, List.of(""), List.of("pods", "pods/exec"), List.of(), List.of()),
        rule(WRITE, List.of(""), List.of("serviceaccounts", "services", "persistentvolumeclaims", "configmaps", "secrets"),
            List.of(), List.of()),
        rule(WRITE, List.of("", "events.k8s.io"), List.of("events"), List.of(), List.of()),
        rule(WRITE, List.of("apps"), List.of("statefulsets", "statefulsets/scale"), List.of(), List.of()),
        rule(ROLLOUT_ACTIONS, List.of("apps"), List.of("statefulsets/rollout"), List.of(), List.of())));
    roles.add(role("system:aggregate-to-view", Map.of(AGGREGATE_TO + "view", "true"), null,
        rule(READ, List.of(""), List.of("configmaps", "endpoints", "persistentvolumeclaims", "pods", "pods/log",
            "serviceaccounts", "services"), List.of(), List.of()),
        rule(READ, List.of(""), List.of("namespaces"), List.of(), List.of()),
        rule(READ, List.of("discovery.k8s.io"), List.of("endpointslices"), List.of(), List.of()),
        rule(READ, List.of("", "events.k8s.io"), List.of("events"), List.of(), List.of()),
        rule(READ, List.of("apps"), List.of("controllerrevisions", "statefulsets", "statefulsets/scale",
            "statefulsets/status"), List.of(), List.of()),
        rule(List.of("get"), List.of("apps"), List.of("statefulsets/rollout"), List.of(), List.of())));
    return roles;
  }

  public static List<ClusterRoleBinding> clusterRoleBindings() {
    return List.of(
        binding("cluster-admin", group(User.MASTERS)),
        binding("system:basic-user", group(User.AUTHENTICATED)),
        binding("system:discovery", group(User.AUTHENTICATED)),
        binding("system:monitoring", group("system:monitoring")),
        binding("system:public-info-viewer", group(User.AUTHENTICATED), group("system:unauthenticated")));
  }

  private static AggregationRule aggregating(String role) {
    AggregationRule rule = new AggregationRule();
    rule.setClusterRoleSelectors(List.of(new LabelSelectorBuilder().addToMatchLabels(AGGREGATE_TO + role, "true").build()));
    return rule;
  }

  private static ClusterRole role(String name, Map<String, String> labels, AggregationRule aggregation, PolicyRule... rules) {
    return new ClusterRoleBuilder().withApiVersion("rbac.authorization.k8s.io/v1").withKind("ClusterRole")
        .withNewMetadata().withName(name).addToLabels(labels).addToLabels(BOOTSTRAPPING, "rbac-defaults")
        .addToAnnotations(AUTOUPDATE, "true").endMetadata()
        .withAggregationRule(aggregation).withRules(rules).build();
  }

  private static ClusterRoleBinding binding(String role, Subject... subjects) {
    return new ClusterRoleBindingBuilder().withApiVersion("rbac.authorization.k8s.io/v1").withKind("ClusterRoleBinding")
        .withNewMetadata().withName(role).addToLabels(BOOTSTRAPPING, "rbac-defaults")
        .addToAnnotations(AUTOUPDATE, "true").endMetadata()
        .withNewRoleRef("rbac.authorization.k8s.io", "ClusterRole", role)
        .withSubjects(subjects).build();
  }

  private static Subject group(String name) {
    Subject subject = new Subject();
    subject.setApiGroup("rbac.authorization.k8s.io");
    subject.setKind("Group");
    subject.setName(name);
    return subject;
  }
}
