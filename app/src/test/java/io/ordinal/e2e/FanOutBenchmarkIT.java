package io.ordinal.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Many sets at once on one service (sim driver, Parallel, 10 pods each by default): all created
 * together, then all rolled together (image change, maxUnavailable 1), while readers GET sets and
 * LIST pods at a fixed rate and the benchmark follows the sets through a watch, not by polling.
 * Also the service's memory (idle, and under this load) and its CPU with every set idle.
 */
@E2eTest
@Tag("slow")
class FanOutBenchmarkIT {
  private static final String IMAGE = "k8s.gcr.io/nginx-slim:0.9";

  @Test
  void manySetsCreatedAndRolledAtOnceWhileClientsReadAndWatch() throws Exception {
    int namespaces = Bench.size(2, 10);
    int setsPerNamespace = Bench.size(3, 20);
    int replicas = Bench.size(4, 10);
    int readRate = Bench.size(20, 200);
    int idleSeconds = Bench.size(5, 30);
    int sets = namespaces * setsPerNamespace;
    int pods = sets * replicas;
    Duration timeout = Duration.ofMinutes(10);

    Bench.Figure createRate = new Bench.Figure(sets + " sets × " + replicas + " pods created at once: pods/s, first create → last Ready",
        "", "≥ 300");
    Bench.Figure rolloutRate = new Bench.Figure(sets + " sets rolled at once: pod replacements/s, first PATCH → last Ready", "",
        "≥ 200");
    Bench.Figure readP99Creation = new Bench.Figure("GET set / LIST pods p99 at " + readRate + " req/s during creation", "ms",
        "≤ 20 ms");
    Bench.Figure readP99Rollout = new Bench.Figure("GET set / LIST pods p99 at " + readRate + " req/s during the rollout", "ms",
        "≤ 20 ms");
    Bench.Figure readErrors = new Bench.Figure("reads that did not answer 200 (timeouts, 404 before a set exists)", "", "");
    Bench.Figure rssIdle = new Bench.Figure("JVM resident memory, started, no sets", "MiB", "");
    Bench.Figure rssLoaded = new Bench.Figure("JVM resident memory, most during the run", "MiB", "");
    Bench.Figure idleCpu = new Bench.Figure("CPU with " + sets + " idle sets, JVM (share of one core)", "%", "near 0");
    Bench.Figure idleCpuAll = new Bench.Figure("CPU with " + sets + " idle sets, JVM + Temporal + PostgreSQL", "%", "");
    Map<String, Bench.Figure> cpuPerPod = new LinkedHashMap<>();
    for (String phase : List.of("created", "replaced")) {
      for (String component : CpuSplit.COMPONENTS) {
        cpuPerPod.put(phase + component, new Bench.Figure("CPU per pod " + phase + ", " + component, "ms",
            phase.equals("created") && component.equals("all") ? "≤ 8 ms" : ""));
      }
    }
    Map<String, List<Double>> reads = new LinkedHashMap<>();
    reads.put("during creation", new ArrayList<>());
    reads.put("during rollout", new ArrayList<>());
    Map<String, List<Double>> readyOverTime = new LinkedHashMap<>();
    long watchEvents = 0;

    for (int run = 0; run < Bench.runs(2); run++) {
      try (OrdinalService service = new OrdinalService("fan-out")) {
        service.start();
        Api api = service.api();
        ProcessHandle jvm = service.handle();
        Thread.sleep(3_000);
        rssIdle.add(ProcessUsage.residentMiB(jvm));
        List<String> nsNames = new ArrayList<>();
        for (int n = 0; n < namespaces; n++) {
          nsNames.add("fan-" + n);
        }
        Map<String, JsonNode> latest = new ConcurrentHashMap<>();
        List<WatchStream> watches = new ArrayList<>();
        watches.add(new WatchStream(api, "/apis/apps/v1/statefulsets", event -> {
          JsonNode set = event.path("object");
          latest.put(key(set), set);
          synchronized (latest) {
            latest.notifyAll();
          }
        }));
        for (String ns : nsNames) {
          watches.add(new WatchStream(api, Paths.core(ns, "pods"), event -> { }));
        }
        List<Double> creationReads = Collections.synchronizedList(new ArrayList<>());
        List<Double> rolloutReads = Collections.synchronizedList(new ArrayList<>());
        AtomicInteger failedReads = new AtomicInteger();
        AtomicReference<List<Double>> readSink = new AtomicReference<>(creationReads);
        double[] peakRss = {0};
        try (var readers = Executors.newSingleThreadScheduledExecutor();
            var requests = Executors.newVirtualThreadPerTaskExecutor()) {
          long[] tick = {0};
          readers.scheduleAtFixedRate(() -> {
            long i = tick[0]++;
            peakRss[0] = i % Math.max(1, readRate / 2) == 0 ? Math.max(peakRss[0], ProcessUsage.residentMiB(jvm)) : peakRss[0];
            String ns = nsNames.get((int) (i % namespaces));
            String set = "s" + (i / namespaces % setsPerNamespace);
            String path = i % 2 == 0 ? Paths.set(ns, set) : Paths.core(ns, "pods") + "?labelSelector=app%3D" + set;
            List<Double> sink = readSink.get();
            requests.submit(() -> {
              long start = System.nanoTime();
              try {
                if (api.get(path).code() == 200) {
                  sink.add((System.nanoTime() - start) / 1e6);
                  return;
                }
              } catch (RuntimeException e) {
                // timed out: counted below
              }
              failedReads.incrementAndGet();
            });
          }, 0, 1_000_000 / readRate, TimeUnit.MICROSECONDS);

          CpuSplit beforeCreation = CpuSplit.of(service);
          inParallel(nsNames, setsPerNamespace, (ns, name) -> {
            ObjectNode set = Manifests.web(name, replicas, 0, Map.of());
            ((ObjectNode) set.get("spec")).put("podManagementPolicy", "Parallel");
            assertEquals(201, api.createSet(ns, set).code());
          });
          awaitAll(latest, sets, timeout, set -> set.at("/status/readyReplicas").asInt() == replicas);
          List<JsonNode> created = allPods(api, nsNames);
          assertEquals(pods, created.size());
          long first = created.stream().mapToLong(Pods::created).min().orElseThrow();
          List<Double> readySeconds = created.stream().map(pod -> (Pods.readySince(pod) - first) / 1000.0).toList();
          createRate.add(pods / Collections.max(readySeconds));
          readyOverTime.putIfAbsent("creation, pods Ready", readySeconds);

          CpuSplit.of(service).minus(beforeCreation).perPod(pods)
              .forEach((component, ms) -> cpuPerPod.get("created" + component).add(ms));
          readSink.set(rolloutReads);
          CpuSplit beforeRollout = CpuSplit.of(service);
          Map<String, String> before = new ConcurrentHashMap<>();
          latest.forEach((key, set) -> before.put(key, set.at("/status/currentRevision").asText()));
          long firstPatch = System.currentTimeMillis();
          inParallel(nsNames, setsPerNamespace, (ns, name) -> assertEquals(200, api.setImage(ns, name, IMAGE).code()));
          awaitAll(latest, sets, timeout, set -> set.at("/status/updatedReplicas").asInt() == replicas
              && set.at("/status/readyReplicas").asInt() == replicas
              && !set.at("/status/currentRevision").asText().equals(before.get(key(set)))
              && set.at("/status/currentRevision").asText().equals(set.at("/status/updateRevision").asText()));
          List<Double> replacedSeconds = allPods(api, nsNames).stream()
              .map(pod -> (Pods.readySince(pod) - firstPatch) / 1000.0).toList();
          rolloutRate.add(pods / Collections.max(replacedSeconds));
          CpuSplit.of(service).minus(beforeRollout).perPod(pods)
              .forEach((component, ms) -> cpuPerPod.get("replaced" + component).add(ms));
          readyOverTime.putIfAbsent("rollout, new pods Ready", replacedSeconds);
          readers.shutdownNow();
        }
        rssLoaded.add(peakRss[0]);
        readP99Creation.add(Latencies.at(Bench.sorted(creationReads), 0.99));
        readP99Rollout.add(Latencies.at(Bench.sorted(rolloutReads), 0.99));
        readErrors.add(failedReads.get());
        reads.get("during creation").addAll(creationReads);
        reads.get("during rollout").addAll(rolloutReads);

        Thread.sleep(3_000); // let the last status writes settle
        double jvmCpu = ProcessUsage.cpuSeconds(jvm);
        double allCpu = allCpuSeconds(service);
        Thread.sleep(idleSeconds * 1000L);
        idleCpu.add(100 * (ProcessUsage.cpuSeconds(jvm) - jvmCpu) / idleSeconds);
        idleCpuAll.add(100 * (allCpuSeconds(service) - allCpu) / idleSeconds);
        for (WatchStream watch : watches) {
          watchEvents += watch.events();
          watch.close();
        }
      }
    }
    new Bench.Report("fan-out", "Fan-out: many sets created and rolled at once")
        .text("""
            %d sets of %d pods (sim driver, Parallel, Ready at once) in %d namespaces, on a fresh service per run
            (heap capped as the launcher caps it, 512 MiB by default). All sets are POSTed together (16 at a time), then
            all get a new image together (RollingUpdate, maxUnavailable 1). Meanwhile readers send %d requests/s,
            half GET of a set and half LIST of a set's pods by label selector, open loop (latencies of the
            answers 200; the others are counted); the benchmark follows
            the sets with one watch of all statefulsets, and %d more clients watch each namespace's pods (%d
            watch events received over all runs). Rates are from server timestamps: pod creationTimestamp and
            Ready lastTransitionTime (the rollout starts at the first PATCH sent). Idle CPU is measured over %d s
            after the rollout, with every set converged. CPU per pod is the CPU time each process used from the
            first POST until every set was Ready (from the first PATCH until every set was rolled), over the
            pods created (replaced), from procfs: the JVM, the Temporal dev server (the JVM's children), PostgreSQL
            (its postmaster and backends); the readers' requests are in it.""".formatted(sets, replicas, namespaces, readRate, namespaces,
            watchEvents, idleSeconds))
        .figures(Stream.concat(Stream.of(createRate, rolloutRate, readP99Creation, readP99Rollout, readErrors, rssIdle,
            rssLoaded, idleCpu, idleCpuAll), cpuPerPod.values().stream()).toList())
        .latencies("Every read of every run:", reads)
        .distribution("reads", "GET set / LIST pods latency under load", reads)
        .overTime("ready", "Pods Ready over time (first run)", "pods Ready", readyOverTime)
        .bars("cpu", "CPU per pod, by process (medians over the runs)", "CPU ms per pod", List.of("created", "replaced"),
            cpuSplit(cpuPerPod))
        .write();
  }

  /** CPU seconds of the service's JVM, its Temporal dev server and its PostgreSQL (with their children). */
  private static double allCpuSeconds(OrdinalService service) {
    return ProcessUsage.cpuSecondsWithDescendants(service.handle())
        + service.postgres().map(ProcessUsage::cpuSecondsWithDescendants).orElse(0.0);
  }

  /** The per-pod CPU figures' medians, by component (all but "all"), in the phases' order. */
  private static Map<String, List<Double>> cpuSplit(Map<String, Bench.Figure> cpuPerPod) {
    Map<String, List<Double>> split = new LinkedHashMap<>();
    for (String component : CpuSplit.COMPONENTS.subList(0, 3)) {
      split.put(component, List.of(cpuPerPod.get("created" + component).median(), cpuPerPod.get("replaced" + component).median()));
    }
    return split;
  }

  /** CPU seconds used so far by the JVM, the Temporal dev server and PostgreSQL. */
  private record CpuSplit(double jvm, double temporal, double postgres) {
    static final List<String> COMPONENTS = List.of("JVM", "Temporal", "PostgreSQL", "all");

    static CpuSplit of(OrdinalService service) {
      List<ProcessHandle> postgres = service.postgres().stream()
          .flatMap(postmaster -> Stream.concat(Stream.of(postmaster), postmaster.descendants())).toList();
      return new CpuSplit(ProcessUsage.cpuSeconds(service.handle()),
          service.handle().descendants().filter(p -> !postgres.contains(p)).mapToDouble(ProcessUsage::cpuSeconds).sum(),
          postgres.stream().mapToDouble(ProcessUsage::cpuSeconds).sum());
    }

    CpuSplit minus(CpuSplit earlier) {
      return new CpuSplit(jvm - earlier.jvm, temporal - earlier.temporal, postgres - earlier.postgres);
    }

    /** Milliseconds per pod, by component (in {@link #COMPONENTS}' order). */
    Map<String, Double> perPod(int pods) {
      Map<String, Double> ms = new LinkedHashMap<>();
      ms.put("JVM", 1000 * jvm / pods);
      ms.put("Temporal", 1000 * temporal / pods);
      ms.put("PostgreSQL", 1000 * postgres / pods);
      ms.put("all", 1000 * (jvm + temporal + postgres) / pods);
      return ms;
    }
  }

  private static String key(JsonNode set) {
    return set.at("/metadata/namespace").asText() + "/" + set.at("/metadata/name").asText();
  }

  /** Runs one write per set (namespace, set name s0, s1, ...), 16 at a time. */
  private static void inParallel(List<String> namespaces, int setsPerNamespace, java.util.function.BiConsumer<String, String> write)
      throws Exception {
    try (var pool = Executors.newFixedThreadPool(16, Thread.ofVirtual().factory())) {
      List<java.util.concurrent.Future<?>> futures = new ArrayList<>();
      for (int s = 0; s < setsPerNamespace; s++) {
        for (String ns : namespaces) {
          String name = "s" + s;
          futures.add(pool.submit(() -> write.accept(ns, name)));
        }
      }
      for (var future : futures) {
        future.get();
      }
    }
  }

  /** Waits, on the watch's events, until {@code count} sets all satisfy {@code done}. */
  private static void awaitAll(Map<String, JsonNode> latest, int count, Duration timeout, Predicate<JsonNode> done)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    synchronized (latest) {
      while (latest.size() < count || !latest.values().stream().allMatch(done)) {
        long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
        if (left <= 0) {
          throw new AssertionError("not every set got there within " + timeout + ": "
              + latest.values().stream().filter(done.negate()).map(s -> key(s) + " " + s.path("status")).limit(3).toList());
        }
        latest.wait(Math.min(left, 1_000));
      }
    }
  }

  private static List<JsonNode> allPods(Api api, List<String> namespaces) {
    List<JsonNode> pods = new ArrayList<>();
    for (String ns : namespaces) {
      api.get(Paths.core(ns, "pods")).json().path("items").forEach(pods::add);
    }
    return pods;
  }
}
