package io.ordinal.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * What a write of a StatefulSet costs its client, end to end through HTTPS: POST (create), PATCH
 * (a spec change, which bumps the generation) and DELETE of sets of 0 replicas, one after another,
 * after 10 of warm-up. A write commits the change and its controller outbox row together and
 * returns; it does not wait for Temporal.
 */
@E2eTest
@Tag("slow")
class WriteLatencyBenchmarkIT {
  static Api api;

  @Test
  void createPatchAndDeleteLatency(@Namespace String ns) throws Exception {
    int writes = Bench.size(20, 200);
    writeEach(ns, "warm-", 10);
    Map<String, List<Double>> samples = new LinkedHashMap<>();
    List<Bench.Figure> figures = new ArrayList<>();
    for (String kind : List.of("POST", "PATCH", "DELETE")) {
      samples.put(kind, new ArrayList<>());
      figures.add(new Bench.Figure(kind + " p99", "ms", "≤ 15 ms"));
    }
    for (int run = 0; run < Bench.runs(5); run++) {
      List<List<Double>> kinds = writeEach(ns, "w" + run + "-", writes);
      for (int k = 0; k < 3; k++) {
        samples.get(List.of("POST", "PATCH", "DELETE").get(k)).addAll(kinds.get(k));
        figures.get(k).add(Latencies.at(Bench.sorted(kinds.get(k)), 0.99));
      }
    }
    new Bench.Report("write-latency", "Write latency")
        .text("%d sequential writes of each kind per run from one HTTPS client, after 10 of warm-up;"
            .formatted(writes) + " client-side milliseconds from sending the request to the whole answer.")
        .figures(figures)
        .latencies("Every write of every run:", samples)
        .distribution("distribution", "Write latency", samples)
        .write();
  }

  /** Creates, then patches, then deletes {@code count} sets; each kind's latencies in ms. */
  private static List<List<Double>> writeEach(String ns, String prefix, int count) {
    List<Double> creates = timed(count, i -> api.createSet(ns, Manifests.web(prefix + i, 0, 0, Map.of())), 201);
    List<Double> patches = timed(count, i -> api.patch(Paths.set(ns, prefix + i), "application/merge-patch+json",
        "{\"spec\":{\"minReadySeconds\":1}}"), 200);
    List<Double> deletes = timed(count, i -> api.delete(Paths.set(ns, prefix + i)), 200);
    return List.of(creates, patches, deletes);
  }

  private static List<Double> timed(int count, IntFunction<Api.Reply> write, int expected) {
    List<Double> millis = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      long start = System.nanoTime();
      Api.Reply reply = write.apply(i);
      millis.add((System.nanoTime() - start) / 1e6);
      assertEquals(expected, reply.code(), reply.body());
    }
    return millis;
  }
}
