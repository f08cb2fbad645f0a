package io.ordinal.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Benchmark, not a timed assertion: how long after a pod becomes available does the next ordinal's
 * creation start? Measured from the API's own timestamps (Ready lastTransitionTime of web-(i-1) plus
 * minReadySeconds, to creationTimestamp of web-i), on the sim driver, for the notification path
 * (minReadySeconds 0) and the durable-timer path (minReadySeconds 1). Writes
 * {@code app/target/benchmarks/readiness-latency.md}.
 */
@E2eTest
@Tag("slow")
class ReadinessLatencyBenchmarkIT {
  static final int PODS = Integer.getInteger("ordinal.bench.pods", 12);
  static Api api;

  @Test
  void readinessToNextStepLatency() throws Exception {
    List<Long> notified = measure("bench-notify", 0);
    List<Long> timed = measure("bench-timer", 1);
    String report = """
        # Readiness-to-next-step latency (sim driver, OrderedReady, %d pods, SIM_READY_DELAY_MS=300)

        | path | samples | p50 ms | p90 ms | max ms |
        |---|---|---|---|---|
        | pod Ready -> next create (minReadySeconds 0, driver signal) | %s |
        | available -> next create (minReadySeconds 1, durable timer) | %s |

        Reproduce: `./ordinal mvn verify -pl app -am -Dit.test=ReadinessLatencyBenchmarkIT -Dsurefire.skip=true`
        """.formatted(PODS, row(notified), row(timed));
    Path out = Path.of("target", "benchmarks", "readiness-latency.md");
    Files.createDirectories(out.getParent());
    Files.writeString(out, report);
    System.out.println(report);
  }

  private List<Long> measure(String ns, int minReadySeconds) {
    api.createSet(ns, Manifests.web("web", PODS, minReadySeconds, Map.of("SIM_READY_DELAY_MS", "300")));
    api.awaitConverged(ns, "web", PODS, Duration.ofSeconds(120));
    List<Long> samples = new ArrayList<>();
    for (int i = 1; i < PODS; i++) {
      JsonNode previous = api.pod(ns, "web-" + (i - 1));
      JsonNode pod = api.pod(ns, "web-" + i);
      samples.add(Pods.created(pod) - (Pods.readySince(previous) + minReadySeconds * 1000L));
    }
    api.delete(Paths.set(ns, "web"));
    return samples;
  }

  private static String row(List<Long> samples) {
    List<Long> sorted = new ArrayList<>(samples);
    Collections.sort(sorted);
    return sorted.size() + " | " + percentile(sorted, 50) + " | " + percentile(sorted, 90) + " | " + sorted.getLast();
  }

  private static long percentile(List<Long> sorted, int p) {
    return sorted.get(Math.min(sorted.size() - 1, (int) Math.ceil(p / 100.0 * sorted.size()) - 1));
  }
}
