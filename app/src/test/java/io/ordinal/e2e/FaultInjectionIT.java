package io.ordinal.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.ordinal.driver.ProcStat;
import io.ordinal.driver.Signals;
import io.ordinal.model.OrdinalRange;
import io.ordinal.store.KubeJson;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Fault injection against the real stack (service process, Temporal dev server, PostgreSQL; sim
 * and local drivers). While sets scale and roll out, faults land at random instants: kill -9 of
 * the service and a restart, a stop and restart of the Temporal dev server, of PostgreSQL,
 * deletion of random pods, a local pod's process killed. An invariant checker samples throughout
 * and checks again at the end. CI runs a short trial ({@code ordinal.faults.kills}, default 3
 * service kills); the long run is documented in docs/RELIABILITY.md. Figures go to
 * {@code app/target/benchmarks/fault-injection.md}.
 */
@Tag("slow")
class FaultInjectionIT {
  static final int KILLS = Integer.getInteger("ordinal.faults.kills", 3);
  static final long SEED = Long.getLong("ordinal.faults.seed", 20261122L);
  static final String NS = "faults";
  static final List<String> SIM_SETS = List.of("ordered", "ordered-minready", "parallel");
  static final String LOCAL_SET = "local";
  /** The set whose PVCs go with its condemned pods and with it (retention Delete/Delete); the others Retain. */
  static final String RECLAIMING_SET = "parallel";
  /** Member 1 of this set has an override of its own (ordinal.io/member-overrides), changed now and then. */
  static final String OVERRIDE_SET = "ordered-minready";
  static final Duration CONVERGE = Duration.ofMinutes(5);

  final Random random = new Random(SEED);
  final Map<String, Integer> faults = new TreeMap<>();
  final List<String> violations = Collections.synchronizedList(new ArrayList<>());
  final List<String> sets = new ArrayList<>();
  OrdinalService service;
  Api api;
  /** Helpers this harness relaunched itself (Temporal, PostgreSQL): stopped at the end. */
  final List<Long> relaunched = new ArrayList<>();

  @Test
  void invariantsHoldWhileTheServiceTemporalAndPostgresCrashAndPodsDie() throws Exception {
    service = new OrdinalService("faults", Map.of("ORDINAL_DRIVER", "sim", "ORDINAL_WATCH_RETENTION", "24h"));
    Checker checker = null;
    try {
      service.start();
      api = service.api();
      createSets();
      checkerSeesADuplicateProcess();
      checker = new Checker();
      checker.start();
      Instant start = Instant.now();
      int kills = 0;
      while (kills < KILLS) {
        changeSpec();
        Api.sleep(500 + random.nextInt(2500));
        int dice = random.nextInt(100);
        if (dice < 35) {
          killService();
          kills++;
        } else if (dice < 45) {
          restartTemporal();
        } else if (dice < 55) {
          restartPostgres();
        } else if (dice < 80) {
          deletePod();
        } else {
          killLocalProcess();
        }
      }
      Instant lastFault = Instant.now();
      service.awaitHealthy(Duration.ofMinutes(2));
      for (String set : sets) {
        awaitConverged(set);
      }
      Duration converge = Duration.between(lastFault, Instant.now());
      checker.stop();
      checker.finalChecks();
      report(Duration.between(start, lastFault), converge, checker);
      assertEquals(List.of(), violations, "invariant violations");
    } finally {
      if (checker != null) {
        checker.stop();
      }
      service.close();
      relaunched.forEach(pid -> ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly));
    }
  }

  // ---- workload ----

  void createSets() {
    for (String name : SIM_SETS) {
      ObjectNode set = Manifests.web(name, 3, name.endsWith("minready") ? 1 : 0, Map.of("SIM_READY_DELAY_MS", "200"));
      if (name.equals("parallel")) {
        ((ObjectNode) set.get("spec")).put("podManagementPolicy", "Parallel");
      }
      if (name.equals(OVERRIDE_SET)) {
        ((ObjectNode) set.get("metadata")).with("annotations").put("ordinal.io/member-overrides", memberOverride(0));
      }
      if (name.equals(RECLAIMING_SET)) {
        ((ObjectNode) set.get("spec")).putObject("persistentVolumeClaimRetentionPolicy")
            .put("whenScaled", "Delete").put("whenDeleted", "Delete");
      }
      api.createSet(NS, set);
      sets.add(name);
    }
    // Its image changes are made in place: containers restarted in their pods, through the faults too.
    ObjectNode local = Manifests.commandSet(LOCAL_SET, 3, "/bin/sh", "-c", "exec sleep 100000");
    ((ObjectNode) local.get("metadata")).with("annotations").put("ordinal.io/pod-update-policy", "InPlaceIfPossible");
    api.createSet(NS, local);
    sets.add(LOCAL_SET);
    for (String name : sets) {
      api.awaitConverged(NS, name, 3, CONVERGE);
    }
  }

  /** Spec changes made so far; whether ordinal 1 of the reclaiming set was last reserved. */
  int changes;
  boolean reservedLast;

  /**
   * A scale or a template change of a random set, or ordinal 1 of the reclaiming set reserved or
   * given back; refused or failed writes (an outage) are fine.
   */
  void changeSpec() {
    int kind = changes++ % 3; // in turn, so that even the suite's short trial reserves and gives back
    // Template changes in turn: the local set's image (made in place), member 1's override of the
    // override set (a rollout of that member alone), a random set's template.
    int turn = (changes / 3) % 3;
    String name = kind == 2 ? RECLAIMING_SET : kind == 1 && turn == 0 ? LOCAL_SET : kind == 1 && turn == 1 ? OVERRIDE_SET
        : randomSet();
    String path = Paths.set(NS, name);
    if (kind == 2) {
      reservedLast = !reservedLast;
    }
    boolean reserve = reservedLast;
    try {
      String patch = switch (kind) {
        case 0 -> "{\"spec\":{\"replicas\":" + (1 + random.nextInt(5)) + "}}";
        case 1 -> "{\"spec\":{\"template\":{\"metadata\":{\"annotations\":{\"release\":\"" + random.nextInt(1_000_000) + "\"}}}}}";
        default -> "{\"metadata\":{\"annotations\":{\"ordinal.io/reserved-ordinals\":" + (reserve ? "\"1\"" : "null") + "}}}";
      };
      boolean inPlace = kind == 1 && name.equals(LOCAL_SET);
      boolean override = kind == 1 && turn == 1;
      if (override) {
        ObjectNode annotations = KubeJson.JSON.createObjectNode();
        annotations.putObject("metadata").putObject("annotations")
            .put("ordinal.io/member-overrides", memberOverride(random.nextInt(1_000_000)));
        patch = annotations.toString();
      }
      Api.Reply reply = inPlace
          ? api.patch(path, "application/json-patch+json", Manifests.imagePatch("sleeper:" + random.nextInt(1_000_000)))
          : api.patch(path, "application/merge-patch+json", patch);
      int code = reply.code();
      expectNoInternalError(reply, "PATCH " + path);
      String change = switch (kind) {
        case 0 -> "scale";
        case 1 -> inPlace ? "rollout in place (image change)" : override ? "rollout of member 1 (override change)"
            : "rollout (template change)";
        default -> reserve ? "ordinal reserved" : "reservation lifted";
      };
      count(code == 200 ? change : "write answered " + code + " (outage)");
    } catch (IllegalStateException e) {
      count("write refused during an outage");
    }
  }

  // ---- faults ----

  void killService() throws Exception {
    service.kill9();
    Api.sleep(random.nextInt(2000));
    service.start();
    count("kill -9 of the service");
  }

  void restartTemporal() throws Exception {
    Path pidFile = service.dataDir.resolve("temporal/temporal.pid");
    long pid = relaunch(pidFile, "TERM", service.dataDir.resolve("temporal.log"));
    Files.writeString(pidFile, pid + "\n"); // the next service start must find it, as its own
    count("Temporal dev server stopped and restarted");
  }

  /**
   * A fast shutdown (every connection is cut), an outage, then pg_ctl start with the options the
   * postmaster had, inside a user namespace as zonky's embedded PostgreSQL starts it (PostgreSQL
   * refuses to run as root).
   */
  void restartPostgres() throws Exception {
    Path dir = service.dataDir.resolve("postgres");
    long pid = Long.parseLong(Files.readAllLines(dir.resolve("postmaster.pid")).get(0).trim());
    String pgCtl = Path.of("/proc", Long.toString(pid), "exe").toRealPath().resolveSibling("pg_ctl").toString();
    List<String> options = new ArrayList<>();
    Matcher quoted = Pattern.compile("\"([^\"]*)\"").matcher(Files.readString(dir.resolve("postmaster.opts")));
    while (quoted.find()) {
      options.add(quoted.group(1));
    }
    options.subList(0, 2).clear(); // "-D" "<dir>": given to pg_ctl itself
    Signals.send(pid, "INT"); // what pg_ctl stop -m fast sends
    ProcessHandle.of(pid).ifPresent(p -> p.onExit().orTimeout(60, TimeUnit.SECONDS).join());
    Api.sleep(random.nextInt(3000)); // the outage
    run("/usr/bin/unshare", "-U", pgCtl, "start", "-D", dir.toString(), "-w", "-t", "60",
        "-l", service.dataDir.resolve("postgres.log").toString(), "-o", String.join(" ", options));
    count("PostgreSQL stopped and restarted");
  }

  static void run(String... command) throws Exception {
    Command.Result result = Command.run(Duration.ofMinutes(2), command);
    assertEquals(0, result.code(), String.join(" ", command) + ": " + result.output());
  }

  /** Stops the process named by {@code pidFile} and starts it again with the same command line. */
  long relaunch(Path pidFile, String signal, Path log) throws Exception {
    long pid = Long.parseLong(Files.readAllLines(pidFile).get(0).trim());
    ProcessHandle process = ProcessHandle.of(pid).orElseThrow();
    List<String> argv = new ArrayList<>(List.of(new String(Files.readAllBytes(Path.of("/proc", Long.toString(pid), "cmdline")))
        .split("\0")));
    // The binary itself: argv[0] may be a bare name that PATH would resolve to another program.
    argv.set(0, Path.of("/proc", Long.toString(pid), "exe").toRealPath().toString());
    Path cwd = Path.of("/proc", Long.toString(pid), "cwd").toRealPath();
    Signals.send(pid, signal);
    process.onExit().get(60, TimeUnit.SECONDS);
    Api.sleep(random.nextInt(3000)); // the outage
    List<String> command = new ArrayList<>(List.of("/usr/bin/setsid"));
    command.addAll(argv);
    Process started = new ProcessBuilder(command).directory(cwd.toFile()).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
    relaunched.add(started.pid());
    return started.pid();
  }

  void deletePod() {
    try {
      List<JsonNode> pods = api.pods(NS, "app=" + randomSet());
      if (!pods.isEmpty()) {
        api.delete(Paths.pod(NS, pods.get(random.nextInt(pods.size())).at("/metadata/name").asText()));
        count("pod deleted");
      }
    } catch (IllegalStateException e) {
      count("write refused during an outage");
    }
  }

  void killLocalProcess() {
    Map<String, List<Long>> processes = localProcesses();
    if (!processes.isEmpty()) {
      List<Long> pids = new ArrayList<>();
      processes.values().forEach(pids::addAll);
      ProcessHandle.of(pids.get(random.nextInt(pids.size()))).ifPresent(ProcessHandle::destroyForcibly);
      count("local pod process killed");
    }
  }

  String randomSet() {
    return sets.get(random.nextInt(sets.size()));
  }

  /** An outage may refuse a request (503), but an internal error (500) is a bug. */
  void expectNoInternalError(Api.Reply reply, String request) {
    if (reply.code() >= 500 && reply.code() != 503) {
      violations.add(request + " answered " + reply.code() + ": " + reply.body());
    }
  }

  void count(String fault) {
    faults.merge(fault, 1, Integer::sum);
  }

  void awaitConverged(String name) {
    // The stored spec is the truth (a write may have landed although its reply was lost).
    int wanted = api.set(NS, name).at("/spec/replicas").asInt();
    JsonNode set = api.await(Paths.set(NS, name) + "/status", CONVERGE, r -> {
      JsonNode s = r.json().path("status");
      return r.code() == 200 && r.json().at("/metadata/generation").asLong() == s.path("observedGeneration").asLong()
          && s.path("replicas").asInt() == wanted && s.path("availableReplicas").asInt() == wanted
          && s.path("updatedReplicas").asInt() == wanted
          && s.path("currentRevision").asText().equals(s.path("updateRevision").asText());
    });
    List<JsonNode> pods = api.pods(NS, "app=" + name);
    List<String> names = pods.stream().map(p -> p.at("/metadata/name").asText()).sorted().toList();
    List<String> expected = ordinals(name).stream().map(o -> name + "-" + o).sorted().toList();
    if (!names.equals(expected)) {
      violations.add(name + ": status says converged at " + wanted + " but its pods are " + names + ", not " + expected);
    }
    String revision = set.at("/status/updateRevision").asText();
    JsonNode spec = api.set(NS, name);
    String release = spec.at("/spec/template/metadata/annotations/release").asText();
    String member = spec.at("/metadata/annotations").path("ordinal.io/member-overrides").asText("");
    for (JsonNode pod : pods) {
      String podName = pod.at("/metadata/name").asText();
      if (name.equals(OVERRIDE_SET)) {
        // A pod a change of member 1's override left alone keeps the label of the revision it was made from.
        String override = pod.at("/metadata/annotations/member").asText();
        boolean memberOne = podName.equals(name + "-1");
        String label = pod.at("/metadata/labels/controller-revision-hash").asText();
        if (!label.equals(revision) && api.get(Paths.apps(NS, "controllerrevisions") + "/" + label).code() != 200) {
          violations.add(name + ": " + podName + " names revision " + label + ", which is gone");
        }
        if (!pod.at("/metadata/annotations/release").asText().equals(release)
            || memberOne != !override.isEmpty() || memberOne && !member.contains("member: \"" + override + "\"")) {
          violations.add(name + ": " + podName + " has not its ordinal's template after convergence (release "
              + pod.at("/metadata/annotations/release").asText() + ", member " + override + "; the set: " + release
              + ", " + member + ")");
        }
      } else if (!revision.equals(pod.at("/metadata/labels/controller-revision-hash").asText())) {
        violations.add(name + ": " + podName + " not on the update revision after convergence");
      }
    }
  }

  /** The override set's member overrides: member 1's pods carry annotation member={@code value}. */
  static String memberOverride(int value) {
    return "- {ordinals: \"1\", template: {metadata: {annotations: {member: \"" + value + "\"}}}}";
  }

  /** The ordinals the stored spec of set {@code name} asks for: its replicas, less its reserved ordinals. */
  List<Integer> ordinals(String name) {
    JsonNode set = api.set(NS, name);
    String reserved = set.at("/metadata/annotations/ordinal.io~1reserved-ordinals").asText("");
    List<Integer> reservedOrdinals = reserved.isEmpty() ? List.of() : List.of(Integer.parseInt(reserved));
    return new OrdinalRange(0, set.at("/spec/replicas").asInt(), reservedOrdinals).ordinals();
  }

  /**
   * Main processes of the local set's pods, by pod name (from their environment): each a process of
   * the set's environment whose parent is not (a container's first process, started by the runtime;
   * its children share its environment), wherever it came from, in the runtime or not.
   */
  Map<String, List<Long>> localProcesses() {
    Map<String, List<Long>> byPod = new HashMap<>();
    ProcessHandle.allProcesses().filter(ProcStat::running)
        .filter(p -> p.parent().map(parent -> !podEnvironment(parent)).orElse(true)).forEach(p -> {
      try {
        String environ = new String(Files.readAllBytes(Path.of("/proc", Long.toString(p.pid()), "environ")));
        for (String entry : environ.split("\0")) {
          if (entry.startsWith("POD_NAME=" + LOCAL_SET + "-") && environ.contains("POD_NAMESPACE=" + NS + "\0")) {
            byPod.computeIfAbsent(entry.substring("POD_NAME=".length()), k -> new ArrayList<>()).add(p.pid());
          }
        }
      } catch (IOException e) {
        // the process went away while we looked
      }
    });
    return byPod;
  }

  /** Whether the process has the local set's pod environment. */
  static boolean podEnvironment(ProcessHandle process) {
    try {
      String environ = new String(Files.readAllBytes(Path.of("/proc", Long.toString(process.pid()), "environ")));
      return environ.contains("POD_NAME=" + LOCAL_SET + "-") && environ.contains("POD_NAMESPACE=" + NS + "\0");
    } catch (IOException e) {
      return false;
    }
  }

  /** The process check can fail: a decoy second process for local-0 is seen as a duplicate. */
  void checkerSeesADuplicateProcess() throws Exception {
    Path log = Files.createDirectories(service.dataDir.resolve("local/decoy")).resolve("stdout.log");
    ProcessBuilder decoy = new ProcessBuilder("/usr/bin/setsid", "/bin/sleep", "100000").redirectOutput(log.toFile());
    decoy.environment().put("POD_NAME", LOCAL_SET + "-0");
    decoy.environment().put("POD_NAMESPACE", NS);
    Process process = decoy.start();
    try {
      assertEquals(2, localProcesses().get(LOCAL_SET + "-0").size(), "the checker misses a duplicate process");
    } finally {
      process.destroyForcibly().waitFor();
    }
  }

  // ---- invariants ----

  /** What the checker saw of one pod (one uid). */
  record PodRecord(String set, int ordinal, String uid, long createdMillis, long readySinceMillis) {}

  /** Samples pods, PVCs and local processes until stopped; then checks what it saw. */
  class Checker {
    final Map<String, PodRecord> pods = new ConcurrentHashMap<>();
    final Map<String, String> pvcs = new ConcurrentHashMap<>();
    volatile boolean running = true;
    int samples;
    int processSamples;
    int unverifiedOrdering;
    Thread thread;

    void start() {
      thread = Thread.ofPlatform().daemon().name("invariant-checker").start(() -> {
        while (running) {
          sampleProcesses();
          try {
            sampleApi();
          } catch (RuntimeException e) {
            // the service is down: only the process sample counts now
          }
          Api.sleep(200);
        }
      });
    }

    void stop() throws InterruptedException {
      running = false;
      if (thread != null) {
        thread.join(10_000);
      }
    }

    /** Never two live processes for one local pod identity. */
    void sampleProcesses() {
      processSamples++;
      localProcesses().forEach((pod, pids) -> {
        if (pids.size() > 1) {
          violations.add("two live processes for " + pod + ": " + pids);
        }
      });
    }

    void sampleApi() {
      // Claims first: a pod listed after them that was already seen before existed when they were listed.
      Set<String> seenBefore = Set.copyOf(pods.keySet());
      Api.Reply claims = api.get(Paths.core(NS, "persistentvolumeclaims"));
      Api.Reply list = api.get(Paths.core(NS, "pods"));
      expectNoInternalError(list, "GET pods");
      expectNoInternalError(claims, "GET persistentvolumeclaims");
      if (list.code() != 200 || claims.code() != 200) {
        return;
      }
      samples++;
      for (JsonNode pod : list.json().path("items")) {
        String uid = pod.at("/metadata/uid").asText();
        long ready = 0;
        for (JsonNode c : pod.at("/status/conditions")) {
          if (c.path("type").asText().equals("Ready") && c.path("status").asText().equals("True")) {
            ready = Instant.parse(c.path("lastTransitionTime").asText()).toEpochMilli();
          }
        }
        long readySince = ready;
        String name = pod.at("/metadata/name").asText();
        pods.compute(uid, (k, old) -> new PodRecord(name.substring(0, name.lastIndexOf('-')),
            Integer.parseInt(name.substring(name.lastIndexOf('-') + 1)), uid,
            Instant.parse(pod.at("/metadata/creationTimestamp").asText()).toEpochMilli(),
            old != null && old.readySinceMillis() > 0 ? old.readySinceMillis() : readySince));
      }
      Map<String, String> now = new HashMap<>();
      claims.json().path("items").forEach(c -> now.put(c.at("/metadata/name").asText(), c.at("/metadata/uid").asText()));
      // No PVC of a Retain set is ever deleted or replaced; the reclaiming set's go only once their pod is gone.
      pvcs.forEach((name, uid) -> {
        if (!name.startsWith("www-" + RECLAIMING_SET + "-") && !uid.equals(now.get(name))) {
          violations.add("PVC " + name + " " + (now.containsKey(name) ? "replaced" : "deleted"));
        }
      });
      // Never a pod without its PVC: a pod that existed before the claims were listed must find its own there.
      for (JsonNode pod : list.json().path("items")) {
        String claim = "www-" + pod.at("/metadata/name").asText();
        if (seenBefore.contains(pod.at("/metadata/uid").asText()) && !now.containsKey(claim)) {
          violations.add("PVC " + claim + " missing while its pod " + pod.at("/metadata/uid").asText() + " exists");
        }
      }
      pvcs.putAll(now);
    }

    /** After convergence the reclaiming set has exactly the PVCs of its ordinals; the others at least those. */
    void checkClaimsMatchReplicas() {
      Set<String> claims = new TreeSet<>();
      api.get(Paths.core(NS, "persistentvolumeclaims")).json().path("items")
          .forEach(c -> claims.add(c.at("/metadata/name").asText()));
      for (String set : sets) {
        int replicas = api.set(NS, set).at("/spec/replicas").asInt();
        Set<String> expected = new TreeSet<>();
        for (int ordinal : ordinals(set)) {
          expected.add("www-" + set + "-" + ordinal);
        }
        Set<String> actual = new TreeSet<>(claims.stream().filter(c -> c.startsWith("www-" + set + "-")).toList());
        if (set.equals(RECLAIMING_SET) ? !actual.equals(expected) : !actual.containsAll(expected)) {
          violations.add("PVCs of " + set + " with " + replicas + " replicas: " + actual);
        }
      }
    }

    void finalChecks() {
      sampleApi();
      sampleProcesses();
      checkOrderedCreation();
      checkCreateDeleteLog();
      checkClaimsMatchReplicas();
      checkWorkflows();
    }

    /**
     * OrderedReady: when web-i was created, some web-(i-1) had been Ready before. (A predecessor
     * the sampler never saw Ready is counted as unverified, not as a violation.)
     */
    void checkOrderedCreation() {
      for (PodRecord pod : pods.values()) {
        if (pod.ordinal() == 0 || pod.set().equals("parallel")) {
          continue;
        }
        List<PodRecord> predecessors = pods.values().stream()
            .filter(p -> p.set().equals(pod.set()) && p.ordinal() == pod.ordinal() - 1 && p.createdMillis() < pod.createdMillis())
            .toList();
        boolean readyBefore = predecessors.stream()
            .anyMatch(p -> p.readySinceMillis() > 0 && p.readySinceMillis() <= pod.createdMillis());
        if (!readyBefore) {
          if (predecessors.stream().anyMatch(p -> p.readySinceMillis() > pod.createdMillis())) {
            violations.add(pod.set() + "-" + pod.ordinal() + " (" + pod.uid() + ") created before its predecessor was Ready");
          } else {
            unverifiedOrdering++;
          }
        }
      }
    }

    /**
     * The store's own log (the watch log, kept for the whole run: ORDINAL_WATCH_RETENTION): per pod
     * name, creations and deletions alternate (never two live at once).
     */
    void checkCreateDeleteLog() {
      Map<String, List<String>> byPod = new LinkedHashMap<>();
      for (String operation : api.podOperations(NS)) {
        byPod.computeIfAbsent(operation.substring(1), k -> new ArrayList<>()).add(operation.substring(0, 1));
      }
      byPod.forEach((pod, log) -> {
        for (int i = 1; i < log.size(); i++) {
          if (log.get(i).equals("+") && log.get(i - 1).equals("+")) {
            violations.add(pod + " created twice without a deletion in between: " + String.join("", log));
            return;
          }
        }
      });
    }

    /** No workflow failed, was terminated or timed out; none is still running an operation. */
    void checkWorkflows() {
      service.withTemporal(client -> {
        client.listExecutions("OrdinalNamespace = '" + NS + "' AND ExecutionStatus IN ('Failed', 'Terminated', 'TimedOut')")
            .forEach(e -> violations.add("workflow " + e.getExecution().getWorkflowId() + " " + e.getStatus()));
        Api.sleep(3_000); // visibility is eventually consistent
        client.listExecutions("OrdinalNamespace = '" + NS + "' AND ExecutionStatus = 'Running' AND OrdinalOperation != 'controller'")
            .forEach(e -> violations.add("operation still running after convergence: " + e.getExecution().getWorkflowId()));
        return null;
      });
    }
  }

  void report(Duration faulting, Duration converge, Checker checker) throws IOException {
    StringBuilder faultRows = new StringBuilder();
    faults.forEach((fault, n) -> faultRows.append("| ").append(fault).append(" | ").append(n).append(" |\n"));
    String report = """
        # Fault injection: %d service kills (seed %d)

        - sets: %s (sim driver; %s with PVC retention Delete/Delete) and %s (local driver, real processes)
        - faulting for %.0f s; time to converge after the last fault: %.1f s
        - invariant samples: %d API samples, %d process samples; pods seen: %d; PVCs seen: %d
        - invariant violations: %d; ordering checks without a sampled predecessor: %d

        | action | count |
        |---|---|
        %s
        Reproduce: `./ordinal mvn verify -pl app -am -Dsurefire.skip=true -Dit.test=FaultInjectionIT \\
        -Dordinal.faults.kills=%d -Dordinal.faults.seed=%d`
        """.formatted(KILLS, SEED, SIM_SETS, RECLAIMING_SET, LOCAL_SET, faulting.toMillis() / 1000.0, converge.toMillis() / 1000.0,
        checker.samples, checker.processSamples, checker.pods.size(), checker.pvcs.size(), violations.size(),
        checker.unverifiedOrdering, faultRows, KILLS, SEED);
    Path out = Path.of("target", "benchmarks", "fault-injection.md");
    Files.createDirectories(out.getParent());
    Files.writeString(out, report + (violations.isEmpty() ? "" : "\nViolations:\n- " + String.join("\n- ", violations) + "\n"));
    System.out.println(report);
  }
}
