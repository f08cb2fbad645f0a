package io.ordinal.model;

/**
 * What steers a rollout beyond upstream's fields.
 *
 * @param paused {@code spec.updateStrategy.rollingUpdate.paused} (OpenKruise's field): no pod is
 *     replaced for the update while true; scaling and repairs go on
 * @param progressDeadlineSeconds {@code ordinal.io/progress-deadline-seconds}: how long a rollout may
 *     go without a pod becoming available on the target revision before it is marked failed
 * @param autoRollback {@code ordinal.io/auto-rollback: "true"}: a failed rollout reverts by itself
 * @param rollingBack the update revision is an older revision brought back (an undo or a reverted
 *     template), so this rollout is a rollback
 */
public record RolloutControl(boolean paused, int progressDeadlineSeconds, boolean autoRollback, boolean rollingBack) {
  public static final int DEFAULT_PROGRESS_DEADLINE_SECONDS = 600;
  public static final RolloutControl DEFAULT = new RolloutControl(false, DEFAULT_PROGRESS_DEADLINE_SECONDS, false, false);
}
