package io.ordinal.api.statefulset;

import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetCondition;
import io.ordinal.kube.RolloutControls;
import io.ordinal.kube.StatefulSetFields;
import java.util.Objects;

/**
 * A set's rollout state, with {@code kubectl rollout status}'s messages (its StatefulSet status
 * viewer) for the phases kubectl knows. Pure.
 *
 * @param phase Complete, Paused, Failed (the progress deadline passed), RollingBack (the update
 *     revision is an older one brought back) or Progressing
 * @param done whether {@code kubectl rollout status} would stop waiting
 */
public record RolloutStatus(String phase, String message, boolean done, int replicas, int readyReplicas,
    int updatedReplicas, String currentRevision, String updateRevision) {
  public static final String COMPLETE = "Complete";
  public static final String PAUSED = "Paused";
  public static final String FAILED = "Failed";
  public static final String ROLLING_BACK = "RollingBack";
  public static final String PROGRESSING = "Progressing";

  /** @param rollingBack whether the update revision is an older revision brought back */
  public static RolloutStatus of(StatefulSet set, boolean rollingBack) {
    var spec = set.getSpec();
    var status = set.getStatus();
    int replicas = spec.getReplicas();
    int ready = nz(status.getReadyReplicas());
    int updated = nz(status.getUpdatedReplicas());
    String current = status.getCurrentRevision();
    String update = status.getUpdateRevision();
    if (!StatefulSetFields.ROLLING_UPDATE.equals(spec.getUpdateStrategy().getType())) {
      return progressing("rollout status is only available for RollingUpdate strategy type", set, rollingBack);
    }
    long observed = status.getObservedGeneration() == null ? 0 : status.getObservedGeneration();
    if (observed == 0 || set.getMetadata().getGeneration() > observed) {
      return progressing("Waiting for statefulset spec update to be observed...", set, rollingBack);
    }
    int partition = spec.getUpdateStrategy().getRollingUpdate() == null ? 0
        : nz(spec.getUpdateStrategy().getRollingUpdate().getPartition());
    int wanted = Math.max(0, replicas - partition);
    boolean updatedEnough = partition > 0 ? updated >= wanted : Objects.equals(update, current);
    if (ready >= replicas && updatedEnough) {
      String message = partition > 0
          ? "partitioned roll out complete: " + updated + " new pods have been updated..."
          : "statefulset rolling update complete " + nz(status.getCurrentReplicas()) + " pods at revision " + current + "...";
      return new RolloutStatus(COMPLETE, message, true, replicas, ready, updated, current, update);
    }
    String waiting = ready < replicas ? "Waiting for " + (replicas - ready) + " pods to be ready..."
        : partition > 0 ? "Waiting for partitioned roll out to finish: " + updated + " out of " + wanted
            + " new pods have been updated..."
        : "waiting for statefulset rolling update to complete " + updated + " pods at revision " + update + "...";
    if (RolloutControls.paused(set)) {
      return new RolloutStatus(PAUSED, "rollout paused: " + updated + " of " + replicas + " pods at revision " + update
          + "; resume it to go on", false, replicas, ready, updated, current, update);
    }
    StatefulSetCondition progressing = status.getConditions() == null ? null : status.getConditions().stream()
        .filter(c -> "Progressing".equals(c.getType())).findFirst().orElse(null);
    if (progressing != null && "False".equals(progressing.getStatus())) {
      return new RolloutStatus(FAILED, progressing.getReason() + ": " + progressing.getMessage(), false,
          replicas, ready, updated, current, update);
    }
    return progressing(waiting, set, rollingBack);
  }

  private static RolloutStatus progressing(String message, StatefulSet set, boolean rollingBack) {
    var s = set.getStatus();
    return new RolloutStatus(rollingBack ? ROLLING_BACK : PROGRESSING, message, false, set.getSpec().getReplicas(),
        nz(s.getReadyReplicas()), nz(s.getUpdatedReplicas()), s.getCurrentRevision(), s.getUpdateRevision());
  }

  private static int nz(Integer value) {
    return value == null ? 0 : value;
  }
}
