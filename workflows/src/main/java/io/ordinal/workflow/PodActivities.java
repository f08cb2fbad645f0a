package io.ordinal.workflow;

import io.ordinal.model.SetKey;
import io.ordinal.workflow.SetActivities.StatusPublication;
import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;
import java.util.List;

/**
 * The port through which workflows create and delete a set's pods and claims. Idempotent: create if
 * absent by deterministic name, delete if present, so no identity is ever duplicated.
 */
@ActivityInterface
public interface PodActivities {
  /**
   * The failure type of a step asked, as a local activity, of a worker that is not the set's node:
   * the workflow then asks the node's own task queue.
   */
  String WRONG_NODE = "WrongNode";

  /** Ensures the PersistentVolumeClaims of the pod's volumeClaimTemplates exist. */
  @ActivityMethod
  void createClaims(PodCreation request);

  /**
   * Ensures the pod exists at its revision and starts it on the set's driver. Its claims are made
   * first if missing (runs since version 4 of {@link Steps#NAMED_STEPS}, and those before the named
   * steps, call no {@link #createClaims}: one activity, one marker, per pod).
   */
  @ActivityMethod
  void createPod(PodCreation request);

  /** Starts the graceful deletion of a pod, if it still exists and is not already terminating. */
  @ActivityMethod
  void deletePod(PodDeletion request);

  /**
   * Updates a pod to {@code revision} in place: the same pod, its changed containers restarted at the
   * revision's images and resources; unready until they are Ready again. A no-op when the pod is
   * gone, terminating, or already at the revision.
   */
  @ActivityMethod
  void updatePodInPlace(PodInPlaceUpdate request);

  /**
   * {@link #createPod} of several pods of one set, in their order: the creations a plan makes in a
   * row (a Parallel scale's) as one activity, one marker in the history (version 4 of the steps).
   */
  @ActivityMethod
  void createPods(PodCreations request);

  /** {@link #deletePod} of several pods of one set, in their order, as one activity. */
  @ActivityMethod
  void deletePods(PodDeletions request);

  /**
   * Makes the claims of pod {@code ordinal} what the set asks for now: ownerReferences by its
   * persistentVolumeClaimRetentionPolicy, size by its volumeClaimTemplates (expansion); a no-op when
   * they already are.
   */
  @ActivityMethod
  void updateClaims(ClaimUpdate request);

  /** Deletes a claim and its volume, if it still exists and no pod uses it; a no-op otherwise. */
  @ActivityMethod
  void deleteClaim(ClaimDeletion request);

  // Each request names the node that must run it (null: any instance; absent in histories recorded
  // before nodes existed). A pod step may carry the status the workflow last observed, published once
  // the step has acted (version 5 of the steps: no PublishStatus of its own); null for none.

  record PodCreation(SetKey set, int ordinal, String revision, String node, StatusPublication status) {
    public PodCreation(SetKey set, int ordinal, String revision, String node) {
      this(set, ordinal, revision, node, null);
    }

    public PodCreation(SetKey set, int ordinal, String revision) {
      this(set, ordinal, revision, null, null);
    }
  }

  record PodCreations(SetKey set, List<PodCreation> pods, String node, StatusPublication status) {
    public PodCreations(SetKey set, List<PodCreation> pods, String node) {
      this(set, pods, node, null);
    }
  }

  record PodDeletions(SetKey set, List<PodDeletion> pods, String node, StatusPublication status) {
    public PodDeletions(SetKey set, List<PodDeletion> pods, String node) {
      this(set, pods, node, null);
    }
  }

  record ClaimUpdate(SetKey set, int ordinal, String podName, String node) {
    public ClaimUpdate(SetKey set, int ordinal, String podName) {
      this(set, ordinal, podName, null);
    }
  }

  /** @param reason ends up in the event */
  record ClaimDeletion(SetKey set, String claimName, String reason, String node) {
    public ClaimDeletion(SetKey set, String claimName, String reason) {
      this(set, claimName, reason, null);
    }
  }

  record PodInPlaceUpdate(SetKey set, String podName, String revision, String node, StatusPublication status) {}

  /** @param reason ends up in the event */
  record PodDeletion(SetKey set, String podName, String reason, String node, StatusPublication status) {
    public PodDeletion(SetKey set, String podName, String reason, String node) {
      this(set, podName, reason, node, null);
    }

    public PodDeletion(SetKey set, String podName, String reason) {
      this(set, podName, reason, null, null);
    }
  }
}
