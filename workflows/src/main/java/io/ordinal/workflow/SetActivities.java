package io.ordinal.workflow;

import io.ordinal.model.SetKey;
import io.ordinal.model.SetSnapshot;
import io.ordinal.model.SetStatus;
import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;
import java.util.List;

/**
 * The port through which workflows read and write a set, its revisions and its status. One method
 * per step, so the history of an operation reads as the operation. Every method is idempotent:
 * retried after a crash, it converges on the same outcome.
 */
@ActivityInterface
public interface SetActivities {

  /** Reads the set and its pods, computes its status, and says which writes are due. Writes nothing. */
  @ActivityMethod
  Observation observe(SetKey key);

  /**
   * Reads the set, and its pods and claims that changed since {@code request.since()} (all of them when
   * asked, when it is 0, or when the set is not the one the request knew: another uid, generation or
   * deletion state), each at least as new as the version it reports. Writes nothing but upstream's
   * adoption and release of the pods it reads.
   */
  @ActivityMethod
  SetChanges observeChanges(ChangesRequest request);

  /**
   * Ensures the ControllerRevision of the set's current template exists and is the newest (an older
   * revision brought back is renumbered, which makes the rollout to it a rollback).
   */
  @ActivityMethod
  void ensureRevision(SetKey key);

  /** Upstream's truncateHistory: deletes the oldest revisions beyond revisionHistoryLimit, never a live one. */
  @ActivityMethod
  void pruneHistory(HistoryPruning request);

  /** Writes the observed status (counts and revisions; conditions are kept). */
  @ActivityMethod
  void publishStatus(StatusPublication request);

  /** Records the set's running operation, the target of pod-change signals. */
  @ActivityMethod
  void claimOperation(OperationClaim claim);

  /**
   * Sets the set's {@code Progressing} condition (as a Deployment's), recording an event when it
   * changes; a no-op when it already says the same.
   */
  @ActivityMethod
  void setProgressing(ProgressingCondition condition);

  /**
   * Automatic rollback: puts the template of {@code toRevision} back into the set's spec, unless the
   * spec no longer asks for {@code failedRevision} (someone changed it since). Returns whether it did.
   */
  @ActivityMethod
  boolean rollBack(Rollback request);

  /**
   * A membership hook failed for good: holds membership changes (annotation {@code ordinal.io/held-hook})
   * until the set is resumed, with a {@code MembershipHook} condition and a warning event.
   */
  @ActivityMethod
  void holdForFailedHook(HookFailure failure);

  /**
   * Removes a set that is being deleted and has no pods of its own left (its claims go as its
   * retention policy says). False when it still has one (one was given to it since the observation):
   * the workflow observes again. Null in histories recorded while it returned nothing: it finished.
   */
  @ActivityMethod
  Boolean finishDeletion(SetKey key);

  /**
   * The single observation step of runs started before {@link Steps#NAMED_STEPS}: ensures the
   * revision, observes, prunes history and publishes status in one activity. Only such runs call it.
   */
  @ActivityMethod
  SetSnapshot refresh(SetKey key);

  /**
   * @param since the version of the last reading; 0 before the first
   * @param uid, generation, deleting the set as the last reading saw it
   * @param complete read every pod and claim, and say which changed since {@code since} (so that the
   *     workflow can check that the readings in between missed nothing)
   */
  record ChangesRequest(SetKey set, long since, String uid, long generation, boolean deleting, boolean complete) {}

  /** @param liveRevisions revisions that must be kept whatever their age */
  record HistoryPruning(SetKey set, List<String> liveRevisions) {}

  record StatusPublication(SetKey set, SetStatus status) {}

  record OperationClaim(SetKey set, String workflowId) {}

  record ProgressingCondition(SetKey set, boolean progressing, String reason, String message) {}

  record Rollback(SetKey set, String failedRevision, String toRevision, String reason) {}

  record HookFailure(SetKey set, String hook, String podName, String message) {}
}
