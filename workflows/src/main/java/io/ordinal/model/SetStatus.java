package io.ordinal.model;

import java.util.List;

/**
 * A set's observed status, the counts and revisions of apps/v1 {@code StatefulSetStatus} without its
 * conditions (those are the rollouts' to set).
 */
public record SetStatus(
    long observedGeneration,
    int replicas,
    int readyReplicas,
    int availableReplicas,
    int currentReplicas,
    int updatedReplicas,
    String currentRevision,
    String updateRevision,
    int collisionCount) {

  /**
   * Upstream's status arithmetic ({@code computeReplicaStatus} and {@code completeRollingUpdate}). Pure.
   *
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
}
