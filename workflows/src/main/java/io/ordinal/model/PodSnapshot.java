package io.ordinal.model;

/**
 * What the planner needs to know about one pod of a set, as observed at one instant.
 *
 * @param readySinceMillis when the pod last became Ready (epoch millis), 0 when it is not Ready
 * @param claimsStale the pod's claims are not yet what the set asks for: their ownerReferences by its
 *     persistentVolumeClaimRetentionPolicy (upstream's {@code isClaimOwnerUpToDate}), or their size
 *     by a volumeClaimTemplate that grew
 * @param leader the pod carries the set's leader label ({@code ordinal.io/leader-label}): a rolling
 *     update replaces it last
 * @param labelledRevision with member overrides, the revision the pod's label names when {@code
 *     revision} is another that gives it the same template (the planner sees it at that one; the one it
 *     was made from is still live history); null otherwise
 */
public record PodSnapshot(
    int ordinal,
    String name,
    String revision,
    String phase,
    boolean ready,
    long readySinceMillis,
    boolean terminating,
    boolean claimsStale,
    boolean leader,
    String labelledRevision) {

  public PodSnapshot(int ordinal, String name, String revision, String phase, boolean ready, long readySinceMillis,
      boolean terminating, boolean claimsStale, boolean leader) {
    this(ordinal, name, revision, phase, ready, readySinceMillis, terminating, claimsStale, leader, null);
  }

  public PodSnapshot(int ordinal, String name, String revision, String phase, boolean ready, long readySinceMillis,
      boolean terminating) {
    this(ordinal, name, revision, phase, ready, readySinceMillis, terminating, false, false);
  }

  public PodSnapshot(int ordinal, String name, String revision, String phase, boolean ready, long readySinceMillis,
      boolean terminating, boolean claimsStale) {
    this(ordinal, name, revision, phase, ready, readySinceMillis, terminating, claimsStale, false);
  }

  /** The pod as at {@code other}: a revision that gives it the template it runs (member overrides). */
  public PodSnapshot atRevision(String other) {
    return new PodSnapshot(ordinal, name, other, phase, ready, readySinceMillis, terminating, claimsStale, leader,
        labelledRevision == null ? revision : labelledRevision);
  }

  public PodSnapshot asLeader(boolean isLeader) {
    return new PodSnapshot(ordinal, name, revision, phase, ready, readySinceMillis, terminating, claimsStale, isLeader,
        labelledRevision);
  }

  public static final String PENDING = "Pending";
  public static final String RUNNING = "Running";
  public static final String SUCCEEDED = "Succeeded";
  public static final String FAILED = "Failed";

  /** Upstream {@code isFailed}/{@code isSucceeded}: a pod that will never run again and must be replaced. */
  public boolean finished() {
    return finished(phase);
  }

  private static boolean finished(String phase) {
    return FAILED.equals(phase) || SUCCEEDED.equals(phase);
  }

  /**
   * Whether a pod's status going from one phase and readiness to another can change what its set's
   * workflow plans or counts: its readiness, whether it finished, whether it runs Ready. A pod going
   * from Pending to Running unready changes neither, so its set's workflow need not be woken for it
   * (it reads the change with the next one).
   */
  public static boolean statusMatters(String phaseBefore, boolean readyBefore, String phaseAfter, boolean readyAfter) {
    return readyBefore != readyAfter || finished(phaseBefore) != finished(phaseAfter)
        || (RUNNING.equals(phaseBefore) && readyBefore) != (RUNNING.equals(phaseAfter) && readyAfter);
  }

  public boolean runningAndReady() {
    return RUNNING.equals(phase) && ready;
  }

  /** Upstream {@code isRunningAndAvailable}: Running, Ready, and Ready for at least minReadySeconds. */
  public boolean available(int minReadySeconds, long nowMillis) {
    return runningAndReady() && (minReadySeconds <= 0 || readySinceMillis + minReadySeconds * 1000L <= nowMillis);
  }

  /** When this pod becomes available, if it is Ready now; 0 when it is not Ready. */
  public long availableAtMillis(int minReadySeconds) {
    return runningAndReady() ? readySinceMillis + Math.max(0, minReadySeconds) * 1000L : 0;
  }

  /** Upstream {@code isHealthy}: Running and Ready, and not being deleted. */
  public boolean healthy() {
    return runningAndReady() && !terminating;
  }
}
