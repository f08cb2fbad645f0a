package io.ordinal.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.ordinal.model.PodSnapshot;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** A simulated pod's life is a pure function of its stored timestamps and its containers' SIM_* env. */
class SimDriverTest {
  static final Instant CREATED = Instant.parse("2026-01-01T00:00:00Z");

  static DriverPod pod(Instant deletedAt, String... env) {
    var container = new PodBuilder().withNewSpec().addNewContainer().withName("c");
    for (int i = 0; i < env.length; i += 2) {
      container = container.addNewEnv().withName(env[i]).withValue(env[i + 1]).endEnv();
    }
    Pod object = container.endContainer().endSpec().build();
    return new DriverPod("default", "web-0", "web", 0, "uid", object, PodSnapshot.RUNNING, true, CREATED, CREATED,
        deletedAt);
  }

  static SimDriver.State at(DriverPod pod, long millisAfterCreation) {
    return SimDriver.stateAt(pod, SimDriver.Behaviour.of(pod.object()), CREATED.plusMillis(millisAfterCreation));
  }

  @Test
  void becomesReadyAfterItsDelayAndSaysWhen() {
    DriverPod pod = pod(null, "SIM_READY_DELAY_MS", "300");
    SimDriver.State before = at(pod, 299);
    assertEquals(PodSnapshot.RUNNING, before.phase());
    assertFalse(before.ready());
    assertEquals(CREATED.plusMillis(300), before.next(), "the driver wakes exactly when it turns Ready");
    SimDriver.State after = at(pod, 300);
    assertTrue(after.ready());
    assertEquals(CREATED.plusMillis(300), after.readySince());
    assertNull(after.next());
  }

  @Test
  void crashesIntoFailedAndNeverReadyStaysUnready() {
    DriverPod crashing = pod(null, "SIM_CRASH_AFTER_MS", "1000");
    assertTrue(at(crashing, 999).ready());
    assertEquals(CREATED.plusMillis(1000), at(crashing, 999).next());
    assertEquals(PodSnapshot.FAILED, at(crashing, 1000).phase());
    assertFalse(at(pod(null, "SIM_NEVER_READY", "true"), 60_000).ready());
  }

  @Test
  void aDeletedPodStaysTerminatingForItsDelayThenIsGone() {
    DriverPod deleted = pod(CREATED.plusMillis(5_000), "SIM_TERMINATION_DELAY_MS", "2000");
    SimDriver.State terminating = at(deleted, 6_000);
    assertFalse(terminating.gone());
    assertFalse(terminating.ready(), "a terminating pod is no longer Ready");
    assertEquals(CREATED.plusMillis(7_000), terminating.next());
    assertTrue(at(deleted, 7_000).gone());
  }
}
