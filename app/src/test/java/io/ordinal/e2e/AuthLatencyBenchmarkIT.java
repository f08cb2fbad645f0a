package io.ordinal.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * What authentication and authorization cost a request, end to end through HTTPS: the same GET of
 * a StatefulSet by callers whose checks differ — the admin token (system:masters, matched by the
 * first cluster role binding), a token user bound to view by a RoleBinding among
 * {@code ordinal.bench.bindings} (default 500; 50 in the test suite's smoke run) other bindings and roles, an OIDC-less service so
 * no JWT work — and {@code /version} anonymously and as admin (no object read: the request's
 * floor). {@code ordinal.bench.requests} (default 2000; 300 in the smoke run) requests each, after 200 of warm-up.
 * Report: {@code app/target/benchmarks/auth-latency.md}. The in-process cost of the decision alone
 * is in {@code auth-decision.md} (AuthorizationDecisionBenchmarkTest).
 */
@E2eTest
@Tag("slow")
class AuthLatencyBenchmarkIT {
  static Api api;

  @Test
  void requestLatencyByKindOfCaller(@Namespace String ns) throws Exception {
    int requests = Integer.getInteger("ordinal.bench.requests", Bench.size(300, 2000));
    int bindings = Integer.getInteger("ordinal.bench.bindings", Bench.size(50, 500));
    api.createSet(ns, Manifests.web("web", 1, 0, Map.of()));
    for (int i = 0; i < bindings; i++) {
      String other = "bench-" + i;
      Api.Reply role = api.post("/apis/rbac.authorization.k8s.io/v1/namespaces/" + ns + "/roles", "application/json", """
          {"apiVersion":"rbac.authorization.k8s.io/v1","kind":"Role","metadata":{"name":"%s"},
           "rules":[{"apiGroups":["apps"],"resources":["statefulsets"],"verbs":["get"],"resourceNames":["%s"]}]}"""
          .formatted(other, other));
      assertEquals(201, role.code(), role.body());
      Api.Reply binding = api.post("/apis/rbac.authorization.k8s.io/v1/namespaces/" + ns + "/rolebindings",
          "application/json", """
          {"apiVersion":"rbac.authorization.k8s.io/v1","kind":"RoleBinding","metadata":{"name":"%s"},
           "roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"Role","name":"%s"},
           "subjects":[{"apiGroup":"rbac.authorization.k8s.io","kind":"User","name":"%s"}]}""".formatted(other, other, other));
      assertEquals(201, binding.code(), binding.body());
    }
    String viewer = "bench-viewer-" + ns;
    String token = api.post("/apis/auth.ordinal.io/v1/tokens", "application/json",
        "{\"spec\":{\"user\":\"" + viewer + "\"}}").json().at("/status/token").asText();
    api.bind(viewer, "view", ns);

    Map<String, Api> callers = new LinkedHashMap<>();
    callers.put("GET statefulset, admin token (system:masters)", api);
    callers.put("GET statefulset, token bound to view among " + bindings + " role bindings", api.as(token));
    Map<String, String> paths = Map.of("statefulset", Paths.set(ns, "web"), "version", "/version");
    StringBuilder report = new StringBuilder("# Request latency by caller\n\n")
        .append(requests).append(" sequential requests each over one HTTPS connection, after 200 of warm-up; ")
        .append("milliseconds, client side.\n\n| request | p50 | p90 | p99 | max |\n|---|---|---|---|---|\n");
    for (var caller : callers.entrySet()) {
      report.append(row(caller.getKey(), caller.getValue(), paths.get("statefulset"), requests));
    }
    report.append(row("GET /version, anonymous", api.as(null), paths.get("version"), requests));
    report.append(row("GET /version, admin token", api, paths.get("version"), requests));
    Path out = Path.of("target", "benchmarks", "auth-latency.md");
    Files.createDirectories(out.getParent());
    Files.writeString(out, report);
    System.out.println(report);
  }

  private static String row(String label, Api caller, String path, int requests) {
    for (int i = 0; i < 200; i++) {
      assertEquals(200, caller.get(path).code(), label);
    }
    List<Double> millis = new ArrayList<>();
    for (int i = 0; i < requests; i++) {
      long start = System.nanoTime();
      Api.Reply reply = caller.get(path);
      millis.add((System.nanoTime() - start) / 1e6);
      assertEquals(200, reply.code(), label);
    }
    return Latencies.row(label, millis);
  }
}
