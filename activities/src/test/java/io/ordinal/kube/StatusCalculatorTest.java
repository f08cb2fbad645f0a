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
    assertEquals(4, status.getReplicas());
    assertEquals(3, status.getReadyReplicas());
    assertEquals(2, status.getAvailableReplicas()); // web-1 is Ready for 5s < minReadySeconds 10
    assertEquals(2, status.getCurrentReplicas());
    assertEquals(1, status.getUpdatedReplicas()); // terminating pods count for neither revision
    assertEquals("a", status.getCurrentRevision());
    assertEquals(4L, status.getObservedGeneration());
  }

  @Test
  void currentRevisionAdvancesOnlyWhenEveryPodIsUpdatedAndReady() {
    var pods = List.of(pod(0, "b", true, 0, false), pod(1, "b", true, 0, false));
    assertEquals("b", StatusCalculator.compute(1, 0, true, "a", "b", 0, pods, 1).getCurrentRevision());
    var notReady = List.of(pod(0, "b", true, 0, false), pod(1, "b", false, 0, false));
    assertEquals("a", StatusCalculator.compute(1, 0, true, "a", "b", 0, notReady, 1).getCurrentRevision());
  }

  @Test
  void aNewSetStartsWithCurrentEqualToUpdate() {
    assertEquals("b", StatusCalculator.compute(1, 0, false, null, "b", 0, List.of(), 1).getCurrentRevision());
  }
}
