package io.ordinal.kube;

import io.fabric8.kubernetes.api.model.apps.StatefulSetCondition;
import io.fabric8.kubernetes.api.model.apps.StatefulSetStatus;
import io.fabric8.kubernetes.api.model.apps.StatefulSetStatusBuilder;
import io.ordinal.model.PodSnapshot;
import io.ordinal.model.SetStatus;
import java.util.List;

/** Upstream's status arithmetic ({@code computeReplicaStatus} and {@code completeRollingUpdate}). Pure. */
public final class StatusCalculator {

  private StatusCalculator() {}

  /**
   * @param specReplicas the replicas the spec asks for: a rolling update is complete only when that
   *     many pods exist, all updated and ready (upstream compares with spec.replicas, not with the
   *     pods that happen to exist: a pod deleted below the partition must not promote the revision,
   *     or it would come back at the new one)
   * @param previousCurrentRevision the currentRevision recorded so far, null for a new set
   * @param pods every pod of the set, condemned ones included
   */
  public static SetStatus compute(
      long observedGeneration,
      int minReadySeconds,
      boolean rollingUpdate,
      int specReplicas,
      String previousCurrentRevision,
      String updateRevision,
      int collisionCount,
      List<PodSnapshot> pods,
      long nowMillis) {
    String currentRevision = previousCurrentRevision == null ? updateRevision : previousCurrentRevision;
    int replicas = 0, ready = 0, available = 0, current = 0, updated = 0;
    for (PodSnapshot pod : pods) {
      replicas++;
      if (pod.runningAndReady()) {
        ready++;
        if (pod.available(minReadySeconds, nowMillis)) {
          available++;
        }
      }
      if (!pod.terminating()) {
        if (pod.revision().equals(currentRevision)) {
          current++;
        }
        if (pod.revision().equals(updateRevision)) {
          updated++;
        }
      }
    }
    if (rollingUpdate && updated == specReplicas && ready == specReplicas && replicas == specReplicas) {
      current = updated;
      currentRevision = updateRevision;
    }
    return new SetStatus(observedGeneration, replicas, ready, available, current, updated, currentRevision,
        updateRevision, collisionCount);
  }

  /** The apps/v1 status object: {@code status} with {@code conditions}. */
  public static StatefulSetStatus toObject(SetStatus status, List<StatefulSetCondition> conditions) {
    StatefulSetStatus object = new StatefulSetStatusBuilder()
        .withObservedGeneration(status.observedGeneration())
        .withReplicas(status.replicas())
        .withReadyReplicas(status.readyReplicas())
        .withAvailableReplicas(status.availableReplicas())
        .withCurrentReplicas(status.currentReplicas())
        .withUpdatedReplicas(status.updatedReplicas())
        .withCurrentRevision(status.currentRevision())
        .withUpdateRevision(status.updateRevision())
        .withCollisionCount(status.collisionCount())
        .build();
    object.setConditions(conditions);
    return object;
  }
}
