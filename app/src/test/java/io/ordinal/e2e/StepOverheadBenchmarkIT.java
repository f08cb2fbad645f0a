package io.ordinal.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * What a durable step costs an ordered scale (sim driver, OrderedReady). From the API's own
 * timestamps: how long after pod i-1 becomes available is pod i created, with no delays (the
 * notification path, minReadySeconds 0) and through the durable timer (minReadySeconds 1); and a
 * 10-pod scale's wall time (set created to last pod available) over the sum of the waits it is
 * made of (Ready delays plus minReadySeconds).
 */
@E2eTest
@Tag("slow")
class StepOverheadBenchmarkIT {
  static Api api;

  @Test
  void stepOverheadAndOrderedScaleEfficiency(@Namespace String ns) throws Exception {
    int pods = Bench.size(6, 20);
    int efficiencyPods = Bench.size(3, 10);
    int readyDelayMs = 500;
    Bench.Figure p50 = new Bench.Figure("step overhead p50, " + pods + " pods, no delays", "ms", "");
    Bench.Figure p99 = new Bench.Figure("step overhead, slowest of a run's " + (pods - 1) + " steps, no delays", "ms",
        "p99 ≤ 20 ms");
    Bench.Figure timerP99 = new Bench.Figure("step overhead, slowest step through the durable timer (minReadySeconds 1)", "ms", "");
    Bench.Figure efficiency = new Bench.Figure(efficiencyPods + "-pod ordered scale: wall ÷ (Ready delays + minReadySeconds)",
        "", "≤ 1.01");
    Map<String, List<Double>> samples = new LinkedHashMap<>();
    samples.put("minReadySeconds 0", new ArrayList<>());
    samples.put("minReadySeconds 1", new ArrayList<>());
    for (int run = 0; run < Bench.runs(5); run++) {
      List<Double> notified = steps(ns, "notify-" + run, pods, 0, 0);
      List<Double> timed = steps(ns, "timer-" + run, pods, 1, 0);
      samples.get("minReadySeconds 0").addAll(notified);
      samples.get("minReadySeconds 1").addAll(timed);
      p50.add(Latencies.at(Bench.sorted(notified), 0.5));
      p99.add(Latencies.at(Bench.sorted(notified), 0.99));
      timerP99.add(Latencies.at(Bench.sorted(timed), 0.99));

      String name = "scale-" + run;
      api.createSet(ns, Manifests.web(name, efficiencyPods, 1, Map.of("SIM_READY_DELAY_MS", Integer.toString(readyDelayMs))));
      api.awaitConverged(ns, name, efficiencyPods, Duration.ofSeconds(120));
      long created = Pods.created(api.set(ns, name));
      long lastAvailable = Pods.readySince(api.pod(ns, name + "-" + (efficiencyPods - 1))) + 1000;
      efficiency.add((lastAvailable - created) / (double) (efficiencyPods * (readyDelayMs + 1000)));
      api.delete(Paths.set(ns, name));
    }
    new Bench.Report("step-overhead", "Step overhead and ordered-scale efficiency")
        .text("""
            Sim driver, OrderedReady, one set at a time. The step overhead is the time from pod i-1 becoming
            available (Ready, plus minReadySeconds) to pod i's creationTimestamp, both server timestamps.
            The efficiency run is a %d-pod scale whose pods turn Ready %d ms after creation, with
            minReadySeconds 1: wall time from the set's creationTimestamp to the last pod available, over
            %d × (%d ms + 1 s).""".formatted(efficiencyPods, readyDelayMs, efficiencyPods, readyDelayMs))
        .figures(List.of(p50, p99, timerP99, efficiency))
        .latencies("Every step of every run:", samples)
        .distribution("steps", "Step overhead (pod i-1 available → pod i created)", samples)
        .write();
  }

  /** Scales a set of {@code pods} to Ready and returns each step's overhead in ms. */
  private static List<Double> steps(String ns, String name, int pods, int minReadySeconds, int readyDelayMs) {
    api.createSet(ns, Manifests.web(name, pods, minReadySeconds, Map.of("SIM_READY_DELAY_MS", Integer.toString(readyDelayMs))));
    api.awaitConverged(ns, name, pods, Duration.ofSeconds(120));
    List<Double> samples = new ArrayList<>();
    for (int i = 1; i < pods; i++) {
      JsonNode previous = api.pod(ns, name + "-" + (i - 1));
      JsonNode pod = api.pod(ns, name + "-" + i);
      samples.add((double) (Pods.created(pod) - (Pods.readySince(previous) + minReadySeconds * 1000L)));
    }
    api.delete(Paths.set(ns, name));
    return samples;
  }
}
