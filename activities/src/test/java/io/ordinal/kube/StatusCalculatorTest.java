package io.ordinal.kube;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.ordinal.model.PodSnapshot;
import io.ordinal.model.SetStatus;
import java.util.List;
import org.junit.jupiter.api.Test;

class StatusCalculatorTest {
  static PodSnapshot pod(int ordinal, String revision, boolean ready, long readySince, boolean terminating) {
    return new PodSnapshot(ordinal, "web-" + ordinal, revision, PodSnapshot.RUNNING, ready, readySince, terminating);
  }

  @Test
  void countsFollowUpstream() {
    var status = SetStatus.compute(4, 10, true, 4, "a", "b", 0, List.of(
        pod(0, "a", true, 0, false),
        pod(1, "a", true, 95_000, false),
        pod(2, "b", false, 0, false),
        pod(3, "b", true, 0, true)), 100_000);
    assertEquals(4, status.replicas());
    assertEquals(3, status.readyReplicas());
    assertEquals(2, status.availableReplicas()); // web-1 is Ready for 5s < minReadySeconds 10
    assertEquals(2, status.currentReplicas());
    assertEquals(1, status.updatedReplicas()); // terminating pods count for neither revision
    assertEquals("a", status.currentRevision());
    assertEquals(4L, status.observedGeneration());
  }

  @Test
  void currentRevisionAdvancesOnlyWhenEveryPodIsUpdatedAndReady() {
    var pods = List.of(pod(0, "b", true, 0, false), pod(1, "b", true, 0, false));
    assertEquals("b", SetStatus.compute(1, 0, true, 2, "a", "b", 0, pods, 1).currentRevision());
    var notReady = List.of(pod(0, "b", true, 0, false), pod(1, "b", false, 0, false));
    assertEquals("a", SetStatus.compute(1, 0, true, 2, "a", "b", 0, notReady, 1).currentRevision());
  }

  /**
   * Issue #10's breach: partition 1, web-1 and web-2 updated, web-0 (below the partition) deleted.
   * The two pods left are all updated and ready, but the spec asks for three: the revision stays, so
   * web-0 comes back at the old one.
   */
  @Test
  void aRolloutIsCompleteOnlyWhenEveryOrdinalOfTheSpecExistsUpdatedAndReady() {
    var withoutWeb0 = List.of(pod(1, "b", true, 0, false), pod(2, "b", true, 0, false));
    assertEquals("a", SetStatus.compute(1, 0, true, 3, "a", "b", 0, withoutWeb0, 1).currentRevision());
    var web0Terminating = List.of(pod(0, "a", true, 0, true), pod(1, "b", true, 0, false), pod(2, "b", true, 0, false));
    assertEquals("a", SetStatus.compute(1, 0, true, 3, "a", "b", 0, web0Terminating, 1).currentRevision());
    var scaledDownWhileCondemnedTerminates = List.of(pod(0, "b", true, 0, false), pod(1, "b", true, 0, false),
        pod(2, "b", true, 0, true));
    assertEquals("a", SetStatus.compute(1, 0, true, 2, "a", "b", 0, scaledDownWhileCondemnedTerminates, 1)
        .currentRevision(), "not until the condemned pod is gone");
    assertEquals("b", SetStatus.compute(1, 0, true, 0, "a", "b", 0, List.of(), 1).currentRevision(),
        "scaled to zero: nothing left to update");
  }

  @Test
  void aNewSetStartsWithCurrentEqualToUpdate() {
    assertEquals("b", SetStatus.compute(1, 0, false, 0, null, "b", 0, List.of(), 1).currentRevision());
  }
}
