package io.ordinal.workflow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ordinal.model.PodSnapshot;
import io.ordinal.model.RolloutControl;
import io.ordinal.model.SetKey;
import io.ordinal.model.SetSnapshot;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The progress deadline, and which operation a set needs. */
class RolloutProgressTest {
  static final SetKey KEY = new SetKey("default", "web");
  static final int DEADLINE = 60;

  @Test
  void failsWhenNoPodBecomesAvailableOnTheTargetWithinTheDeadline() {
    RolloutProgress start = RolloutProgress.start(set(false, "a", "a", "a"), 0);
    assertFalse(start.observe(set(false, "a", "a", "a"), 59_999).failed());
    assertTrue(start.observe(set(false, "a", "a", "a"), 60_000).failed());
  }

  @Test
  void eachPodThatBecomesAvailableOnTheTargetRestartsTheClock() {
    RolloutProgress progress = RolloutProgress.start(set(false, "a", "a", "a"), 0)
        .observe(set(false, "a", "a", "b"), 50_000);
    assertEquals(1, progress.bestAvailable());
    assertFalse(progress.observe(set(false, "a", "a", "b"), 109_999).failed());
    assertTrue(progress.observe(set(false, "a", "a", "b"), 110_000).failed());
  }

  @Test
  void aPausedRolloutNeverFailsAndItsDeadlineCountsFromTheResume() {
    RolloutProgress progress = RolloutProgress.start(set(false, "a", "a", "a"), 0)
        .observe(set(true, "a", "a", "a"), 30_000)
        .observe(set(true, "a", "a", "a"), 500_000);
    assertFalse(progress.failed());
    RolloutProgress resumed = progress.observe(set(false, "a", "a", "a"), 600_000);
    assertFalse(resumed.failed());
    assertEquals(660_000, resumed.deadlineMillis(set(false, "a", "a", "a")));
  }

  @Test
  void aFailedRolloutRecoversWhenAPodBecomesAvailable() {
    RolloutProgress failed = RolloutProgress.start(set(false, "a", "a", "a"), 0).observe(set(false, "a", "a", "a"), 70_000);
    assertTrue(failed.failed());
    assertFalse(failed.observe(set(false, "a", "a", "b"), 80_000).failed());
  }

  @Test
  void theOperationFollowsFromWhatChanged() {
    SetSnapshot rollout = set(false, "a", "a", "a");
    assertEquals(Operation.ROLLOUT, Operation.choose(rollout, 1));
    assertEquals(Operation.REPAIR, Operation.choose(rollout, 2), "same generation: a repair");
    assertEquals(Operation.ROLLBACK, Operation.choose(rollout.withRollout(new RolloutControl(false, DEADLINE, false, true)), 1));
    SetSnapshot scaled = new SetSnapshot(KEY, true, false, 2, 3, false, 0, true, 0, 1, "b", "b", pods("b", "b", "b"));
    assertEquals(Operation.SCALE, Operation.choose(scaled, 1));
    SetSnapshot reverted = new SetSnapshot(KEY, true, false, 2, 3, false, 0, true, 0, 1, "a", "a", pods("a", "a", "b"));
    assertEquals(Operation.ROLLOUT, Operation.choose(reverted, 1), "update equals current, but a pod is off target");
  }

  /** A set updating from revision a to b; pods are given by their revisions, all Running and Ready since t=0. */
  static SetSnapshot set(boolean paused, String... revisions) {
    return new SetSnapshot(KEY, true, false, 2, revisions.length, false, 0, true, 0, 1, "a", "b", pods(revisions))
        .withRollout(new RolloutControl(paused, DEADLINE, false, false));
  }

  static List<PodSnapshot> pods(String... revisions) {
    List<PodSnapshot> pods = new ArrayList<>();
    for (int i = 0; i < revisions.length; i++) {
      pods.add(new PodSnapshot(i, KEY.podName(i), revisions[i], PodSnapshot.RUNNING, true, 0, false));
    }
    return pods;
  }
}
