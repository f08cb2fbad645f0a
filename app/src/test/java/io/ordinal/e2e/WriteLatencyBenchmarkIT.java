package io.ordinal.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * What a write of a StatefulSet costs its client, end to end through HTTPS: POST (create), PATCH
 * (a scale, which bumps the generation) and DELETE of {@code ordinal.bench.writes} (default 100)
 * sets of 0 replicas, one after another, after 10 of warm-up. A write commits the change and its
 * controller outbox row together and returns; it does not wait for Temporal. Report:
 * {@code app/target/benchmarks/write-latency.md}.
 */
@E2eTest
@Tag("slow")
class WriteLatencyBenchmarkIT {
  static Api api;

  @Test
  void createPatchAndDeleteLatency(@Namespace String ns) throws Exception {
    int writes = Integer.getInteger("ordinal.bench.writes", 100);
    for (int i = 0; i < 10; i++) {
      String name = "warm-" + i;
      assertEquals(201, api.createSet(ns, Manifests.web(name, 0, 0, Map.of())).code());
      api.patchSet(ns, name, "{\"spec\":{\"replicas\":0,\"minReadySeconds\":1}}");
      assertEquals(200, api.delete(Paths.set(ns, name)).code());
    }
    List<Double> creates = new ArrayList<>();
    List<Double> patches = new ArrayList<>();
    List<Double> deletes = new ArrayList<>();
    for (int i = 0; i < writes; i++) {
      String name = "w-" + i;
      long start = System.nanoTime();
      assertEquals(201, api.createSet(ns, Manifests.web(name, 0, 0, Map.of())).code());
      creates.add((System.nanoTime() - start) / 1e6);
    }
    for (int i = 0; i < writes; i++) {
      long start = System.nanoTime();
      Api.Reply patched = api.patch(Paths.set(ns, "w-" + i), "application/merge-patch+json",
          "{\"spec\":{\"minReadySeconds\":1}}");
      patches.add((System.nanoTime() - start) / 1e6);
      assertEquals(200, patched.code(), patched.body());
    }
    for (int i = 0; i < writes; i++) {
      long start = System.nanoTime();
      Api.Reply deleted = api.delete(Paths.set(ns, "w-" + i));
      deletes.add((System.nanoTime() - start) / 1e6);
      assertEquals(200, deleted.code(), deleted.body());
    }
    String report = "# Write latency\n\n" + writes + " sequential writes of each kind over one HTTPS connection,"
        + " after 10 of warm-up; milliseconds, client side.\n\n| write | p50 | p90 | p99 | max |\n|---|---|---|---|---|\n"
        + Latencies.row("POST statefulset (create)", creates) + Latencies.row("PATCH statefulset (spec change)", patches)
        + Latencies.row("DELETE statefulset (background)", deletes);
    Path out = Path.of("target", "benchmarks", "write-latency.md");
    Files.createDirectories(out.getParent());
    Files.writeString(out, report);
    System.out.println(report);
  }

}
