package io.ordinal.workflow;

import io.temporal.activity.ActivityInterface;

/**
 * The steps of taking over a running apps/v1 StatefulSet of a cluster, each idempotent: a retried or
 * replayed step finds its work done and does nothing.
 */
@ActivityInterface
public interface AdoptionActivities {
  /** The type of the failure {@link #plan} throws for a set that cannot be adopted safely (not retried). */
  String REFUSED = "AdoptionRefused";

  /**
   * Reads the set and its pods from the cluster; refuses what cannot be adopted without a restart
   * (a rollout in progress, a pod not Ready, not current or not matching the selector, a template
   * whose revision Ordinal names otherwise, a spec Ordinal does not accept).
   */
  AdoptionPlan plan(String namespace, String name);

  /**
   * Ordinal's records of the set's pods (their uids kept), claims and revisions (their names, numbers
   * and templates kept, so undo goes back to them), with no owner yet.
   */
  void importRecords(AdoptionPlan plan);

  /** Removes {@link #importRecords}'s records: the adoption stopped before the apps/v1 object went. */
  void forgetRecords(AdoptionPlan plan);

  /**
   * Deletes the apps/v1 object with propagationPolicy Orphan (its pods keep running, their owner
   * reference removed by the cluster's garbage collector) and waits until it is gone. Refuses if the
   * set changed since {@link #plan} found it adoptable (and it is not being deleted yet).
   */
  void orphanUpstream(AdoptionPlan plan);

  /** The apps.ordinal.io object of the same name and spec (made unless it is there): returns its uid. */
  String createObject(AdoptionPlan plan);

  /** The pods in the cluster: controlled by that object, marked as the incarnations Ordinal records. */
  void moveOwnership(AdoptionPlan plan, String objectUid);

  /** Waits until Ordinal's set controls every pod, at the same revision, none replaced. */
  void awaitControlled(AdoptionPlan plan);
}
