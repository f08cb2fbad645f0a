package io.ordinal.model;

import io.fabric8.kubernetes.api.model.apps.RollingUpdateStatefulSetStrategy;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import java.util.Map;

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

  /** Reads the control from a stored (defaulted and validated) set. */
  public static RolloutControl of(StatefulSet set, boolean rollingBack) {
    Map<String, String> annotations = set.getMetadata().getAnnotations() == null ? Map.of() : set.getMetadata().getAnnotations();
    String deadline = annotations.get(Labels.PROGRESS_DEADLINE_ANNOTATION);
    return new RolloutControl(paused(set),
        deadline == null ? DEFAULT_PROGRESS_DEADLINE_SECONDS : Integer.parseInt(deadline.trim()),
        "true".equals(annotations.get(Labels.AUTO_ROLLBACK_ANNOTATION)), rollingBack);
  }

  /** {@code spec.updateStrategy.rollingUpdate.paused}, which fabric8's model keeps as an additional property. */
  public static boolean paused(StatefulSet set) {
    RollingUpdateStatefulSetStrategy rolling = set.getSpec().getUpdateStrategy() == null ? null
        : set.getSpec().getUpdateStrategy().getRollingUpdate();
    return rolling != null && Boolean.TRUE.equals(rolling.getAdditionalProperties().get(Labels.PAUSED_FIELD));
  }

  /** Sets or clears the pause (clearing removes the field, as if it had never been written). */
  public static void setPaused(StatefulSet set, boolean paused) {
    var strategy = set.getSpec().getUpdateStrategy();
    if (strategy.getRollingUpdate() == null) {
      if (!paused) {
        return;
      }
      strategy.setRollingUpdate(new RollingUpdateStatefulSetStrategy());
    }
    if (paused) {
      strategy.getRollingUpdate().getAdditionalProperties().put(Labels.PAUSED_FIELD, true);
    } else {
      strategy.getRollingUpdate().getAdditionalProperties().remove(Labels.PAUSED_FIELD);
    }
  }
}
