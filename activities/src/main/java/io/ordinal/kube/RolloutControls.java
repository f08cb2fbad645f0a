package io.ordinal.kube;

import io.fabric8.kubernetes.api.model.apps.RollingUpdateStatefulSetStrategy;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.ordinal.model.RolloutControl;
import java.util.Map;

/** Reads and writes a set's {@link RolloutControl} in its manifest (annotations and the pause field). */
public final class RolloutControls {
  private RolloutControls() {}

  /** Reads the control from a stored (defaulted and validated) set. */
  public static RolloutControl of(StatefulSet set, boolean rollingBack) {
    Map<String, String> annotations = Labels.annotations(set.getMetadata());
    String deadline = annotations.get(Labels.PROGRESS_DEADLINE_ANNOTATION);
    return new RolloutControl(paused(set),
        deadline == null ? RolloutControl.DEFAULT_PROGRESS_DEADLINE_SECONDS : Integer.parseInt(deadline.trim()),
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
