package io.ordinal.auth.rbac;

import static io.ordinal.auth.rbac.PolicyTest.binding;
import static io.ordinal.auth.rbac.PolicyTest.clusterRole;
import static io.ordinal.auth.rbac.PolicyTest.subject;
import static io.ordinal.auth.rbac.Rules.rule;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBuilder;
import io.ordinal.request.User;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Rule coverage (upstream's policy_comparator_test.go) and the escalation check built on it. */
class EscalationTest {
  static final User CAROL = User.authenticated("carol", "3", List.of());

  @Test
  void ownedRulesCoverRequestedOnesVerbByVerbAndResourceByResource() {
    PolicyRule star = rule(List.of("*"), List.of("*"), List.of("*"), List.of(), List.of());
    PolicyRule getPods = rule(List.of("get"), List.of(""), List.of("pods"), List.of(), List.of());
    PolicyRule getListPods = rule(List.of("get", "list"), List.of(""), List.of("pods"), List.of(), List.of());
    assertTrue(Rules.uncovered(List.of(star), List.of(getListPods)).isEmpty());
    assertEquals(List.of(rule(List.of("list"), List.of(""), List.of("pods"), List.of(), List.of())),
        Rules.uncovered(List.of(getPods), List.of(getListPods)));
    assertTrue(Rules.uncovered(List.of(getPods, rule(List.of("list"), List.of(""), List.of("pods"), List.of(), List.of())),
        List.of(getListPods)).isEmpty(), "two owned rules may cover one requested");
    PolicyRule anyScale = rule(List.of("update"), List.of("apps"), List.of("*/scale"), List.of(), List.of());
    assertTrue(Rules.uncovered(List.of(anyScale),
        List.of(rule(List.of("update"), List.of("apps"), List.of("statefulsets/scale"), List.of(), List.of()))).isEmpty());
    assertFalse(Rules.uncovered(List.of(anyScale),
        List.of(rule(List.of("update"), List.of("apps"), List.of("statefulsets"), List.of(), List.of()))).isEmpty());
    PolicyRule named = rule(List.of("get"), List.of(""), List.of("pods"), List.of("foo"), List.of());
    assertFalse(Rules.uncovered(List.of(named), List.of(getPods)).isEmpty(), "one pod is not every pod");
    assertTrue(Rules.uncovered(List.of(getPods), List.of(named)).isEmpty());
    PolicyRule apiPaths = rule(List.of("get"), List.of(), List.of(), List.of(), List.of("/api/*"));
    assertTrue(Rules.uncovered(List.of(apiPaths), List.of(rule(List.of("get"), List.of(), List.of(), List.of(), List.of("/api/v1")))).isEmpty());
    assertFalse(Rules.uncovered(List.of(apiPaths), List.of(rule(List.of("get"), List.of(), List.of(), List.of(), List.of("/apis")))).isEmpty());
  }

  @Test
  void aUserMayWriteOnlyRolesWithinItsRulesAndBindOnlyRolesWithinThemUnlessItMayEscalateOrBind() {
    PolicyRule readPods = rule(List.of("get", "list"), List.of(""), List.of("pods"), List.of(), List.of());
    PolicyRule writePods = rule(List.of("create", "delete"), List.of(""), List.of("pods"), List.of(), List.of());
    Policy policy = new Policy(List.of(clusterRole("reader", readPods), clusterRole("writer", readPods, writePods),
        clusterRole("binder", rule(List.of("bind"), List.of("rbac.authorization.k8s.io"), List.of("clusterroles"), List.of("writer"), List.of()))),
        List.of(), List.of(), List.of(binding("ns", "b", "ClusterRole", "reader", subject("User", "carol", null))));

    assertTrue(Escalation.check(policy, CAROL, role("ns", readPods)).isEmpty());
    String refused = Escalation.check(policy, CAROL, role("ns", writePods)).orElseThrow();
    assertTrue(refused.startsWith("user \"carol\" (groups=[\"system:authenticated\"]) is attempting to grant RBAC"
        + " permissions not currently held:\n{APIGroups:[\"\"], Resources:[\"pods\"], Verbs:[\"create\"]}"), refused);
    assertFalse(Escalation.check(policy, CAROL, role("other", readPods)).isEmpty(), "its rules hold in ns only");
    assertTrue(Escalation.check(policy, User.authenticated("root", "", List.of(User.MASTERS)), role("ns", writePods)).isEmpty());

    assertTrue(Escalation.check(policy, CAROL, rolebinding("ns", "reader")).isEmpty());
    assertFalse(Escalation.check(policy, CAROL, rolebinding("ns", "writer")).isEmpty());
    Policy withBind = new Policy(policy.clusterRoles(), List.of(), List.of(), List.of(
        binding("ns", "b", "ClusterRole", "reader", subject("User", "carol", null)),
        binding("ns", "c", "ClusterRole", "binder", subject("User", "carol", null))));
    assertTrue(Escalation.check(withBind, CAROL, rolebinding("ns", "writer")).isEmpty(), "bind on writer");
    assertEquals("clusterrole.rbac.authorization.k8s.io \"nope\" not found",
        Escalation.check(policy, CAROL, rolebinding("ns", "nope")).orElseThrow());
  }

  private static Role role(String ns, PolicyRule... rules) {
    return new RoleBuilder().withNewMetadata().withName("r").withNamespace(ns).endMetadata().withRules(rules).build();
  }

  private static io.fabric8.kubernetes.api.model.rbac.RoleBinding rolebinding(String ns, String clusterRole) {
    return new RoleBindingBuilder(binding(ns, "new", "ClusterRole", clusterRole, subject("User", "dave", null))).build();
  }
}
