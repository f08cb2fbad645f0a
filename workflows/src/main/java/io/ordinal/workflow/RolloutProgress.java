package io.ordinal.workflow;

import io.ordinal.model.SetSnapshot;

/**
 * Progress-deadline bookkeeping of one rollout, like a Deployment's {@code progressDeadlineSeconds}:
 * the rollout fails when no pod becomes available on the target revision for that long. The clock
 * stands still while the rollout is paused and restarts when it is resumed. Pure; immutable.
 *
 * @param bestAvailable the most pods seen available on the target revision
 * @param lastProgressMillis when that number last grew (or the rollout started or was resumed)
 * @param paused whether the rollout was paused at the last observation
 * @param failed whether the deadline has passed without progress
 */
public record RolloutProgress(int bestAvailable, long lastProgressMillis, boolean paused, boolean failed) {

  static RolloutProgress start(SetSnapshot set, long nowMillis) {
    return new RolloutProgress(set.availableOnUpdateRevision(nowMillis), nowMillis, set.rollout().paused(), false);
  }

  /** The bookkeeping after observing {@code set} at {@code nowMillis}. */
  RolloutProgress observe(SetSnapshot set, long nowMillis) {
    int available = set.availableOnUpdateRevision(nowMillis);
    boolean pausedNow = set.rollout().paused();
    if (pausedNow || paused) {
      // Paused, or just resumed: the deadline counts from the resume.
      return new RolloutProgress(Math.max(bestAvailable, available), nowMillis, pausedNow, pausedNow && failed);
    }
    if (available > bestAvailable) {
      return new RolloutProgress(available, nowMillis, false, false);
    }
    boolean overdue = nowMillis >= deadlineMillis(set);
    return new RolloutProgress(bestAvailable, lastProgressMillis, false, failed || overdue);
  }

  long deadlineMillis(SetSnapshot set) {
    return lastProgressMillis + set.rollout().progressDeadlineSeconds() * 1000L;
  }
}
