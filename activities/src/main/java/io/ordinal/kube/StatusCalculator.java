package io.ordinal.kube;

import io.fabric8.kubernetes.api.model.apps.StatefulSetStatus;
import io.fabric8.kubernetes.api.model.apps.StatefulSetStatusBuilder;
import io.ordinal.model.PodSnapshot;
import java.util.List;

/** Upstream's status arithmetic ({@code computeReplicaStatus} and {@code completeRollingUpdate}). Pure. */
public final class StatusCalculator {

  private StatusCalculator() {}

  /**
   * @param previousCurrentRevision the currentRevision recorded so far, null for a new set
   * @param pods every pod of the set, condemned ones included
   */
  public static StatefulSetStatus compute(
      long observedGeneration,
      int minReadySeconds,
      boolean rollingUpdate,
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
    if (rollingUpdate && updated == replicas && ready == replicas) {
      current = updated;
      currentRevision = updateRevision;
    }
    return new StatefulSetStatusBuilder()
        .withObservedGeneration(observedGeneration)
        .withReplicas(replicas)
        .withReadyReplicas(ready)
        .withAvailableReplicas(available)
        .withCurrentReplicas(current)
        .withUpdatedReplicas(updated)
        .withCurrentRevision(currentRevision)
        .withUpdateRevision(updateRevision)
        .withCollisionCount(collisionCount)
        .build();
  }
}
