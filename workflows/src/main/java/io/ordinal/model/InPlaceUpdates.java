package io.ordinal.model;

import java.util.List;

/**
 * How a rolling update brings a pod to the update revision ({@code ordinal.io/pod-update-policy}):
 * by replacing it ({@code ReCreate}, upstream's only way), or by restarting its containers in the
 * same pod when the two revisions differ only in their containers' images and resources
 * ({@code InPlaceIfPossible}, else a replacement; {@code InPlaceOnly}, else the pod waits).
 *
 * @param fromRevisions the revisions from which the set's driver can update a pod in place to the
 *     update revision; empty under ReCreate
 */
public record InPlaceUpdates(String policy, List<String> fromRevisions) {
  public static final String RECREATE = "ReCreate";
  public static final String IF_POSSIBLE = "InPlaceIfPossible";
  public static final String ONLY = "InPlaceOnly";
  public static final InPlaceUpdates NONE = new InPlaceUpdates(RECREATE, List.of());

  public InPlaceUpdates {
    policy = policy == null ? RECREATE : policy;
    fromRevisions = fromRevisions == null ? List.of() : List.copyOf(fromRevisions);
  }

  /** Whether a pod at {@code revision} is updated in place. */
  public boolean possibleFrom(String revision) {
    return !RECREATE.equals(policy) && fromRevisions.contains(revision);
  }

  /** Whether a pod that cannot be updated in place must wait rather than be replaced. */
  public boolean only() {
    return ONLY.equals(policy);
  }
}
