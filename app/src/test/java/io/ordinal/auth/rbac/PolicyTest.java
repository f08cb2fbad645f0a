package io.ordinal.auth.rbac;

import static io.ordinal.auth.rbac.Rules.rule;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBuilder;
import io.fabric8.kubernetes.api.model.rbac.Subject;
import io.ordinal.request.RequestAttributes;
import io.ordinal.request.User;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The authorizer against upstream's cases (plugin/pkg/auth/authorizer/rbac/rbac_test.go and evaluation_helpers). */
class PolicyTest {
  static final User ALICE = User.authenticated("alice", "1", List.of("dev"));
  static final User BOB = User.authenticated("bob", "2", List.of());

  @Test
  void aClusterRoleBindingAppliesInEveryNamespaceAndAtClusterScope() {
    Policy policy = new Policy(List.of(clusterRole("reader", rule(List.of("get", "list"), List.of(""), List.of("pods"), List.of(), List.of()))),
        List.of(), List.of(clusterBinding("r", "reader", subject("Group", "dev", null))), List.of());
    assertTrue(policy.authorize(ALICE, resource("list", "", "ns1", "pods", "", "")).allowed());
    assertTrue(policy.authorize(ALICE, resource("get", "", "ns2", "pods", "", "p")).allowed());
    assertTrue(policy.authorize(ALICE, resource("list", "", "", "pods", "", "")).allowed());
    assertFalse(policy.authorize(BOB, resource("list", "", "ns1", "pods", "", "")).allowed());
    assertEquals("RBAC: allowed by ClusterRoleBinding \"r\" of ClusterRole \"reader\" to Group \"dev\"",
        policy.authorize(ALICE, resource("list", "", "ns1", "pods", "", "")).reason());
  }

  @Test
  void aRoleBindingAppliesInItsNamespaceOnlyEvenToAClusterRole() {
    Policy policy = new Policy(List.of(clusterRole("reader", rule(List.of("get"), List.of(""), List.of("pods"), List.of(), List.of()))),
        List.of(), List.of(), List.of(binding("ns1", "b", "ClusterRole", "reader", subject("User", "alice", null))));
    assertTrue(policy.authorize(ALICE, resource("get", "", "ns1", "pods", "", "p")).allowed());
    assertFalse(policy.authorize(ALICE, resource("get", "", "ns2", "pods", "", "p")).allowed());
    assertFalse(policy.authorize(ALICE, resource("get", "", "", "pods", "", "p")).allowed(), "cluster scope needs a ClusterRoleBinding");
    assertEquals("RBAC: allowed by RoleBinding \"b/ns1\" of ClusterRole \"reader\" to User \"alice\"",
        policy.authorize(ALICE, resource("get", "", "ns1", "pods", "", "p")).reason());
  }

  @Test
  void aRoleIsLookedUpInTheBindingsNamespaceAndAMissingOneIsAnEvaluationError() {
    Role role = new RoleBuilder().withNewMetadata().withName("r").withNamespace("ns1").endMetadata()
        .withRules(rule(List.of("get"), List.of("apps"), List.of("statefulsets"), List.of(), List.of())).build();
    Policy policy = new Policy(List.of(), List.of(role), List.of(), List.of(
        binding("ns1", "b", "Role", "r", subject("User", "alice", null)),
        binding("ns2", "b", "Role", "r", subject("User", "alice", null))));
    assertTrue(policy.authorize(ALICE, resource("get", "apps", "ns1", "statefulsets", "", "web")).allowed());
    Policy.Decision missing = policy.authorize(ALICE, resource("get", "apps", "ns2", "statefulsets", "", "web"));
    assertFalse(missing.allowed());
    assertEquals("role.rbac.authorization.k8s.io \"r\" not found", missing.evaluationError());
  }

  @Test
  void aResourceRuleNamesResourceOrResourceSlashSubresourceExactlyOrStarOrStarSlashSubresource() {
    PolicyRule pods = rule(List.of("get"), List.of(""), List.of("pods"), List.of(), List.of());
    assertTrue(Rules.allows(pods, resource("get", "", "ns", "pods", "", "p")));
    assertFalse(Rules.allows(pods, resource("get", "", "ns", "pods", "log", "p")), "pods does not cover pods/log");
    PolicyRule scale = rule(List.of("update"), List.of("*"), List.of("*/scale"), List.of(), List.of());
    assertTrue(Rules.allows(scale, resource("update", "apps", "ns", "statefulsets", "scale", "web")));
    assertFalse(Rules.allows(scale, resource("update", "apps", "ns", "statefulsets", "", "web")));
    assertFalse(Rules.allows(scale, resource("update", "apps", "ns", "statefulsets", "status", "web")));
    PolicyRule star = rule(List.of("*"), List.of("*"), List.of("*"), List.of(), List.of());
    assertTrue(Rules.allows(star, resource("create", "", "ns", "pods", "exec", "p")), "* covers subresources");
    PolicyRule slashStar = rule(List.of("get"), List.of(""), List.of("pods/*"), List.of(), List.of());
    assertFalse(Rules.allows(slashStar, resource("get", "", "ns", "pods", "log", "p")), "upstream has no resource/* form");
    PolicyRule exec = rule(List.of("create"), List.of(""), List.of("pods/exec"), List.of(), List.of());
    assertTrue(Rules.allows(exec, resource("create", "", "ns", "pods", "exec", "p")));
    assertFalse(Rules.allows(exec, resource("create", "", "ns", "pods", "", "")));
  }

  @Test
  void verbsAndGroupsMatchExactlyOrByStarAndARequestForStarNeedsAStarRule() {
    PolicyRule get = rule(List.of("get"), List.of("apps"), List.of("statefulsets"), List.of(), List.of());
    assertFalse(Rules.allows(get, resource("list", "apps", "ns", "statefulsets", "", "")));
    assertFalse(Rules.allows(get, resource("get", "", "ns", "statefulsets", "", "web")), "another group");
    assertFalse(Rules.allows(get, resource("*", "apps", "ns", "statefulsets", "", "web")));
    PolicyRule all = rule(List.of("*"), List.of("apps"), List.of("statefulsets"), List.of(), List.of());
    assertTrue(Rules.allows(all, resource("*", "apps", "ns", "statefulsets", "", "web")));
  }

  @Test
  void resourceNamesNeverAllowCreateListOrDeletecollectionWithoutAName() {
    PolicyRule named = rule(List.of("*"), List.of(""), List.of("pods"), List.of("foo"), List.of());
    assertTrue(Rules.allows(named, resource("get", "", "ns", "pods", "", "foo")));
    assertFalse(Rules.allows(named, resource("get", "", "ns", "pods", "", "bar")));
    assertFalse(Rules.allows(named, resource("create", "", "ns", "pods", "", "")));
    assertFalse(Rules.allows(named, resource("list", "", "ns", "pods", "", "")));
    assertFalse(Rules.allows(named, resource("deletecollection", "", "ns", "pods", "", "")));
    RequestAttributes one = RequestAttributes.of("GET", "/api/v1/namespaces/ns/pods", "1", "metadata.name=foo");
    assertEquals("watch", one.verb());
    assertTrue(Rules.allows(named, one), "a watch of the one named object");
  }

  @Test
  void nonResourceUrlsMatchExactlyOrByPrefixStarAndRoleBindingsNeverGrantThem() {
    PolicyRule apis = rule(List.of("get"), List.of(), List.of(), List.of(), List.of("/apis/*", "/version"));
    assertTrue(Rules.allows(apis, path("get", "/apis/apps/v1")));
    assertFalse(Rules.allows(apis, path("get", "/apis")), "/apis/* is not /apis");
    assertTrue(Rules.allows(apis, path("get", "/version")));
    assertFalse(Rules.allows(apis, path("get", "/version/")));
    assertFalse(Rules.allows(apis, path("post", "/version")));
    assertTrue(Rules.allows(rule(List.of("*"), List.of(), List.of(), List.of(), List.of("*")), path("delete", "/anything")));
    Policy policy = new Policy(List.of(clusterRole("paths", apis)), List.of(), List.of(),
        List.of(binding("ns", "b", "ClusterRole", "paths", subject("User", "alice", null))));
    assertFalse(policy.authorize(ALICE, path("get", "/version")).allowed());
  }

  @Test
  void serviceAccountSubjectsMatchTheirUserNameWithTheBindingsNamespaceAsDefault() {
    User account = User.authenticated("system:serviceaccount:ns1:robot", "", List.of("system:serviceaccounts"));
    Policy policy = new Policy(List.of(clusterRole("reader", rule(List.of("get"), List.of(""), List.of("pods"), List.of(), List.of()))),
        List.of(), List.of(clusterBinding("c", "reader", subject("ServiceAccount", "robot", null))),
        List.of(binding("ns1", "b", "ClusterRole", "reader", subject("ServiceAccount", "robot", null))));
    assertTrue(policy.authorize(account, resource("get", "", "ns1", "pods", "", "p")).allowed());
    assertFalse(policy.authorize(account, resource("get", "", "ns2", "pods", "", "p")).allowed(),
        "a ClusterRoleBinding's ServiceAccount without a namespace matches no one");
    assertEquals("RBAC: allowed by RoleBinding \"b/ns1\" of ClusterRole \"reader\" to ServiceAccount \"robot/ns1\"",
        policy.authorize(account, resource("get", "", "ns1", "pods", "", "p")).reason());
  }

  @Test
  void theDefaultRolesGiveViewEditAdminAndClusterAdminWhatTheyShould() {
    List<ClusterRole> roles = new ArrayList<>(Bootstrap.clusterRoles());
    var changes = Aggregation.changes(roles);
    roles.replaceAll(r -> changes.containsKey(r.getMetadata().getName())
        ? new ClusterRoleBuilder(r).withRules(changes.get(r.getMetadata().getName())).build() : r);
    User viewer = User.authenticated("v", "", List.of());
    User editor = User.authenticated("e", "", List.of());
    User admin = User.authenticated("a", "", List.of());
    User master = User.authenticated("m", "", List.of(User.MASTERS));
    Policy policy = new Policy(roles, List.of(), Bootstrap.clusterRoleBindings(), List.of(
        binding("ns", "v", "ClusterRole", "view", subject("User", "v", null)),
        binding("ns", "e", "ClusterRole", "edit", subject("User", "e", null)),
        binding("ns", "a", "ClusterRole", "admin", subject("User", "a", null))));
    RequestAttributes scale = RequestAttributes.of("PATCH", "/apis/apps/v1/namespaces/ns/statefulsets/web/scale", null, null);
    RequestAttributes pause = RequestAttributes.of("POST", "/apis/apps/v1/namespaces/ns/statefulsets/web/rollout/pause", null, null);
    RequestAttributes status = RequestAttributes.of("GET", "/apis/apps/v1/namespaces/ns/statefulsets/web/rollout/status", null, null);
    RequestAttributes exec = RequestAttributes.of("POST", "/api/v1/namespaces/ns/pods/web-0/exec", null, null);
    RequestAttributes bind = RequestAttributes.of("POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/ns/rolebindings", null, null);
    RequestAttributes tokens = RequestAttributes.of("GET", "/apis/auth.ordinal.io/v1/tokens", null, null);
    RequestAttributes log = RequestAttributes.of("GET", "/api/v1/namespaces/ns/pods/web-0/log", null, null);
    assertTrue(policy.authorize(viewer, log).allowed());
    assertTrue(policy.authorize(viewer, status).allowed());
    for (RequestAttributes denied : List.of(scale, pause, exec, bind, tokens)) {
      assertFalse(policy.authorize(viewer, denied).allowed(), denied.toString());
    }
    for (RequestAttributes allowed : List.of(scale, pause, exec, log, status)) {
      assertTrue(policy.authorize(editor, allowed).allowed(), allowed.toString());
    }
    assertFalse(policy.authorize(editor, bind).allowed());
    assertTrue(policy.authorize(admin, bind).allowed());
    assertFalse(policy.authorize(admin, tokens).allowed(), "tokens are for cluster-admin only");
    assertTrue(policy.authorize(master, tokens).allowed());
    assertTrue(policy.authorize(viewer, path("get", "/apis")).allowed(), "discovery for the authenticated");
    assertTrue(policy.authorize(User.ANONYMOUS, path("get", "/readyz")).allowed());
    assertTrue(policy.authorize(User.ANONYMOUS, path("get", "/health")).allowed());
    assertFalse(policy.authorize(User.ANONYMOUS, path("get", "/apis")).allowed());
    assertFalse(policy.authorize(User.ANONYMOUS, path("get", "/readyz/jdbc")).allowed());
  }

  static RequestAttributes resource(String verb, String group, String ns, String resource, String sub, String name) {
    return new RequestAttributes(true, verb, "", group, "v1", ns, resource, sub, name);
  }

  static RequestAttributes path(String verb, String path) {
    return new RequestAttributes(false, verb, path, "", "", "", "", "", "");
  }

  static ClusterRole clusterRole(String name, PolicyRule... rules) {
    return new ClusterRoleBuilder().withNewMetadata().withName(name).endMetadata().withRules(rules).build();
  }

  static ClusterRoleBinding clusterBinding(String name, String role, Subject... subjects) {
    return new ClusterRoleBindingBuilder().withNewMetadata().withName(name).endMetadata()
        .withNewRoleRef("rbac.authorization.k8s.io", "ClusterRole", role).withSubjects(subjects).build();
  }

  static RoleBinding binding(String ns, String name, String kind, String role, Subject... subjects) {
    return new RoleBindingBuilder().withNewMetadata().withName(name).withNamespace(ns).endMetadata()
        .withNewRoleRef("rbac.authorization.k8s.io", kind, role).withSubjects(subjects).build();
  }

  static Subject subject(String kind, String name, String namespace) {
    Subject subject = new Subject();
    subject.setKind(kind);
    subject.setName(name);
    subject.setNamespace(namespace);
    return subject;
  }
}
