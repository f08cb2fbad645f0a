package io.ordinal.e2e;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.ordinal.store.KubeJson;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * History bounds: a 1 000-replica set scales up and rolls out with every workflow run under 10 000
 * history events (continue-as-new keeps runs short). Not a timed assertion: the durations and
 * history figures go to {@code app/target/benchmarks/large-set.md}.
 */
@E2eTest
@Tag("slow")
class LargeSetIT {
  static final int REPLICAS = Integer.getInteger("ordinal.large.replicas", 1000);
  static final String POLICY = System.getProperty("ordinal.large.policy", "Parallel");
  static final String MAX_UNAVAILABLE = System.getProperty("ordinal.large.maxUnavailable", "10%");
  static final int MAX_EVENTS = 10_000;
  static final Duration TIMEOUT = Duration.ofMinutes(20);

  @Test
  void thousandReplicasScaleAndRollOutWithEveryRunUnderTenThousandEvents(@Namespace String ns) throws Exception {
    try (OrdinalService service = new OrdinalService("large")) {
      service.start();
      Api api = service.api();
      ObjectNode set = Manifests.web("web", REPLICAS, 0, Map.of());
      ((ObjectNode) set.get("spec")).put("podManagementPolicy", POLICY);
      ((ObjectNode) set.at("/spec")).putObject("updateStrategy").put("type", "RollingUpdate")
          .putObject("rollingUpdate").set("maxUnavailable", MAX_UNAVAILABLE.matches("\\d+")
              ? KubeJson.JSON.getNodeFactory().numberNode(Integer.parseInt(MAX_UNAVAILABLE))
              : KubeJson.JSON.getNodeFactory().textNode(MAX_UNAVAILABLE));
      Instant start = Instant.now();
      api.createSet(ns, set);
      String first = api.awaitConverged(ns, "web", REPLICAS, TIMEOUT).at("/status/currentRevision").asText();
      Duration scale = Duration.between(start, Instant.now());

      start = Instant.now();
      api.setImage(ns, "web", "k8s.gcr.io/nginx-slim:0.9");
      api.await(Paths.set(ns, "web") + "/status", TIMEOUT, r -> {
        var s = r.json().path("status");
        return !s.path("currentRevision").asText().equals(first) && s.path("updatedReplicas").asInt() == REPLICAS
            && s.path("availableReplicas").asInt() == REPLICAS;
      });
      Duration rollout = Duration.between(start, Instant.now());

      // Describe each run, not its visibility record, which has no history figures while it runs.
      var runs = service.withTemporal(client -> client.listExecutions("OrdinalNamespace = '" + ns + "'")
          .map(listed -> client.newUntypedWorkflowStub(listed.getExecution().getWorkflowId(),
              Optional.of(listed.getExecution().getRunId()), Optional.empty()).describe())
          .toList());
      List<String> rows = new ArrayList<>();
      long maxEvents = 0;
      long maxBytes = 0;
      long totalBytes = 0;
      for (var run : runs) {
        var info = run.getWorkflowExecutionInfo();
        maxEvents = Math.max(maxEvents, info.getHistoryLength());
        maxBytes = Math.max(maxBytes, info.getHistorySizeBytes());
        totalBytes += info.getHistorySizeBytes();
        rows.add("| " + run.getExecution().getWorkflowId() + " | " + run.getStatus() + " | " + info.getHistoryLength() + " | "
            + info.getHistorySizeBytes() / 1024 + " |");
        assertTrue(info.getHistoryLength() < MAX_EVENTS, run.getExecution().getWorkflowId() + " run " + run.getExecution().getRunId()
            + " has " + info.getHistoryLength() + " events");
      }
      String report = """
          # Large set: %d replicas, %s, maxUnavailable %s (sim driver)

          - scale 0 -> %d: %.1f s; rollout of all pods: %.1f s
          - workflow runs: %d; most events in one run: %d (bound %d); largest history: %d KiB; all runs: %d KiB

          | workflow | status | events | KiB |
          |---|---|---|---|
          %s

          Reproduce: `./ordinal mvn verify -pl app -am -Dsurefire.skip=true -Dit.test=LargeSetIT \
          -Dordinal.large.replicas=%d -Dordinal.large.policy=%s -Dordinal.large.maxUnavailable=%s`
          """.formatted(REPLICAS, POLICY, MAX_UNAVAILABLE, REPLICAS, scale.toMillis() / 1000.0, rollout.toMillis() / 1000.0,
          rows.size(), maxEvents, MAX_EVENTS, maxBytes / 1024, totalBytes / 1024, String.join("\n", rows),
          REPLICAS, POLICY, MAX_UNAVAILABLE);
      Path out = Path.of("target", "benchmarks", "large-set.md");
      Files.createDirectories(out.getParent());
      Files.writeString(out, report);
      System.out.println(report);
    }
  }
}
