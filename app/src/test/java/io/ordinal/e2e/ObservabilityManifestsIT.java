package io.ordinal.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.ordinal.store.KubeJson;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * deploy/observability: the alert rules pass promtool's check and their unit tests, and every query
 * of the Grafana dashboard is valid PromQL (promtool parses it as a recording rule) naming only
 * metrics the service exports.
 */
@E2eTest
class ObservabilityManifestsIT {
  static final Path DIR = Path.of("..", "deploy", "observability").toAbsolutePath().normalize();
  static final Duration TIMEOUT = Duration.ofSeconds(90);
  /**
   * Meters that have no series until what they count first happens (a failure, a rollback, a probe
   * failure, a watch): the dashboard and the alerts name them before this test could make them.
   */
  static final Set<String> SERIES_ONCE_COUNTED = Set.of("temporal_workflow_task_execution_failed_total",
      "ordinal_operations_failed_total", "ordinal_automatic_rollbacks_total", "ordinal_rollout_deadlines_exceeded_total",
      "ordinal_forced_pod_replacements_total", "ordinal_local_probe_failures_total", "ordinal_local_container_restarts_total",
      "ordinal_api_watches");
  private static final Pattern METRIC = Pattern.compile("\\b((?:ordinal|temporal|jvm|hikaricp)_[a-z0-9_]*[a-z0-9])\\b");
  static Api api;

  @Test
  void alertRulesPassPromtoolsCheckAndTheirUnitTests() throws Exception {
    Promtool.Result check = Promtool.checkRules(DIR.resolve("alerts.yaml"));
    assertEquals(0, check.exitCode(), check.output());
    Promtool.Result tests = Promtool.testRules(DIR.resolve("alerts-test.yaml"));
    assertEquals(0, tests.exitCode(), tests.output());
  }

  @Test
  void dashboardQueriesAreValidPromqlOverMetricsTheServiceExports(@Namespace String ns) throws Exception {
    JsonNode dashboard = KubeJson.JSON.readTree(Files.readString(DIR.resolve("grafana-dashboard.json")));
    assertEquals("ordinal-overview", dashboard.path("uid").asText());
    assertTrue(dashboard.path("schemaVersion").asInt() > 0);
    Set<Integer> ids = new HashSet<>();
    List<String> queries = new ArrayList<>();
    for (JsonNode panel : dashboard.path("panels")) {
      assertTrue(ids.add(panel.path("id").asInt()), "panel id " + panel.path("id") + " twice");
      assertFalse(panel.path("title").asText().isBlank(), panel.toString());
      assertTrue(panel.has("gridPos"), panel.path("title").asText());
      if (panel.path("type").asText().equals("row")) {
        continue;
      }
      assertEquals("${datasource}", panel.at("/datasource/uid").asText(), panel.path("title").asText());
      assertFalse(panel.path("targets").isEmpty(), panel.path("title").asText());
      panel.path("targets").forEach(target -> queries.add(target.path("expr").asText()));
    }
    dashboard.at("/templating/list").forEach(variable -> {
      if (variable.path("type").asText().equals("query")) {
        Matcher inner = Pattern.compile("label_values\\((.*), \\w+\\)").matcher(variable.at("/query/query").asText());
        assertTrue(inner.matches(), variable.toString());
        queries.add(inner.group(1));
      }
    });

    // Every query, with Grafana's variables filled in, as a recording rule: promtool parses its PromQL.
    StringBuilder rules = new StringBuilder("groups:\n  - name: dashboard\n    rules:\n");
    for (int i = 0; i < queries.size(); i++) {
      String query = queries.get(i).replace("$__rate_interval", "5m").replace("$namespace", ".*").replace("$statefulset", ".*");
      rules.append("      - record: dashboard:query_").append(i).append("\n        expr: ")
          .append(KubeJson.JSON.writeValueAsString(query)).append("\n");
    }
    Path file = Files.createTempFile("dashboard-queries", ".yaml");
    Files.writeString(file, rules);
    Promtool.Result check = Promtool.checkRules(file);
    assertEquals(0, check.exitCode(), check.output() + "\n" + rules);

    // The names they and the alerts use are in the service's exposition once a set has been made and scaled.
    api.createSet(ns, Manifests.web("web", 2, 0, Map.of()));
    api.awaitConverged(ns, "web", 2, TIMEOUT);
    // The SDK reports what workflows count once a second: the scale's end shows a moment after it.
    Exposition exposition = Exposition.parse(api.get("/metrics").body());
    for (int i = 0; i < 100 && !exposition.has("ordinal_operations_completed_total"); i++) {
      Api.sleep(300);
      exposition = Exposition.parse(api.get("/metrics").body());
    }
    Set<String> named = new TreeSet<>();
    queries.forEach(query -> named.addAll(metricNames(query)));
    named.addAll(metricNames(Files.readString(DIR.resolve("alerts.yaml"))));
    Exposition scraped = exposition;
    List<String> missing = named.stream().filter(name -> !scraped.has(name) && !SERIES_ONCE_COUNTED.contains(name)).toList();
    assertEquals(List.of(), missing, "metrics the dashboard or the alerts name that /metrics does not have");
    // The alert that reads a regex of names, not a name (an empty poll takes a minute to come back).
    assertTrue(exposition.has("temporal_workflow_task_queue_poll_succeed_total")
        || exposition.has("temporal_workflow_task_queue_poll_empty_total"));
  }

  private static Set<String> metricNames(String text) {
    Set<String> names = new TreeSet<>();
    Matcher matcher = METRIC.matcher(text);
    while (matcher.find()) {
      names.add(matcher.group(1));
    }
    return names;
  }
}
