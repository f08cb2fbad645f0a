package io.ordinal.model;

import java.util.List;

/**
 * The state of one set as observed by an activity: the parts of the spec that drive the planner,
 * the revisions, and the pods. Kept small (no pod templates) so that workflow histories stay bounded.
 *
 * @param ordinalStart {@code spec.ordinals.start}: the first ordinal of the set
 * @param claimsToDelete claims that must go now: owned by a pod that is gone (whenScaled: Delete), or
 *     deleted by a user and no longer used by a pod (upstream's pvc-protection finalizer released)
 * @param hooks the membership hooks ({@code ordinal.io/member-hooks}); {@link MemberHooks#NONE} without
 * @param members with hooks: the ordinals that are members (joined through a hook, founded the set, or
 *     have a pod); a new ordinal joins through the preCreate hook, a condemned member leaves through preDelete
 * @param heldHook a hook that failed and holds membership changes until the set is resumed; null if none
 * @param foreignOrdinals ordinals of the range whose pod name is held by a pod the set does not control
 *     (released when its labels stopped matching, or another controller's): not created until it goes
 * @param reservedOrdinals ordinals the set does not run ({@code ordinal.io/reserved-ordinals}); see {@link OrdinalRange}
 * @param parallelConcurrency under Parallel, at most this many pods on their way at once (made and not
 *     yet Running and Ready, or being deleted) ({@code ordinal.io/parallel-concurrency}); 0 for no limit
 * @param inPlace whether a rolling update restarts a pod's containers in place rather than replacing
 *     it, and from which revisions it can ({@code ordinal.io/pod-update-policy})
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
    List<String> claimsToDelete,
    MemberHooks hooks,
    List<Integer> members,
    String heldHook,
    List<Integer> foreignOrdinals,
    List<Integer> reservedOrdinals,
    int parallelConcurrency,
    InPlaceUpdates inPlace) {

  public SetSnapshot {
    // Absent in observations recorded before these fields existed: their defaults keep the old plans.
    claimsToDelete = claimsToDelete == null ? List.of() : List.copyOf(claimsToDelete);
    hooks = hooks == null ? MemberHooks.NONE : hooks;
    members = members == null ? List.of() : List.copyOf(members);
    foreignOrdinals = foreignOrdinals == null ? List.of() : List.copyOf(foreignOrdinals);
    reservedOrdinals = reservedOrdinals == null ? List.of() : List.copyOf(reservedOrdinals);
    inPlace = inPlace == null ? InPlaceUpdates.NONE : inPlace;
  }

  /** A snapshot that replaces pods to update them (ReCreate). */
  public SetSnapshot(SetKey key, boolean exists, boolean deleting, long generation, int replicas, boolean parallel,
      int minReadySeconds, boolean rollingUpdate, int partition, int maxUnavailable, String currentRevision,
      String updateRevision, List<PodSnapshot> pods, RolloutControl rollout, int ordinalStart,
      List<String> claimsToDelete, MemberHooks hooks, List<Integer> members, String heldHook,
      List<Integer> foreignOrdinals, List<Integer> reservedOrdinals, int parallelConcurrency) {
    this(key, exists, deleting, generation, replicas, parallel, minReadySeconds, rollingUpdate, partition,
        maxUnavailable, currentRevision, updateRevision, pods, rollout, ordinalStart, claimsToDelete, hooks, members,
        heldHook, foreignOrdinals, reservedOrdinals, parallelConcurrency, null);
  }

  /** A snapshot with the default rollout control (not paused, default deadline, no auto-rollback). */
  public SetSnapshot(SetKey key, boolean exists, boolean deleting, long generation, int replicas, boolean parallel,
      int minReadySeconds, boolean rollingUpdate, int partition, int maxUnavailable, String currentRevision,
      String updateRevision, List<PodSnapshot> pods) {
    this(key, exists, deleting, generation, replicas, parallel, minReadySeconds, rollingUpdate, partition,
        maxUnavailable, currentRevision, updateRevision, pods, RolloutControl.DEFAULT, 0, List.of(), null, null, null, null, null, 0);
  }

  public SetSnapshot withRollout(RolloutControl control) {
    return new SetSnapshot(key, exists, deleting, generation, replicas, parallel, minReadySeconds, rollingUpdate,
        partition, maxUnavailable, currentRevision, updateRevision, pods, control, ordinalStart, claimsToDelete, hooks,
        members, heldHook, foreignOrdinals, reservedOrdinals, parallelConcurrency, inPlace);
  }

  public SetSnapshot withOrdinalStart(int start) {
    return new SetSnapshot(key, exists, deleting, generation, replicas, parallel, minReadySeconds, rollingUpdate,
        partition, maxUnavailable, currentRevision, updateRevision, pods, rollout, start, claimsToDelete, hooks, members,
        heldHook, foreignOrdinals, reservedOrdinals, parallelConcurrency, inPlace);
  }

  public SetSnapshot withClaimsToDelete(List<String> claims) {
    return new SetSnapshot(key, exists, deleting, generation, replicas, parallel, minReadySeconds, rollingUpdate,
        partition, maxUnavailable, currentRevision, updateRevision, pods, rollout, ordinalStart, claims, hooks, members,
        heldHook, foreignOrdinals, reservedOrdinals, parallelConcurrency, inPlace);
  }

  /** With membership hooks, the ordinals that are members, and the failed hook that holds changes (or null). */
  public SetSnapshot withMembership(MemberHooks memberHooks, List<Integer> memberOrdinals, String held) {
    return new SetSnapshot(key, exists, deleting, generation, replicas, parallel, minReadySeconds, rollingUpdate,
        partition, maxUnavailable, currentRevision, updateRevision, pods, rollout, ordinalStart, claimsToDelete,
        memberHooks, memberOrdinals, held, foreignOrdinals, reservedOrdinals, parallelConcurrency, inPlace);
  }

  /** With these pods, and the currentRevision their status computes. */
  public SetSnapshot withPods(List<PodSnapshot> observed, String current) {
    return new SetSnapshot(key, exists, deleting, generation, replicas, parallel, minReadySeconds, rollingUpdate,
        partition, maxUnavailable, current, updateRevision, observed, rollout, ordinalStart, claimsToDelete, hooks,
        members, heldHook, foreignOrdinals, reservedOrdinals, parallelConcurrency, inPlace);
  }

  /** With the ordinals whose pod name another owner's pod holds. */
  public SetSnapshot withForeignOrdinals(List<Integer> ordinals) {
    return new SetSnapshot(key, exists, deleting, generation, replicas, parallel, minReadySeconds, rollingUpdate,
        partition, maxUnavailable, currentRevision, updateRevision, pods, rollout, ordinalStart, claimsToDelete,
        hooks, members, heldHook, ordinals, reservedOrdinals, parallelConcurrency, inPlace);
  }

  /** With these ordinals reserved. */
  public SetSnapshot withReservedOrdinals(List<Integer> reserved) {
    return new SetSnapshot(key, exists, deleting, generation, replicas, parallel, minReadySeconds, rollingUpdate,
        partition, maxUnavailable, currentRevision, updateRevision, pods, rollout, ordinalStart, claimsToDelete,
        hooks, members, heldHook, foreignOrdinals, reserved, parallelConcurrency, inPlace);
  }

  /** With at most {@code concurrency} pods on their way at once under Parallel (0: no limit). */
  public SetSnapshot withParallelConcurrency(int concurrency) {
    return new SetSnapshot(key, exists, deleting, generation, replicas, parallel, minReadySeconds, rollingUpdate,
        partition, maxUnavailable, currentRevision, updateRevision, pods, rollout, ordinalStart, claimsToDelete,
        hooks, members, heldHook, foreignOrdinals, reservedOrdinals, concurrency, inPlace);
  }

  /** With this pod update policy and the revisions its pods can be updated in place from. */
  public SetSnapshot withInPlace(InPlaceUpdates updates) {
    return new SetSnapshot(key, exists, deleting, generation, replicas, parallel, minReadySeconds, rollingUpdate,
        partition, maxUnavailable, currentRevision, updateRevision, pods, rollout, ordinalStart, claimsToDelete,
        hooks, members, heldHook, foreignOrdinals, reservedOrdinals, parallelConcurrency, updates);
  }

  /** The ordinals the set runs: upstream's [ordinals.start, ordinals.start + replicas), less the reserved ones. */
  public OrdinalRange range() {
    return new OrdinalRange(ordinalStart, replicas, reservedOrdinals);
  }

  /** Upstream {@code podInOrdinalRange}, with reserved ordinals left out. */
  public boolean inRange(int ordinal) {
    return range().contains(ordinal);
  }

  /** One past the highest ordinal of the range. */
  public int endOrdinal() {
    return range().end();
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
