package io.ordinal.planner;

/** One side effect the planner asks for. Each maps to one idempotent activity. */
public sealed interface Action {

  /** Create the pod for {@code ordinal} (and its PVCs, first) from {@code revision}. */
  record CreatePod(int ordinal, String revision) implements Action {}

  /** Delete the pod {@code podName}; {@code reason} ends up in the event. */
  record DeletePod(int ordinal, String podName, String reason) implements Action {}

  /**
   * Update pod {@code podName} to {@code revision} in place: the same pod (uid, address, volumes) with
   * its changed containers restarted at the revision's images and resources. It is unready until
   * they are Ready again, as a replacement would be.
   */
  record UpdatePodInPlace(int ordinal, String podName, String revision) implements Action {}

  /**
   * Bring the claims of pod {@code ordinal} in line with the set: their ownerReferences with the
   * retention policy (upstream's {@code UpdatePodClaimForRetentionPolicy}: the set when
   * {@code whenDeleted: Delete}, the pod when {@code whenScaled: Delete} and the ordinal is condemned,
   * so that the claim goes with it), and their size with a volumeClaimTemplate that grew.
   */
  record UpdateClaims(int ordinal, String podName) implements Action {}

  /** Delete claim {@code claimName} and its volume; {@code reason} ends up in the event. */
  record DeleteClaim(String claimName, String reason) implements Action {}

  /**
   * Run membership hook {@code hook} ({@code PreCreate} or {@code PreDelete}) for member
   * {@code ordinal}; {@code reason} ({@code ScaleUp}, {@code ScaleDown}, {@code Delete}) is passed to it.
   * The pod action that follows it in the plan runs only if it succeeds.
   */
  record RunHook(String hook, int ordinal, String podName, String reason) implements Action {}

  /** The set is being deleted and has no pods left: remove the set itself (PVCs are kept). */
  record FinishDeletion() implements Action {}
}
