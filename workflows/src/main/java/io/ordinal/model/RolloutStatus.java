package io.ordinal.model;

import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import java.util.Objects;

/**
 * A set's rollout state with {@code kubectl rollout status}'s messages (its StatefulSet status
 * viewer). Pure.
 *
 * @param phase Progressing or Complete (Paused, RollingBack and Failed come with rollout control)
 */
public record RolloutStatus(String phase, String message, boolean done, int replicas, int readyReplicas,
    int updatedReplicas, String currentRevision, String updateRevision) {

  public static RolloutStatus of(StatefulSet set) {
    var spec = set.getSpec();
    var status = set.getStatus();
    int replicas = spec.getReplicas();
    int ready = nz(status.getReadyReplicas());
    int updated = nz(status.getUpdatedReplicas());
    String current = status.getCurrentRevision();
    String update = status.getUpdateRevision();
    if (!StatefulSetDefaults.ROLLING_UPDATE.equals(spec.getUpdateStrategy().getType())) {
      return progressing("rollout status is only available for RollingUpdate strategy type", false, set);
    }
    long observed = status.getObservedGeneration() == null ? 0 : status.getObservedGeneration();
    if (observed == 0 || set.getMetadata().getGeneration() > observed) {
      return progressing("Waiting for statefulset spec update to be observed...", false, set);
    }
    if (ready < replicas) {
      return progressing("Waiting for " + (replicas - ready) + " pods to be ready...", false, set);
    }
    int partition = spec.getUpdateStrategy().getRollingUpdate() == null ? 0
        : nz(spec.getUpdateStrategy().getRollingUpdate().getPartition());
    if (partition > 0) {
      int wanted = Math.max(0, replicas - partition);
      if (updated < wanted) {
        return progressing("Waiting for partitioned roll out to finish: " + updated + " out of " + wanted
            + " new pods have been updated...", false, set);
      }
      return new RolloutStatus("Complete", "partitioned roll out complete: " + updated + " new pods have been updated...",
          true, replicas, ready, updated, current, update);
    }
    if (!Objects.equals(update, current)) {
      return progressing("waiting for statefulset rolling update to complete " + updated + " pods at revision "
          + update + "...", false, set);
    }
    return new RolloutStatus("Complete", "statefulset rolling update complete " + nz(status.getCurrentReplicas())
        + " pods at revision " + current + "...", true, replicas, ready, updated, current, update);
  }

  private static RolloutStatus progressing(String message, boolean done, StatefulSet set) {
    var s = set.getStatus();
    return new RolloutStatus("Progressing", message, done, set.getSpec().getReplicas(), nz(s.getReadyReplicas()),
        nz(s.getUpdatedReplicas()), s.getCurrentRevision(), s.getUpdateRevision());
  }

  private static int nz(Integer value) {
    return value == null ? 0 : value;
  }
}
