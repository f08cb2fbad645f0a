package io.ordinal.kube;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.ordinal.model.PodSnapshot;
import java.util.List;
import org.junit.jupiter.api.Test;

class StatusCalculatorTest {
  static PodSnapshot pod(int ordinal, String revision, boolean ready, long readySince, boolean terminating) {
    return new PodSnapshot(ordinal, "web-" + ordinal, revision, PodSnapshot.RUNNING, ready, readySince, terminating);
  }

  @Test
  void countsFollowUpstream() {
    var status = StatusCalculator.compute(4, 10, true, "a", "b", 0, List.of(
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
    assertEquals("b", StatusCalculator.compute(1, 0, true, "a", "b", 0, pods, 1).currentRevision());
    var notReady = List.of(pod(0, "b", true, 0, false), pod(1, "b", false, 0, false));
    assertEquals("a", StatusCalculator.compute(1, 0, true, "a", "b", 0, notReady, 1).currentRevision());
  }

  @Test
  void aNewSetStartsWithCurrentEqualToUpdate() {
    assertEquals("b", StatusCalculator.compute(1, 0, false, null, "b", 0, List.of(), 1).currentRevision());
  }
}
