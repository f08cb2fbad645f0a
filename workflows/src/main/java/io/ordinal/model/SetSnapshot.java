package io.ordinal.model;

import java.util.List;

/**
 * The state of one set as observed by an activity: the parts of the spec that drive the planner,
 * the revisions, and the pods. Kept small (no pod templates) so that workflow histories stay bounded.
 *
 * @param ordinalStart {@code spec.ordinals.start}: the first ordinal of the set
 * @param claimsToDelete claims that must go now: owned by a pod that is gone (whenScaled: Delete), or
 *     deleted by a user and no longer used by a pod (upstream's pvc-protection finalizer released)
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
    RolloutControl rollout,
    int ordinalStart,
    List<String> claimsToDelete) {

  public SetSnapshot {
    // Absent in observations recorded before these fields existed: their defaults keep the old plans.
    claimsToDelete = claimsToDelete == null ? List.of() : List.copyOf(claimsToDelete);
  }

  /** A snapshot with the default rollout control (not paused, default deadline, no auto-rollback). */
  public SetSnapshot(SetKey key, boolean exists, boolean deleting, long generation, int replicas, boolean parallel,
      int minReadySeconds, boolean rollingUpdate, int partition, int maxUnavailable, String currentRevision,
      String updateRevision, List<PodSnapshot> pods) {
    this(key, exists, deleting, generation, replicas, parallel, minReadySeconds, rollingUpdate, partition,
        maxUnavailable, currentRevision, updateRevision, pods, RolloutControl.DEFAULT, 0, List.of());
  }

  public SetSnapshot withRollout(RolloutControl control) {
    return new SetSnapshot(key, exists, deleting, generation, replicas, parallel, minReadySeconds, rollingUpdate,
        partition, maxUnavailable, currentRevision, updateRevision, pods, control, ordinalStart, claimsToDelete);
  }

  public SetSnapshot withOrdinalStart(int start) {
    return new SetSnapshot(key, exists, deleting, generation, replicas, parallel, minReadySeconds, rollingUpdate,
        partition, maxUnavailable, currentRevision, updateRevision, pods, rollout, start, claimsToDelete);
  }

  public SetSnapshot withClaimsToDelete(List<String> claims) {
    return new SetSnapshot(key, exists, deleting, generation, replicas, parallel, minReadySeconds, rollingUpdate,
        partition, maxUnavailable, currentRevision, updateRevision, pods, rollout, ordinalStart, claims);
  }

  /** Upstream {@code podInOrdinalRange}: the set's pods are ordinals [ordinals.start, ordinals.start + replicas). */
  public boolean inRange(int ordinal) {
    return ordinal >= ordinalStart && ordinal < ordinalStart + replicas;
  }

  /** One past the highest ordinal of the range. */
  public int endOrdinal() {
    return ordinalStart + replicas;
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
