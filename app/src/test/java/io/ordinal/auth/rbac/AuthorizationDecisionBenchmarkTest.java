package io.ordinal.auth.rbac;

import static io.ordinal.auth.rbac.PolicyTest.binding;
import static io.ordinal.auth.rbac.PolicyTest.subject;

import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.ordinal.request.RequestAttributes;
import io.ordinal.request.User;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The in-process cost of the authorization decision every request pays on the event loop: the
 * request's attributes parsed from its method and path, then RBAC evaluated against the policy
 * snapshot, with {@code ordinal.bench.bindings} (default 1000) role bindings spread over 100
 * namespaces besides the defaults. Each decision is timed on its own (nanoTime), 200 000 after as
 * many of warm-up. Report: {@code app/target/benchmarks/auth-decision.md}. No timing is asserted.
 */
@Tag("slow")
class AuthorizationDecisionBenchmarkTest {
  private static final int SAMPLES = 200_000;

  @Test
  void decisionCostByCaller() throws IOException {
    int bindings = Integer.getInteger("ordinal.bench.bindings", 1000);
    List<ClusterRole> roles = new ArrayList<>(Bootstrap.clusterRoles());
    var changes = Aggregation.changes(roles);
    roles.replaceAll(r -> changes.containsKey(r.getMetadata().getName())
        ? new ClusterRoleBuilder(r).withRules(changes.get(r.getMetadata().getName())).build() : r);
    List<RoleBinding> roleBindings = new ArrayList<>();
    for (int i = 0; i < bindings; i++) {
      roleBindings.add(binding("ns-" + (i % 100), "b-" + i, "ClusterRole", i % 2 == 0 ? "view" : "edit",
          subject("User", "user-" + i, null)));
    }
    roleBindings.add(binding("ns-7", "the-viewer", "ClusterRole", "view", subject("User", "viewer", null)));
    Policy policy = new Policy(roles, List.of(), Bootstrap.clusterRoleBindings(), roleBindings);
    User viewer = User.authenticated("viewer", "", List.of("dev"));
    User master = User.authenticated("admin", "", List.of(User.MASTERS));

    StringBuilder report = new StringBuilder("# Authorization decision cost\n\n")
        .append("RequestAttributes parsed from method and path, then Policy.authorize; ").append(bindings)
        .append(" role bindings over 100 namespaces besides the defaults; ").append(SAMPLES)
        .append(" decisions each, timed one by one after as many of warm-up; microseconds.\n\n")
        .append("| request | p50 | p90 | p99 | p99.9 |\n|---|---|---|---|---|\n");
    report.append(row("GET statefulset, system:masters through the cluster-admin binding (the service lets the group through before RBAC)", policy, master, "GET",
        "/apis/apps/v1/namespaces/ns-7/statefulsets/web", true));
    report.append(row("GET statefulset, user bound to view by a RoleBinding", policy, viewer, "GET",
        "/apis/apps/v1/namespaces/ns-7/statefulsets/web", true));
    report.append(row("PATCH statefulsets/scale, same user (denied: every binding searched)", policy, viewer, "PATCH",
        "/apis/apps/v1/namespaces/ns-7/statefulsets/web/scale", false));
    report.append(row("GET /version, anonymous", policy, User.ANONYMOUS, "GET", "/version", true));
    Path out = Path.of("target", "benchmarks", "auth-decision.md");
    Files.createDirectories(out.getParent());
    Files.writeString(out, report);
    System.out.println(report);
  }

  private static String row(String label, Policy policy, User user, String method, String path, boolean allowed) {
    long[] nanos = new long[SAMPLES];
    for (int round = 0; round < 2; round++) {
      for (int i = 0; i < SAMPLES; i++) {
        long start = System.nanoTime();
        boolean decision = policy.authorize(user, RequestAttributes.of(method, path, null, null)).allowed();
        nanos[i] = System.nanoTime() - start;
        if (decision != allowed) {
          throw new AssertionError(label + ": decided " + decision);
        }
      }
    }
    Arrays.sort(nanos);
    return "| %s | %.2f | %.2f | %.2f | %.2f |%n".formatted(label, at(nanos, 0.5), at(nanos, 0.9), at(nanos, 0.99),
        at(nanos, 0.999));
  }

  private static double at(long[] sorted, double quantile) {
    return sorted[Math.min(sorted.length - 1, (int) Math.ceil(quantile * sorted.length) - 1)] / 1000.0;
  }
}
