package io.ordinal.driver.local;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.Probe;
import io.ordinal.store.KubeJson;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The kubelet's view of one app container: its process, restarts with back-off, and its startup,
 * liveness and readiness probes. Driven by its pod's supervisor, one {@link #tick} at a time.
 */
final class ContainerRuntime {
  private static final Logger log = LoggerFactory.getLogger(ContainerRuntime.class);
  static final Duration INITIAL_BACKOFF = Duration.ofSeconds(10);
  static final Duration MAX_BACKOFF = Duration.ofMinutes(5);
  /** A container that ran this long without exiting gets its back-off reset. */
  static final Duration BACKOFF_RESET = Duration.ofMinutes(10);
  private static final ExecutorService PROBES = Executors.newVirtualThreadPerTaskExecutor();

  /**
   * Persisted across service restarts (in the pod's state file). {@code containerId} is null in the
   * state of a release before the OCI runtime, whose process ran unconfined: it is stopped and the
   * container started again in the runtime.
   */
  record Saved(long pid, long processStartMillis, long startedAtMillis, int restartCount,
      Integer lastExitCode, String lastReason, long lastStartedAtMillis, long lastFinishedAtMillis, String containerId,
      String specHash) {}

  final Container spec;
  private final PodSupervisor pod;
  /** Volatile: kubectl exec reads it from a request thread. */
  private volatile ContainerProcess process;
  private Instant startedAt;
  private int restartCount;
  private Integer lastExitCode;
  private String lastReason;
  private Instant lastStartedAt;
  private Instant lastFinishedAt;
  private Instant nextStartAt = Instant.EPOCH;
  private Duration backoff = INITIAL_BACKOFF;
  private String waitingReason = "ContainerCreating";
  private String waitingMessage;
  private boolean started;
  private boolean ready;
  private Cgroups.Placement cgroup;
  private boolean limitsWarned;
  private final ProbeState startup;
  private final ProbeState liveness;
  private final ProbeState readiness;
  /**
   * The hash of the spec the running process was started from ({@link #specHash}); null without a
   * process. Another than this spec's when its pod was updated in place and the service went down
   * before the container was restarted: it is stopped and started again at the next tick.
   */
  private String processSpecHash;

  ContainerRuntime(Container spec, PodSupervisor pod) {
    this.spec = spec;
    this.pod = pod;
    this.startup = ProbeState.of(spec.getStartupProbe(), () -> pod.probeFailed("startup"));
    this.liveness = ProbeState.of(spec.getLivenessProbe(), () -> pod.probeFailed("liveness"));
    this.readiness = ProbeState.of(spec.getReadinessProbe(), () -> pod.probeFailed("readiness"));
  }

  /** Resumes from a previous run: adopts the process if it is still the one we started, else restarts at once. */
  void restore(Saved saved) {
    restartCount = saved.restartCount();
    lastExitCode = saved.lastExitCode();
    lastReason = saved.lastReason();
    lastStartedAt = saved.lastStartedAtMillis() > 0 ? Instant.ofEpochMilli(saved.lastStartedAtMillis()) : null;
    lastFinishedAt = saved.lastFinishedAtMillis() > 0 ? Instant.ofEpochMilli(saved.lastFinishedAtMillis()) : null;
    if (saved.pid() > 0 && saved.containerId() == null) {
      pod.stopUnconfined(spec.getName(), saved.pid(), Instant.ofEpochMilli(saved.processStartMillis()));
      recordExit(-1, "Unknown", Instant.now());
      nextStartAt = Instant.EPOCH;
    } else if (saved.pid() > 0) {
      var adopted = ContainerProcess.adopt(pod.runc(), saved.containerId(), saved.pid(),
          Instant.ofEpochMilli(saved.processStartMillis()));
      if (adopted.isPresent()) {
        process = adopted.get();
        // A state file of a release before in-place updates has no hash: its process runs the spec it has now.
        processSpecHash = saved.specHash() != null ? saved.specHash() : specHash(spec);
        cgroup = Cgroups.unlimited(pod.containerId(spec.getName())); // where its OOM kills are counted
        startedAt = Instant.ofEpochMilli(saved.startedAtMillis());
        startup.reset(startedAt);
        liveness.reset(startedAt);
        readiness.reset(startedAt);
        log.info("pod {} container {}: re-adopted pid {}", pod.name(), spec.getName(), saved.pid());
      } else {
        // It died while the service was down: record that and restart it now.
        recordExit(-1, "Unknown", Instant.now());
        nextStartAt = Instant.EPOCH;
      }
    }
  }

  Saved save() {
    return new Saved(process == null ? 0 : process.pid(),
        process == null ? 0 : process.startedAt().toEpochMilli(),
        startedAt == null ? 0 : startedAt.toEpochMilli(), restartCount, lastExitCode, lastReason,
        lastStartedAt == null ? 0 : lastStartedAt.toEpochMilli(), lastFinishedAt == null ? 0 : lastFinishedAt.toEpochMilli(),
        process == null ? null : process.id(), process == null ? null : processSpecHash);
  }

  /** What the kubelet's container hash is for: a change of the container's spec is told from it. */
  static String specHash(Container spec) {
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256").digest(KubeJson.write(spec).getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(digest, 0, 8);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * Stops the process for an in-place update of its pod (preStop, SIGTERM, the grace period, SIGKILL),
   * counting a restart; the next start, at once, is its successor's ({@link #successor}), or its own
   * when its spec changed while the service was down.
   */
  void stopForUpdate(Instant now) {
    ContainerProcess running = process;
    if (running != null) {
      pod.stopContainer(spec, running, now.plus(pod.gracePeriod()), PodSupervisor.IN_PLACE_UPDATE);
      int code = running.alive() ? -1 : running.exitCode();
      try {
        pod.runc().delete(running.id());
      } catch (IOException e) {
        log.warn("pod {} container {}: could not remove the stopped container: {}", pod.name(), spec.getName(), e.getMessage());
      }
      recordExit(code, code == 0 ? "Completed" : "Error", Instant.now());
    }
    processSpecHash = null;
    nextStartAt = Instant.EPOCH;
    backoff = INITIAL_BACKOFF;
    waitingReason = "ContainerCreating";
  }

  /** The runtime of this container's new spec after {@link #stopForUpdate}: its restarts and last state go on. */
  ContainerRuntime successor(Container next) {
    ContainerRuntime successor = new ContainerRuntime(next, pod);
    successor.restartCount = restartCount;
    successor.lastExitCode = lastExitCode;
    successor.lastReason = lastReason;
    successor.lastStartedAt = lastStartedAt;
    successor.lastFinishedAt = lastFinishedAt;
    return successor;
  }

  /** Advances this container by one step; returns true when something a status shows changed. */
  boolean tick(Instant now) throws Exception {
    if (startedFromOtherSpec()) {
      stopForUpdate(now);
      pod.saveState();
      return true;
    }
    if (process == null) {
      if (now.isBefore(nextStartAt)) {
        return false;
      }
      start(now);
      return true;
    }
    if (!process.alive()) {
      int code = process.exitCode();
      boolean oomKilled = cgroup != null && cgroup.oomKills(process.start()) > 0;
      pod.runc().delete(process.id()); // kept by the runtime until its OOM count was read
      recordExit(code, oomKilled ? "OOMKilled" : code == 0 ? "Completed" : "Error", now);
      Duration ran = Duration.between(startedAt, now);
      if (ran.compareTo(BACKOFF_RESET) >= 0) {
        backoff = INITIAL_BACKOFF;
      }
      nextStartAt = now.plus(backoff);
      backoff = backoff.multipliedBy(2).compareTo(MAX_BACKOFF) > 0 ? MAX_BACKOFF : backoff.multipliedBy(2);
      waitingReason = "CrashLoopBackOff";
      pod.saveState();
      return true;
    }
    boolean changed = false;
    if (!started) {
      Boolean result = startup.poll(now, this::probe);
      if (startup.absent() || Boolean.TRUE.equals(result) && startup.succeeded()) {
        started = true;
        changed = true;
      } else if (startup.failed()) {
        kill("startup probe failed");
        return true;
      }
    }
    if (started) {
      liveness.poll(now, this::probe);
      if (liveness.failed()) {
        kill("liveness probe failed");
        return true;
      }
      readiness.poll(now, this::probe);
      boolean nowReady = readiness.absent() || readiness.succeeded();
      if (nowReady != ready) {
        ready = nowReady;
        changed = true;
      }
    }
    return changed;
  }

  private void start(Instant now) throws Exception {
    PodSupervisor.Startable startable = pod.startable(spec);
    var configError = startable.configError();
    if (configError.isPresent()) {
      // As the kubelet: the container is not created, the pod says why, and it is tried again later.
      if (!"CreateContainerConfigError".equals(waitingReason)) {
        pod.event("Warning", "Failed", "Error: " + configError.get());
      }
      waitAndRetry("CreateContainerConfigError", configError.get(), now);
      return;
    }
    waitingMessage = null;
    Path logFile = pod.logFile(spec.getName());
    if (restartCount > 0 && Files.exists(logFile)) {
      Files.move(logFile, pod.previousLogFile(spec.getName()), StandardCopyOption.REPLACE_EXISTING);
    }
    var placed = Cgroups.place(pod.containerId(spec.getName()), spec.getResources());
    boolean limited = Cgroups.memoryBytes(spec.getResources()) != null || Cgroups.cpuQuotaMicros(spec.getResources()) != null;
    if (limited && placed.isEmpty() && !limitsWarned) {
      limitsWarned = true;
      pod.event("Warning", "LimitsNotEnforced", "container " + spec.getName()
          + ": resources.limits are recorded but not enforced (no writable cgroup hierarchy)");
    }
    cgroup = placed.orElse(Cgroups.unlimited(pod.containerId(spec.getName())));
    try {
      process = pod.launch(spec, startable.env(), logFile, cgroup);
    } catch (IOException e) {
      // As the kubelet's CreateContainerError: the pod says why, and it is tried again after a back-off.
      log.warn("pod {} container {}: cannot start: {}", pod.name(), spec.getName(), e.getMessage());
      pod.event("Warning", "Failed", "Error: " + e.getMessage());
      waitAndRetry("CreateContainerError", e.getMessage(), now);
      return;
    }
    startedAt = now;
    processSpecHash = specHash(spec);
    started = false;
    ready = false;
    startup.reset(now);
    liveness.reset(now);
    readiness.reset(now);
    pod.saveState();
  }

  /** The container could not be created: it waits, saying why, and is tried again after the back-off. */
  private void waitAndRetry(String reason, String message, Instant now) {
    waitingReason = reason;
    waitingMessage = message;
    nextStartAt = now.plus(backoff);
    backoff = backoff.multipliedBy(2).compareTo(MAX_BACKOFF) > 0 ? MAX_BACKOFF : backoff.multipliedBy(2);
  }

  /** The container exited (or was found dead): under restartPolicy Always it will be restarted. */
  private void recordExit(int code, String reason, Instant when) {
    restartCount++;
    pod.containerRestarted();
    lastExitCode = code;
    lastReason = reason;
    lastStartedAt = startedAt;
    lastFinishedAt = when;
    process = null;
    started = false;
    ready = false;
  }

  /** Liveness or startup failure: the container is killed and restarted by the usual path. */
  private void kill(String why) {
    log.info("pod {} container {}: {}; killing it", pod.name(), spec.getName(), why);
    pod.event("Warning", "Unhealthy", "Container " + spec.getName() + " " + why + ", will be restarted");
    process.kill();
  }

  private boolean probe(Probe probe) {
    ContainerProcess running = process;
    return ProbeRunner.run(probe, pod.podIp(), spec.getPorts() == null ? List.of() : spec.getPorts(),
        running == null ? null : pod.execTarget(running));
  }

  ContainerProcess process() {
    return process;
  }

  boolean running() {
    return process != null;
  }

  boolean ready() {
    return ready;
  }

  /** Its process was re-adopted but started from another spec: it is restarted at the next tick. */
  boolean startedFromOtherSpec() {
    return process != null && processSpecHash != null && !processSpecHash.equals(specHash(spec));
  }

  ContainerStatus status() {
    ContainerStatusBuilder status = new ContainerStatusBuilder()
        .withName(spec.getName()).withImage(spec.getImage()).withImageID("")
        .withReady(ready).withStarted(started).withRestartCount(restartCount);
    if (process != null) {
      status.withContainerID("runc://" + process.id());
      status.withNewState().withNewRunning(KubeJson.timestamp(startedAt)).endState();
    } else {
      status.withNewState().withNewWaiting().withReason(waitingReason).withMessage(waitingMessage).endWaiting().endState();
    }
    if (lastFinishedAt != null) {
      status.withNewLastState().withNewTerminated()
          .withExitCode(lastExitCode).withReason(lastReason)
          .withStartedAt(KubeJson.timestamp(lastStartedAt)).withFinishedAt(KubeJson.timestamp(lastFinishedAt))
          .endTerminated().endLastState();
    }
    return status.build();
  }

  /** Thresholds and timing of one probe; its runs happen off the supervisor thread. */
  static final class ProbeState {
    private final Probe probe;
    /** Told of each failed run (for the driver's metrics). */
    private final Runnable onFailure;
    private Instant nextRun;
    private CompletableFuture<Boolean> inflight;
    private int successes;
    private int failures;
    private boolean success;

    private ProbeState(Probe probe, Runnable onFailure) {
      this.probe = probe;
      this.onFailure = onFailure;
    }

    static ProbeState of(Probe probe, Runnable onFailure) {
      return new ProbeState(probe, onFailure);
    }

    boolean absent() {
      return probe == null;
    }

    void reset(Instant containerStart) {
      if (probe == null) {
        return;
      }
      int delay = probe.getInitialDelaySeconds() == null ? 0 : probe.getInitialDelaySeconds();
      nextRun = containerStart.plusSeconds(delay);
      inflight = null;
      successes = 0;
      failures = 0;
      success = false;
    }

    /** Collects a finished run and starts the next when due; returns the latest result, if any. */
    Boolean poll(Instant now, Predicate<Probe> runner) {
      if (probe == null) {
        return null;
      }
      Boolean result = null;
      if (inflight != null && inflight.isDone()) {
        result = inflight.getNow(false);
        inflight = null;
        if (result) {
          successes++;
          failures = 0;
          if (successes >= threshold(probe.getSuccessThreshold())) {
            success = true;
          }
        } else {
          failures++;
          successes = 0;
          onFailure.run();
          if (failures >= threshold(probe.getFailureThreshold() == null ? 3 : probe.getFailureThreshold())) {
            success = false;
          }
        }
      }
      if (inflight == null && !now.isBefore(nextRun)) {
        int period = probe.getPeriodSeconds() == null ? 10 : Math.max(1, probe.getPeriodSeconds());
        nextRun = now.plusSeconds(period);
        inflight = CompletableFuture.supplyAsync(() -> runner.test(probe), PROBES);
      }
      return result;
    }

    boolean succeeded() {
      return success;
    }

    /** failureThreshold consecutive failures. */
    boolean failed() {
      return probe != null && failures >= threshold(probe.getFailureThreshold() == null ? 3 : probe.getFailureThreshold());
    }

    private static int threshold(Integer value) {
      return value == null || value < 1 ? 1 : value;
    }
  }
}
