package io.ordinal.e2e;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.sql.DriverManager;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A long run of steady churn (`./ordinal bench Soak`: an hour, or -Dordinal.soak.minutes; two
 * minute in the test suite): sets scaled, rolled out, paused and resumed, undone, a set whose pods
 * keep crashing, and the service killed with SIGKILL every ten minutes (once in the suite). Every
 * 30 s (10 s in the suite) it samples what could grow without bound: the service's memory, the data
 * on disk, the events, the watch log, the longest running workflow history. After the warm-up they
 * should stay flat; the report plots them.
 */
@E2eTest
@Tag("slow")
class SoakBenchmarkIT {
  static final String NS = "soak";
  static final List<String> SETS = List.of("alpha", "beta", "gamma", "delta");

  @Test
  void steadyChurnLeavesMemoryStorageEventsAndHistoriesFlat() throws Exception {
    Duration length = Duration.ofMinutes(Bench.full() ? Long.getLong("ordinal.soak.minutes", 60) : 1);
    Duration sampleEvery = Duration.ofSeconds(Bench.full() ? 30 : 10);
    Duration killEvery = Bench.full() ? Duration.ofMinutes(10) : length.dividedBy(2);
    // Events last 10 minutes here (an hour by default) and the watch log 5 (15), so that both reach
    // their plateau well inside the hour; in the suite's one minute, 30 s each.
    String ttl = Bench.full() ? "10m" : "30s";
    String retention = Bench.full() ? "5m" : "30s";
    Random random = new Random(20261127);
    List<Double> seconds = new ArrayList<>();
    Map<String, List<Double>> memory = series("JVM resident MiB", "JVM heap after GC MiB");
    Map<String, List<Double>> storage = series("PostgreSQL data MiB", "Temporal data MiB");
    Map<String, List<Double>> counts = series("events", "watch log entries", "longest running history (events)");
    int operations = 0;
    int kills = 0;
    try (OrdinalService service = new OrdinalService("soak", Map.of("ORDINAL_DRIVER", "sim",
        "ORDINAL_EVENTS_TTL", ttl, "ORDINAL_WATCH_RETENTION", retention))) {
      service.start();
      Api api = service.api();
      for (String set : SETS) {
        api.createSet(NS, Manifests.web(set, 3, 0, Map.of("SIM_READY_DELAY_MS", "300")));
      }
      ObjectNode crashing = Manifests.web("crashing", 2, 0, Map.of("SIM_CRASH_AFTER_MS", "5000"));
      api.createSet(NS, crashing);
      long start = System.nanoTime();
      long nextSample = 0;
      long nextKill = killEvery.toNanos();
      while (System.nanoTime() - start < length.toNanos()) {
        long now = System.nanoTime() - start;
        if (now >= nextSample) {
          seconds.add(now / 1e9);
          sample(service, api, memory, storage, counts);
          nextSample += sampleEvery.toNanos();
        }
        if (now >= nextKill) {
          service.kill9();
          service.start();
          kills++;
          nextKill += killEvery.toNanos();
        }
        churn(api, SETS.get(random.nextInt(SETS.size())), random);
        operations++;
        Api.sleep(1_000);
      }
      seconds.add((System.nanoTime() - start) / 1e9);
      sample(service, api, memory, storage, counts);
    }
    // Each metric a quarter in (after the warm-up), half-way, at the end, and its most.
    StringBuilder table = new StringBuilder("| sampled | a quarter in | half-way | at the end | most |\n|---|---|---|---|---|\n");
    for (Map<String, List<Double>> group : List.of(memory, storage, counts)) {
      group.forEach((label, values) -> table.append("| %s | %.1f | %.1f | %.1f | %.1f |%n".formatted(label,
          values.get(values.size() / 4), values.get(values.size() / 2), values.getLast(),
          values.stream().mapToDouble(Double::doubleValue).max().orElse(0))));
    }
    new Bench.Report("soak", "Soak: steady churn for " + length.toMinutes() + " minutes")
        .text("""
            One service (sim driver), namespace `soak`: four sets of 3 pods, each second one operation on one
            of them at random (a scale to 1–6 replicas, a rollout, a pause then resume, an undo), and a set
            of 2 pods that crash 5 s after each start, all run long; %d operations; the service killed with
            SIGKILL %d times (each time started again on the same data dir). Events expired after %s and
            the watch log after %s (defaults: an hour and 15 minutes), so that both reach their plateau in
            the run; expiry runs every minute. Sampled every %d s.""".formatted(
            operations, kills, ttl, retention, sampleEvery.toSeconds()))
        .text(table.toString())
        .timeSeries("memory", "Service memory", "MiB", seconds, memory)
        .timeSeries("storage", "Data on disk", "MiB", seconds, storage)
        .timeSeries("counts", "Events, watch log, longest running history", "count", seconds, counts)
        .write();
  }

  private static Map<String, List<Double>> series(String... labels) {
    Map<String, List<Double>> series = new LinkedHashMap<>();
    for (String label : labels) {
      series.put(label, new ArrayList<>());
    }
    return series;
  }

  /** One operation on {@code set}: what an autoscaler and a team do to a set all day. */
  private static void churn(Api api, String set, Random random) {
    String path = Paths.set(NS, set);
    switch (random.nextInt(4)) {
      case 0 -> api.patchSet(NS, set, "{\"spec\":{\"replicas\":" + (1 + random.nextInt(6)) + "}}");
      case 1 -> api.setImage(NS, set, "k8s.gcr.io/nginx-slim:0." + (7 + random.nextInt(3)));
      case 2 -> {
        api.post(path + "/rollout/pause", null, null);
        api.post(path + "/rollout/resume", null, null);
      }
      default -> api.post(path + "/rollout/undo", "application/json", "{}");
    }
  }

  private static void sample(OrdinalService service, Api api, Map<String, List<Double>> memory,
      Map<String, List<Double>> storage, Map<String, List<Double>> counts) throws Exception {
    ProcessHandle jvm = service.handle();
    memory.get("JVM resident MiB").add(ProcessUsage.residentMiB(jvm));
    memory.get("JVM heap after GC MiB").add(ProcessUsage.heapUsedAfterGcMiB(jvm.pid()));
    storage.get("PostgreSQL data MiB").add(ProcessUsage.directoryMiB(service.dataDir.resolve("postgres")));
    storage.get("Temporal data MiB").add(ProcessUsage.directoryMiB(service.dataDir.resolve("temporal")));
    counts.get("events").add((double) api.get("/api/v1/events").json().path("items").size());
    try (var c = DriverManager.getConnection(service.jdbcUrl("ordinal"), "ordinal", service.databasePassword("ordinal"));
         var rows = c.createStatement().executeQuery("SELECT count(*) FROM watch_log")) {
      rows.next();
      counts.get("watch log entries").add((double) rows.getLong(1));
    }
    counts.get("longest running history (events)").add((double) service.<Long>withTemporal(client ->
        client.listExecutions("ExecutionStatus = 'Running'").mapToLong(listed -> client.newUntypedWorkflowStub(
                listed.getExecution().getWorkflowId(), Optional.of(listed.getExecution().getRunId()), Optional.empty())
            .describe().getWorkflowExecutionInfo().getHistoryLength()).max().orElse(0)));
  }
}
