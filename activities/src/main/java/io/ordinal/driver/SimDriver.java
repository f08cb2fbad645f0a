package io.ordinal.driver;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Pod;
import io.micronaut.context.annotation.Value;
import io.ordinal.model.PodSnapshot;
import io.ordinal.node.ThisNode;
import io.ordinal.store.PodRow;
import io.ordinal.store.Repositories;
import jakarta.annotation.PreDestroy;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Simulated pods with no process, for scale tests and benchmarks (like kwok). A pod's whole life is
 * a function of its creation and deletion times and its containers' env:
 * <ul>
 *   <li>Pending, then Running at once, then Ready {@code SIM_READY_DELAY_MS} after creation;
 *   <li>{@code SIM_NEVER_READY=true}: Running, never Ready;
 *   <li>{@code SIM_CRASH_AFTER_MS}: Failed that long after creation;
 *   <li>{@code SIM_TERMINATION_DELAY_MS}: Terminating that long before it is gone.
 * </ul>
 * Because the schedule is derived from stored times, a restarted service recovers every pod exactly
 * where it would have been.
 */
@Singleton
public class SimDriver implements PodDriver {
  private static final Logger log = LoggerFactory.getLogger(SimDriver.class);

  private final Repositories.Pods pods;
  private final PodEvents events;
  private final ScheduledExecutorService timers;
  private final ThisNode node;

  public SimDriver(Repositories.Pods pods, PodEvents events, ThisNode node,
      @Value("${ordinal.sim.threads:2}") int threads) {
    this.pods = pods;
    this.node = node;
    this.events = events;
    this.timers = Executors.newScheduledThreadPool(threads, Thread.ofPlatform().daemon().name("sim-driver-", 0).factory());
  }

  @Override
  public String name() {
    return "sim";
  }

  @Override
  public void start(DriverPod pod) {
    advanceLater(pod.id(), Duration.ZERO);
  }

  @Override
  public void stop(DriverPod pod) {
    advanceLater(pod.id(), Duration.ZERO);
  }

  /** No process runs for a simulated pod, so there is nothing to run a command beside. */
  @Override
  public void checkExec(DriverPod pod, String container) {
    throw new ExecRefusedException("exec is not supported for simulated pods (driver sim): pod " + pod.name()
        + " runs no process");
  }

  /** Re-adopts this node's simulated pods (another instance simulates its own). */
  @Override
  public void recover() {
    var all = pods.findByDriver(name()).stream().filter(row -> node.is(ThisNode.of(row))).toList();
    all.forEach(pod -> advanceLater(pod.id(), Duration.ZERO));
    log.info("sim driver recovered {} pods", all.size());
  }

  @PreDestroy
  void close() {
    timers.shutdownNow();
  }

  /** The simulated behaviour of one pod, read from its containers' env. */
  record Behaviour(long readyDelayMs, boolean neverReady, long crashAfterMs, long terminationDelayMs) {
    static Behaviour of(Pod pod) {
      long readyDelay = 0, crashAfter = -1, terminationDelay = 0;
      boolean neverReady = false;
      for (Container c : pod.getSpec().getContainers()) {
        for (EnvVar env : c.getEnv() == null ? List.<EnvVar>of() : c.getEnv()) {
          String v = env.getValue() == null ? "" : env.getValue().trim();
          switch (env.getName()) {
            case "SIM_READY_DELAY_MS" -> readyDelay = Math.max(readyDelay, parse(v, 0));
            case "SIM_NEVER_READY" -> neverReady |= v.equalsIgnoreCase("true");
            case "SIM_CRASH_AFTER_MS" -> crashAfter = crashAfter < 0 ? parse(v, -1) : Math.min(crashAfter, parse(v, crashAfter));
            case "SIM_TERMINATION_DELAY_MS" -> terminationDelay = Math.max(terminationDelay, parse(v, 0));
            default -> { }
          }
        }
      }
      return new Behaviour(readyDelay, neverReady, crashAfter, terminationDelay);
    }

    private static long parse(String value, long fallback) {
      try {
        return Long.parseLong(value);
      } catch (NumberFormatException e) {
        return fallback;
      }
    }
  }

  /** Where a pod should be at {@code now}, and when it next changes (null: never). */
  record State(String phase, boolean ready, Instant readySince, Instant startedAt, boolean gone, Instant next) {}

  static State stateAt(DriverPod pod, Behaviour b, Instant now) {
    Instant created = pod.createdAt();
    if (pod.terminating()) {
      Instant goneAt = pod.deletionTimestamp().plusMillis(b.terminationDelayMs());
      if (!now.isBefore(goneAt)) {
        return new State(pod.phase(), false, null, pod.startedAt(), true, null);
      }
      // A terminating pod keeps its phase but is no longer Ready.
      return new State(pod.phase(), false, null, pod.startedAt(), false, goneAt);
    }
    Instant crashAt = b.crashAfterMs() >= 0 ? created.plusMillis(b.crashAfterMs()) : null;
    if (crashAt != null && !now.isBefore(crashAt)) {
      return new State(PodSnapshot.FAILED, false, null, created, false, null);
    }
    Instant readyAt = b.neverReady() ? null : created.plusMillis(b.readyDelayMs());
    boolean ready = readyAt != null && !now.isBefore(readyAt);
    Instant next = ready ? crashAt : earliest(readyAt, crashAt);
    return new State(PodSnapshot.RUNNING, ready, ready ? readyAt : null, created, false, next);
  }

  private static Instant earliest(Instant a, Instant b) {
    if (a == null) return b;
    if (b == null) return a;
    return a.isBefore(b) ? a : b;
  }

  private void advanceLater(String podId, Duration delay) {
    timers.schedule(() -> {
      try {
        advance(podId);
      } catch (RuntimeException e) {
        log.warn("sim pod {}: transition failed, retrying in 1s", podId, e);
        advanceLater(podId, Duration.ofSeconds(1));
      }
    }, Math.max(0, delay.toMillis()), TimeUnit.MILLISECONDS);
  }

  /** Brings a pod's row to where its simulated life says it is now, and schedules its next change. */
  private void advance(String podId) {
    Optional<PodRow> found = pods.findById(podId);
    if (found.isEmpty()) {
      return;
    }
    PodRow row = found.get();
    Instant now = Instant.now();
    DriverPod pod = DriverPod.of(row);
    State state = stateAt(pod, Behaviour.of(pod.object()), now);
    boolean changed;
    if (state.gone()) {
      changed = pods.deleteByIdAndUid(row.id(), row.uid()) > 0;
    } else {
      changed = !state.phase().equals(row.phase()) || state.ready() != row.ready();
      if (changed) {
        String message = PodSnapshot.FAILED.equals(state.phase()) ? "simulated crash (SIM_CRASH_AFTER_MS)" : null;
        changed = pods.updateStatus(row.id(), row.uid(), state.phase(), state.ready(), state.readySince(),
            state.startedAt(), message) > 0
            && PodSnapshot.statusMatters(row.phase(), row.ready(), state.phase(), state.ready());
      }
    }
    if (changed) {
      events.podChanged(row.namespace(), row.setName(), row.name());
    }
    if (state.next() != null) {
      advanceLater(podId, Duration.between(now, state.next()));
    }
  }
}
