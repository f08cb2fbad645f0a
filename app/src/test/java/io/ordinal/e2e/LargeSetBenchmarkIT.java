package io.ordinal.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * One large OrderedReady set (sim driver, Ready at once, maxUnavailable 1): scale 0 → N, then a
 * rollout of every pod, timed from server timestamps, and the most history events any workflow run
 * of it had.
 */
@E2eTest
@Tag("slow")
class LargeSetBenchmarkIT {

  @Test
  void largeOrderedSetScalesAndRollsOut() throws Exception {
    int replicas = Bench.size(30, 1000);
    Bench.Figure scale = new Bench.Figure("scale 0 → " + replicas + ", set created → last pod Ready", "s",
        replicas == 1000 ? "≤ 20 s" : "");
    Bench.Figure rollout = new Bench.Figure("rollout of " + replicas + " pods, PATCH → last new pod Ready", "s",
        replicas == 1000 ? "≤ 40 s" : "");
    Bench.Figure events = new Bench.Figure("most events in one workflow run", "", "< 10 000");
    Map<String, List<Double>> readyOverTime = new LinkedHashMap<>();
    for (int run = 0; run < Bench.runs(2); run++) {
      String ns = "large-" + run;
      try (OrdinalService service = new OrdinalService("large-bench")) {
        service.start();
        Api api = service.api();
        ObjectNode set = Manifests.web("web", replicas, 0, Map.of());
        ((ObjectNode) set.get("spec")).put("podManagementPolicy", "OrderedReady");
        api.createSet(ns, set);
        String first = api.awaitConverged(ns, "web", replicas, Duration.ofMinutes(20)).at("/status/currentRevision").asText();
        long created = Pods.created(api.set(ns, "web"));
        List<Double> scaleSeconds = api.pods(ns, "app=web").stream().map(p -> (Pods.readySince(p) - created) / 1000.0).toList();
        scale.add(scaleSeconds.stream().mapToDouble(Double::doubleValue).max().orElseThrow());

        long patched = System.currentTimeMillis();
        api.setImage(ns, "web", "k8s.gcr.io/nginx-slim:0.9");
        api.await(Paths.set(ns, "web") + "/status", Duration.ofMinutes(20), r -> {
          JsonNode s = r.json().path("status");
          return !s.path("currentRevision").asText().equals(first) && s.path("updatedReplicas").asInt() == replicas
              && s.path("readyReplicas").asInt() == replicas;
        });
        List<Double> rolloutSeconds = api.pods(ns, "app=web").stream().map(p -> (Pods.readySince(p) - patched) / 1000.0).toList();
        rollout.add(rolloutSeconds.stream().mapToDouble(Double::doubleValue).max().orElseThrow());
        readyOverTime.putIfAbsent("scale, pods Ready", scaleSeconds);
        readyOverTime.putIfAbsent("rollout, new pods Ready", rolloutSeconds);

        events.add(service.<Long>withTemporal(client -> client.listExecutions("OrdinalNamespace = '" + ns + "'")
            .mapToLong(listed -> client.newUntypedWorkflowStub(listed.getExecution().getWorkflowId(),
                Optional.of(listed.getExecution().getRunId()), Optional.empty()).describe()
                .getWorkflowExecutionInfo().getHistoryLength())
            .max().orElse(0)));
      }
    }
    int parallelReplicas = Bench.size(50, 5000);
    List<Bench.Figure> parallel = veryLargeParallelScale(parallelReplicas);
    new Bench.Report("large-set", "A large ordered set")
        .text("""
            One set of %d pods, OrderedReady, RollingUpdate with maxUnavailable 1, sim driver (pods Ready as
            soon as created), on a fresh service per run. Times from server timestamps: the set's
            creationTimestamp (the rollout: the PATCH sent) to the last pod's Ready lastTransitionTime.""".formatted(replicas))
        .figures(List.of(scale, rollout, events))
        .text("""
            Then, once, a Parallel set of %s pods (sim driver, Ready at once) on a fresh service: created, timed
            the same way, the service's resident memory sampled every second meanwhile and its heap after a full
            collection at the end (`jcmd GC.heap_info` after `GC.run`), the workflow runs' history events and the
            sizes of PostgreSQL's and the Temporal dev server's data directories once every pod was Ready.""".formatted(
            parallelReplicas))
        .figures(parallel)
        .overTime("ready", "Pods Ready over time (first run)", "pods Ready", readyOverTime)
        .write();
  }

  /** A Parallel set of {@code replicas} created once: its time, memory, histories and data on disk. */
  private static List<Bench.Figure> veryLargeParallelScale(int replicas) throws Exception {
    Bench.Figure scale = new Bench.Figure(replicas + " replicas Parallel, set created → last pod Ready", "s", "");
    Bench.Figure rate = new Bench.Figure(replicas + " replicas Parallel, pods Ready per second", "", "");
    Bench.Figure rss = new Bench.Figure("JVM resident memory, most while they were created", "MiB", "");
    Bench.Figure heap = new Bench.Figure("JVM heap used after a full collection, every pod Ready", "MiB", "");
    Bench.Figure mostEvents = new Bench.Figure("most events in one workflow run", "", "< 10 000");
    Bench.Figure allEvents = new Bench.Figure("history events of all the set's workflow runs", "", "");
    Bench.Figure postgres = new Bench.Figure("PostgreSQL data directory", "MiB", "");
    Bench.Figure temporal = new Bench.Figure("Temporal dev server data directory", "MiB", "");
    String ns = "parallel";
    try (OrdinalService service = new OrdinalService("large-parallel-bench")) {
      service.start();
      Api api = service.api();
      ObjectNode set = Manifests.web("web", replicas, 0, Map.of());
      ((ObjectNode) set.get("spec")).put("podManagementPolicy", "Parallel");
      double[] peak = {0};
      try (var sampler = java.util.concurrent.Executors.newSingleThreadScheduledExecutor()) {
        sampler.scheduleAtFixedRate(() -> peak[0] = Math.max(peak[0], ProcessUsage.residentMiB(service.handle())),
            0, 1, java.util.concurrent.TimeUnit.SECONDS);
        api.createSet(ns, set);
        // The set's status alone: a LIST of every pod per poll would be most of the load.
        api.await(Paths.set(ns, "web") + "/status", Duration.ofMinutes(30), r -> r.code() == 200
            && r.json().at("/status/readyReplicas").asInt() == replicas);
        sampler.shutdownNow();
      }
      long created = Pods.created(api.set(ns, "web"));
      double last = api.pods(ns, "app=web").stream().mapToLong(Pods::readySince).max().orElseThrow();
      scale.add((last - created) / 1000.0);
      rate.add(replicas / ((last - created) / 1000.0));
      rss.add(peak[0]);
      heap.add(ProcessUsage.heapUsedAfterGcMiB(service.handle().pid()));
      List<Long> lengths = service.<List<Long>>withTemporal(client -> client.listExecutions("OrdinalNamespace = '" + ns + "'")
          .map(listed -> client.newUntypedWorkflowStub(listed.getExecution().getWorkflowId(),
              Optional.of(listed.getExecution().getRunId()), Optional.empty()).describe()
              .getWorkflowExecutionInfo().getHistoryLength())
          .toList());
      mostEvents.add(lengths.stream().mapToLong(Long::longValue).max().orElse(0));
      allEvents.add(lengths.stream().mapToLong(Long::longValue).sum());
      postgres.add(ProcessUsage.directoryMiB(service.dataDir.resolve("postgres")));
      temporal.add(ProcessUsage.directoryMiB(service.dataDir.resolve("temporal")));
    }
    return List.of(scale, rate, rss, heap, mostEvents, allEvents, postgres, temporal);
  }
}
