package io.ordinal.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * {@code /metrics} scraped while a set scales and rolls out: the counters and histograms of that set
 * move as they should, the per-set gauges say what its status says, and promtool parses the exposition
 * and finds nothing wrong with Ordinal's own metric names and types.
 */
@E2eTest
class MetricsIT {
  static final Duration TIMEOUT = Duration.ofSeconds(90);
  static Api api;

  private static Exposition scrape() {
    Api.Reply reply = api.get("/metrics");
    assertEquals(200, reply.code(), reply.body());
    assertTrue(reply.contentType().startsWith("text/plain; version=0.0.4"), reply.contentType());
    return Exposition.parse(reply.body());
  }

  /** Scrapes until {@code condition} holds: the SDK's meters reach the registry once a second. */
  private static Exposition awaitScrape(String what, Predicate<Exposition> condition) {
    Instant deadline = Instant.now().plusSeconds(30);
    Exposition last = scrape();
    while (!condition.test(last)) {
      assertTrue(Instant.now().isBefore(deadline), what + " never showed in /metrics");
      Api.sleep(250);
      last = scrape();
    }
    return last;
  }

  @Test
  void scaleAndRolloutMoveTheirSetsCountersHistogramsAndGauges(@Namespace String ns) throws Exception {
    Map<String, String> set = Map.of("namespace", ns, "statefulset", "web");
    Map<String, String> scale = with(set, "operation", "scale");
    Map<String, String> rollout = with(set, "operation", "rollout");
    Map<String, String> createSets = Map.of("verb", "create", "resource", "statefulsets", "code", "201");
    double createsBefore = scrape().sum("ordinal_api_requests_total", createSets);

    api.createSet(ns, Manifests.web("web", 3, 0, Map.of()));
    api.awaitConverged(ns, "web", 3, TIMEOUT);
    // Both counters, not the completion alone: the SDK's reporter writes its counters into the registry
    // one scope after another, and a scrape can land between the two, a short scale's in the same flush.
    Exposition scaled = awaitScrape("the scale's start and completion", m ->
        m.sum("ordinal_operations_completed_total", with(scale, "result", "converged")) >= 1
            && m.sum("ordinal_operations_started_total", scale) >= 1);
    assertEquals(1, scaled.sum("ordinal_operations_completed_total", with(scale, "result", "converged")));
    assertEquals(1, scaled.sum("ordinal_operations_started_total", scale));
    assertEquals(0, scaled.sum("ordinal_operations_failed_total", set));
    assertEquals(1, scaled.sum("ordinal_operation_duration_seconds_count", scale));
    assertTrue(scaled.sum("ordinal_operation_duration_seconds_sum", scale) > 0);
    // web-1 waited for web-0 to be available, web-2 for web-1: two steps, web-0's creation was none.
    assertEquals(2, scaled.sum("ordinal_step_latency_seconds_count", scale));
    assertEquals(2, scaled.sum("ordinal_step_latency_seconds_bucket", with(scale, "le", "+Inf")));
    assertTrue(scaled.sum("ordinal_api_requests_total", createSets) >= createsBefore + 1);
    assertTrue(scaled.sum("ordinal_api_request_duration_seconds_count", Map.of("verb", "create", "resource", "statefulsets")) >= 1);

    assertEquals(3, scaled.sum("ordinal_statefulset_replicas", set));
    assertEquals(3, scaled.sum("ordinal_statefulset_status_replicas_ready", set));
    assertEquals(3, scaled.sum("ordinal_statefulset_status_replicas_available", set));
    assertEquals(3, scaled.sum("ordinal_statefulset_pods", with(set, "phase", "Running", "ready", "true")));
    assertEquals(0, scaled.sum("ordinal_statefulset_rollout_paused", set));

    String revision = api.set(ns, "web").at("/status/currentRevision").asText();
    api.setImage(ns, "web", "k8s.gcr.io/nginx-slim:0.9");
    api.awaitRolledOut(ns, 3, revision);
    Exposition rolled = awaitScrape("the rollout's start and completion", m ->
        m.sum("ordinal_operations_completed_total", with(rollout, "result", "converged")) >= 1
            && m.sum("ordinal_operations_started_total", rollout) >= 1);
    assertEquals(1, rolled.sum("ordinal_operations_completed_total", with(rollout, "result", "converged")));
    assertEquals(1, rolled.sum("ordinal_operations_started_total", rollout));
    assertEquals(1, rolled.sum("ordinal_operation_duration_seconds_count", rollout));
    // web-2 is replaced first (no wait), then web-1 once web-2 is available, then web-0 once web-1 is.
    assertEquals(2, rolled.sum("ordinal_step_latency_seconds_count", rollout));
    assertEquals(3, rolled.sum("ordinal_statefulset_status_replicas_updated", set));
    assertEquals(0, rolled.sum("ordinal_automatic_rollbacks_total", set));

    assertEquals(200, api.post(Paths.set(ns, "web") + "/rollout/pause", null, null).code());
    awaitScrape("the paused rollout", m -> m.sum("ordinal_statefulset_rollout_paused", set) == 1);

    // The SDK's own meters are in the same registry (reported with the next flush), and so are the JVM's.
    awaitScrape("the SDK's completed OperationWorkflows",
        m -> m.sum("temporal_workflow_completed_total", Map.of("workflow_type", "OperationWorkflow")) >= 2);
    assertTrue(rolled.has("temporal_workflow_task_execution_latency_seconds_count"));
    assertTrue(rolled.has("jvm_memory_used_bytes"));
    assertEquals("histogram", rolled.type("ordinal_step_latency_seconds"));
    // The fixed buckets only (12 and +Inf), not Micrometer's default ~70 on top.
    assertEquals(13, rolled.samples().stream().filter(s -> s.name().equals("ordinal_step_latency_seconds_bucket")
        && s.labels().entrySet().containsAll(rollout.entrySet())).count());
    assertEquals("counter", rolled.type("ordinal_operations_started_total"));
  }

  @Test
  void promtoolParsesTheExpositionAndFindsNoProblemInOrdinalsMetrics(@Namespace String ns) throws Exception {
    api.createSet(ns, Manifests.web("web", 1, 0, Map.of()));
    api.awaitConverged(ns, "web", 1, TIMEOUT);
    Exposition metrics = awaitScrape("the set's operation", m -> m.has("ordinal_operations_completed_total"));
    Promtool.Result check = Promtool.checkMetrics(metrics.text());
    assertNotEquals(1, check.exitCode(), "promtool could not parse /metrics:\n" + check.output());
    List<String> ours = Arrays.stream(check.output().split("\n")).filter(line -> line.startsWith("ordinal_")).toList();
    assertEquals(List.of(), ours, "promtool's lint of Ordinal's metrics");
  }

  @Test
  void openWatchesAreCountedWhileTheyLast(@Namespace String ns) throws Exception {
    // Controller revisions: a resource no other test of the shared service watches.
    Map<String, String> revisions = Map.of("resource", "controllerrevisions");
    double before = scrape().sum("ordinal_api_watches", revisions);
    HttpResponse<InputStream> watch = api.client().send(
        api.request("/apis/apps/v1/namespaces/" + ns + "/controllerrevisions?watch=true").GET().build(),
        HttpResponse.BodyHandlers.ofInputStream());
    assertEquals(200, watch.statusCode());
    awaitScrape("the open watch", m -> m.sum("ordinal_api_watches", revisions) == before + 1);
    watch.body().close();
    awaitScrape("the closed watch", m -> m.sum("ordinal_api_watches", revisions) == before);
  }

  @Test
  void metricsAreForTheMonitoringGroupAndAdminsOnly(@Namespace String ns) {
    assertEquals(403, api.as(null).get("/metrics").code());
    Api plain = api.as(token("viewer-" + ns, List.of()));
    assertEquals(403, plain.get("/metrics").code());
    Api monitoring = api.as(token("prometheus-" + ns, List.of("system:monitoring")));
    Api.Reply scraped = monitoring.get("/metrics");
    assertEquals(200, scraped.code(), scraped.body());
    assertTrue(scraped.body().contains("ordinal_api_requests_total"));
  }

  private static String token(String user, List<String> groups) {
    String groupList = groups.stream().map(g -> "\"" + g + "\"").collect(Collectors.joining(","));
    Api.Reply issued = api.post("/apis/auth.ordinal.io/v1/tokens", "application/json",
        "{\"spec\":{\"user\":\"" + user + "\",\"groups\":[" + groupList + "]}}");
    assertEquals(201, issued.code(), issued.body());
    return issued.json().at("/status/token").asText();
  }

  private static Map<String, String> with(Map<String, String> labels, String... more) {
    Map<String, String> all = new java.util.HashMap<>(labels);
    for (int i = 0; i < more.length; i += 2) {
      all.put(more[i], more[i + 1]);
    }
    return Map.copyOf(all);
  }
}
