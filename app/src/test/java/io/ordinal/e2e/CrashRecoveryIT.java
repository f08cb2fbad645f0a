package io.ordinal.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The service is killed or stopped and started again on the same data dir. */
@E2eTest
class CrashRecoveryIT {
  static final Duration TIMEOUT = Duration.ofSeconds(120);

  @Test
  void killedServiceMidScaleFinishesTheScaleWithNoDuplicatePod(@Namespace String ns) throws Exception {
    try (OrdinalService service = new OrdinalService("crash")) {
      service.start();
      Api api = service.api();
      api.createSet(ns, Manifests.web("web", 5, 0, Map.of("SIM_READY_DELAY_MS", "700")));
      api.await(Paths.pod(ns, "web-1"), TIMEOUT, r -> r.code() == 200);
      String web0Uid = api.pod(ns, "web-0").at("/metadata/uid").asText();

      service.kill9();
      // A SIGKILL runs no shutdown hook: PostgreSQL and the Temporal dev server are orphaned.
      assertTrue(alive(service.dataDir.resolve("postgres/postmaster.pid")), "postgres orphan expected");
      assertTrue(alive(service.dataDir.resolve("temporal/temporal.pid")), "temporal orphan expected");

      service.start();
      api.awaitConverged(ns, "web", 5, TIMEOUT);
      Map<String, Long> creates = api.podOperations(ns).stream()
          .filter(op -> op.startsWith("+"))
          .collect(Collectors.groupingBy(op -> op.substring(1), Collectors.counting()));
      assertEquals(Map.of("web-0", 1L, "web-1", 1L, "web-2", 1L, "web-3", 1L, "web-4", 1L), creates);
      List<JsonNode> pods = api.pods(ns, "app=web");
      assertEquals(5, pods.stream().map(p -> p.at("/metadata/uid").asText()).distinct().count());
      assertEquals(web0Uid, api.pod(ns, "web-0").at("/metadata/uid").asText());
    }
  }

  /**
   * A write and the news of it for its controller cannot diverge: a spec change committed just before
   * the service died (its outbox row written, its signal never sent: ORDINAL_OUTBOX_HOLD) reaches its
   * controller after the restart from the outbox, with who made it, which no other wake-up (the
   * start-up nudge, a pod event) says.
   */
  @Test
  void aSpecChangeCommittedJustBeforeACrashReachesItsControllerWithItsAuthor(@Namespace String ns) throws Exception {
    try (OrdinalService service = new OrdinalService("outbox")) {
      service.start();
      Api api = service.api();
      api.createSet(ns, Manifests.web("web", 1, 0, Map.of()));
      api.awaitConverged(ns, "web", 1, TIMEOUT);

      service.withEnv("ORDINAL_OUTBOX_HOLD", "true").kill9();
      service.start();
      // (A pod event may still wake the controller, which then reads the new spec: the database is the
      // truth. What only the outbox carries is the signal of this change with its author.)
      api.patchSet(ns, "web", "{\"spec\":{\"replicas\":3}}");
      service.kill9();

      service.withEnv("ORDINAL_OUTBOX_HOLD", null).start();
      api.awaitConverged(ns, "web", 3, TIMEOUT);
      String controller = "statefulset/" + ns + "/web";
      List<AuditIT.SpecChange> changes = service.withTemporal(client -> AuditIT.specChanges(client, controller));
      assertTrue(changes.stream().anyMatch(c -> c.generation() == 2 && c.requestedBy() != null),
          "the scale, signalled from the outbox with its author: " + changes);
    }
  }

  /**
   * After the machine went down (the service, PostgreSQL and the dev server at once), their pid files
   * stay, and by the next start their pids may be any other process's: the start signals none of them
   * (it used to stop them as its own orphans, and PostgreSQL refused to start while one lived).
   */
  @Test
  void aStartAfterAMachineCrashLeavesAloneTheProcessesThatGotItsHelpersPids(@Namespace String ns) throws Exception {
    try (OrdinalService service = new OrdinalService("stale-pids")) {
      service.start();
      Api api = service.api();
      api.createSet(ns, Manifests.web("web", 1, 0, Map.of()));
      api.awaitConverged(ns, "web", 1, TIMEOUT);
      Path postgresPid = service.dataDir.resolve("postgres/postmaster.pid");
      Path temporalPid = service.dataDir.resolve("temporal/temporal.pid");
      ProcessHandle postgres = OrdinalService.fromPidFile(postgresPid).orElseThrow();
      ProcessHandle temporal = OrdinalService.fromPidFile(temporalPid).orElseThrow();
      List<ProcessHandle> helpers = Stream.concat(Stream.of(postgres, temporal),
          Stream.concat(postgres.descendants(), temporal.descendants())).toList();
      service.kill9();
      helpers.forEach(ProcessHandle::destroyForcibly);
      for (ProcessHandle helper : helpers) {
        assertTrue(gone(helper), "still running: " + helper.info());
      }

      Process tookPostgresPid = new ProcessBuilder("sleep", "600").start();
      Process tookTemporalPid = new ProcessBuilder("sleep", "600").start();
      try {
        List<String> lines = new ArrayList<>(Files.readAllLines(postgresPid));
        lines.set(0, Long.toString(tookPostgresPid.pid()));
        Files.write(postgresPid, lines);
        Files.writeString(temporalPid, tookTemporalPid.pid() + "\n");

        service.start();
        api.patchSet(ns, "web", "{\"spec\":{\"replicas\":2}}");
        api.awaitConverged(ns, "web", 2, TIMEOUT);
        assertTrue(tookPostgresPid.isAlive(), "the process with PostgreSQL's old pid was signalled");
        assertTrue(tookTemporalPid.isAlive(), "the process with the dev server's old pid was signalled");
      } finally {
        tookPostgresPid.destroyForcibly();
        tookTemporalPid.destroyForcibly();
      }
    }
  }

  @Test
  void stoppedServiceLeavesNothingRunningAndResumesWithItsState(@Namespace String ns) throws Exception {
    try (OrdinalService service = new OrdinalService("restart")) {
      service.start();
      Api api = service.api();
      api.createSet(ns, Manifests.web("web", 2, 0, Map.of()));
      api.awaitConverged(ns, "web", 2, TIMEOUT);
      String uid = api.set(ns, "web").at("/metadata/uid").asText();

      Optional<ProcessHandle> postgres = service.postgres();
      Optional<ProcessHandle> temporal = OrdinalService.fromPidFile(service.dataDir.resolve("temporal/temporal.pid"));
      service.stop();
      assertTrue(postgres.isPresent() && temporal.isPresent());
      // The service has exited; its helpers are gone too (allowing init a moment to reap them:
      // an exited but unreaped process still counts as alive for ProcessHandle).
      assertTrue(gone(postgres.get()), "postgres still running after stop");
      assertTrue(gone(temporal.get()), "temporal still running after stop");

      service.start();
      assertEquals(uid, api.set(ns, "web").at("/metadata/uid").asText());
      api.patchSet(ns, "web", "{\"spec\":{\"replicas\":3}}");
      api.awaitConverged(ns, "web", 3, TIMEOUT);
    }
  }

  @Test
  void pausedRolloutStaysPausedThroughARestartAndResumeCompletesIt(@Namespace String ns) throws Exception {
    try (OrdinalService service = new OrdinalService("pause")) {
      service.start();
      Api api = service.api();
      String set = Paths.set(ns, "web");
      api.createSet(ns, Manifests.web("web", 4, 0, Map.of("SIM_READY_DELAY_MS", "700")));
      String before = api.awaitConverged(ns, "web", 4, TIMEOUT).at("/status/currentRevision").asText();
      api.setImage(ns, "web", "k8s.gcr.io/nginx-slim:0.9");
      // Pause while the first updated pod (web-3) is coming up.
      api.await(Paths.core(ns, "events"), TIMEOUT, r -> api.podOperations(ns).size() >= 6);

      Api.Reply paused = api.post(set + "/rollout/pause", null, null);
      assertEquals(200, paused.code(), paused.body());
      assertTrue(paused.json().at("/spec/updateStrategy/rollingUpdate/paused").asBoolean());
      List<String> atPause = api.podOperations(ns);
      api.await(set + "/rollout/status", TIMEOUT, r -> r.json().path("phase").asText().equals("Paused"));
      Api.sleep(2_000);
      assertNoPodDeletedSince(atPause, api.podOperations(ns));

      service.stop();
      service.start();
      Api.sleep(2_000);
      assertNoPodDeletedSince(atPause, api.podOperations(ns));
      JsonNode status = api.get(set + "/rollout/status").json();
      assertEquals("Paused", status.path("phase").asText(), status.toString());
      int updatedWhilePaused = status.path("updatedReplicas").asInt();
      assertTrue(updatedWhilePaused >= 1 && updatedWhilePaused < 4, status + " " + api.podOperations(ns) + api.pods(ns, "app=web").stream().map(p -> p.at("/metadata/labels/controller-revision-hash").asText()).toList());

      assertEquals(200, api.post(set + "/rollout/resume", null, null).code());
      api.awaitRolledOut(ns, 4, before);
      assertEquals(List.of("-web-3", "+web-3", "-web-2", "+web-2", "-web-1", "+web-1", "-web-0", "+web-0"),
          api.podOperations(ns).subList(4, 12));
    }
  }

  /** After a pause only the re-creation of a pod deleted before it may happen: no pod is deleted. */
  static void assertNoPodDeletedSince(List<String> atPause, List<String> now) {
    List<String> since = now.subList(atPause.size(), now.size());
    assertTrue(since.stream().noneMatch(op -> op.startsWith("-")), "pods deleted while paused: " + since);
    assertTrue(since.size() <= 1, "at most the re-creation of a pod replaced before the pause: " + since);
  }

  @Test
  void localPodsKeepRunningThroughAKillAndAreReadoptedWithNothingDuplicated(@Namespace String ns) throws Exception {
    try (OrdinalService service = new OrdinalService("readopt")) {
      service.start();
      Api api = service.api();
      api.createSet(ns, Manifests.commandSet("web", PODS, "/bin/sleep", "100000"));
      api.awaitConverged(ns, "web", PODS, TIMEOUT);
      Map<String, String> before = containerIds(api, ns);

      service.kill9();
      for (String id : before.values()) {
        long pid = service.containerPid(id);
        assertTrue(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), "pod process " + pid + " died with the service");
      }
      // While the service is down, web-0's process dies: the next run must restart it.
      String web0 = before.remove("web-0");
      ProcessHandle.of(service.containerPid(web0)).ifPresent(ProcessHandle::destroyForcibly);
      Instant restart = Instant.now();
      service.start();
      api.awaitConverged(ns, "web", PODS, TIMEOUT);
      System.out.printf("re-adoption of %d local pods: service healthy and set converged %d ms after restart%n",
          PODS, Duration.between(restart, Instant.now()).toMillis());
      Map<String, String> after = containerIds(api, ns);
      assertNotEquals(web0, after.remove("web-0"));
      assertEquals(before, after);
      for (JsonNode pod : api.pods(ns, "app=web")) {
        int restarts = pod.at("/status/containerStatuses/0/restartCount").asInt();
        assertEquals(pod.at("/metadata/name").asText().equals("web-0") ? 1 : 0, restarts, pod.at("/metadata/name").asText());
      }
      long processes = ProcessHandle.allProcesses()
          .filter(service.localPodProcesses())
          .filter(p -> p.info().command().orElse("").endsWith("/sleep")
              && Arrays.equals(p.info().arguments().orElse(new String[0]), new String[] {"100000"}))
          .count();
      assertEquals(PODS, processes, "one process per pod");
    }
  }

  @Test
  void aLocalPodsLinesGetTheirTimeWhileTheServiceIsDown(@Namespace String ns) throws Exception {
    try (OrdinalService service = new OrdinalService("logs")) {
      service.start();
      Api api = service.api();
      api.createSet(ns, Manifests.commandSet("tick", 1,
          "/bin/sh", "-c", "i=0; while true; do i=$((i+1)); echo tick $i; sleep 0.2; done"));
      api.awaitConverged(ns, "tick", 1, TIMEOUT);
      service.kill9();
      Instant killed = Instant.now();
      Thread.sleep(2_000);
      Instant restarted = Instant.now();
      service.start();
      // The stampers live in the container's session: what it printed meanwhile has its own time.
      String log = api.get(Paths.pod(ns, "tick-0") + "/log?timestamps=true&sinceTime=" + killed.plusSeconds(1)
          .truncatedTo(ChronoUnit.SECONDS)).body();
      List<Instant> whileDown = log.lines().map(l -> Instant.parse(l.substring(0, l.indexOf(' '))))
          .filter(t -> t.isBefore(restarted)).toList();
      assertTrue(whileDown.size() >= 3, "lines stamped while the service was down:\n" + log);
      assertTrue(log.lines().allMatch(l -> l.matches("\\S+Z tick \\d+")), log);
    }
  }

  static final int PODS = 20;

  static Map<String, String> containerIds(Api api, String ns) {
    return api.pods(ns, "app=web").stream().collect(Collectors.toMap(
        p -> p.at("/metadata/name").asText(), p -> p.at("/status/containerStatuses/0/containerID").asText()));
  }

  static boolean gone(ProcessHandle process) throws InterruptedException {
    for (int i = 0; i < 50 && process.isAlive(); i++) {
      Thread.sleep(100);
    }
    return !process.isAlive();
  }

  static boolean alive(Path pidFile) {
    return OrdinalService.fromPidFile(pidFile).map(ProcessHandle::isAlive).orElse(false);
  }
}
