package io.ordinal.auth.rbac;

import static io.ordinal.auth.rbac.Rules.rule;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AggregationTest {
  @Test
  void viewFlowsIntoEditAndAdminAndALabelledRoleExtendsAllThree() {
    List<ClusterRole> roles = new ArrayList<>(Bootstrap.clusterRoles());
    PolicyRule widgets = rule(List.of("get"), List.of("example.io"), List.of("widgets"), List.of(), List.of());
    roles.add(new ClusterRoleBuilder().withNewMetadata().withName("widgets")
        .addToLabels("rbac.authorization.k8s.io/aggregate-to-view", "true").endMetadata().withRules(widgets).build());
    Map<String, List<PolicyRule>> changes = Aggregation.changes(roles);
    for (String role : List.of("view", "edit", "admin")) {
      assertTrue(changes.get(role).stream().anyMatch(r -> Aggregation.same(r, widgets)), role);
    }
    assertTrue(changes.get("admin").size() > changes.get("edit").size());
    assertTrue(changes.get("edit").containsAll(changes.get("view")));
    assertEquals(List.of("admin", "edit", "view"), changes.keySet().stream().sorted().toList());
    // Once stored, nothing changes any more.
    roles.replaceAll(r -> changes.containsKey(r.getMetadata().getName())
        ? new ClusterRoleBuilder(r).withRules(changes.get(r.getMetadata().getName())).build() : r);
    assertTrue(Aggregation.changes(roles).isEmpty());
  }
}
