package io.ordinal.workflow;

import io.temporal.activity.ActivityInterface;

/**
 * The steps of handing a set Ordinal runs in a cluster back to upstream's controller, each
 * idempotent. Activity names differ from {@link AdoptionActivities}'s: one worker runs both.
 */
@ActivityInterface
public interface ReleaseActivities {
  /**
   * Reads Ordinal's set and the cluster; refuses (type {@link AdoptionActivities#REFUSED}) what
   * cannot be handed back without a restart: a rollout or scale in progress, a pod not Ready or not
   * current, a set not from the cluster, an apps/v1 object of that name.
   */
  ReleasePlan planRelease(String namespace, String name);

  /** The set's revisions as ControllerRevisions in the cluster, with no owner (upstream's controller adopts them). */
  void writeRevisions(ReleasePlan plan);

  /**
   * Deletes the apps.ordinal.io object with propagationPolicy Orphan and waits until it and Ordinal's
   * set are gone, the pods left running. Refuses if the set changed since {@link #planRelease}.
   */
  void orphanOrdinal(ReleasePlan plan);

  /** The pods and claims stop being Ordinal's (their marks removed), then Ordinal's records of them go. */
  void detach(ReleasePlan plan);

  /** The apps/v1 object (made unless there): returns its uid. */
  String createUpstream(ReleasePlan plan);

  /** Waits until upstream's controller controls every pod, reports the set current, and none was replaced. */
  void awaitUpstream(ReleasePlan plan, String uid);
}
