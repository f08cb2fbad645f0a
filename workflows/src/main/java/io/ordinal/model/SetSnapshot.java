package io.ordinal.model;

import java.util.List;

/**
 * The state of one set as observed by an activity: the parts of the spec that drive the planner,
 * the revisions, and the pods. Kept small (no pod templates) so that workflow histories stay bounded.
 */
public record SetSnapshot(
    SetKey key,
    boolean exists,
    boolean deleting,
    long generation,
    int replicas,
    boolean parallel,
    int minReadySeconds,
    boolean rollingUpdate,
    int partition,
    int maxUnavailable,
    String currentRevision,
    String updateRevision,
    List<PodSnapshot> pods,
    RolloutControl rollout) {

  /** A snapshot with the default rollout control (not paused, default deadline, no auto-rollback). */
  public SetSnapshot(SetKey key, boolean exists, boolean deleting, long generation, int replicas, boolean parallel,
      int minReadySeconds, boolean rollingUpdate, int partition, int maxUnavailable, String currentRevision,
      String updateRevision, List<PodSnapshot> pods) {
    this(key, exists, deleting, generation, replicas, parallel, minReadySeconds, rollingUpdate, partition,
        maxUnavailable, currentRevision, updateRevision, pods, RolloutControl.DEFAULT);
  }

  public SetSnapshot withRollout(RolloutControl control) {
    return new SetSnapshot(key, exists, deleting, generation, replicas, parallel, minReadySeconds, rollingUpdate,
        partition, maxUnavailable, currentRevision, updateRevision, pods, control);
  }

  /** Pods on the update revision that are available: a rollout's measure of progress. */
  public int availableOnUpdateRevision(long nowMillis) {
    return (int) pods.stream()
        .filter(p -> !p.terminating() && p.revision().equals(updateRevision) && p.available(minReadySeconds, nowMillis))
        .count();
  }

  public static SetSnapshot absent(SetKey key) {
    return new SetSnapshot(key, false, false, 0, 0, false, 0, true, 0, 1, null, null, List.of());
  }
}
