package io.ordinal.workflow;

import io.ordinal.model.SetKey;
import io.ordinal.model.SetSnapshot;
import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;

/**
 * The port through which workflows observe and change the world. Every method is idempotent:
 * retried after a crash, it converges on the same outcome and never duplicates an identity.
 */
@ActivityInterface
public interface SetActivities {

  /**
   * Observes the set: ensures the ControllerRevision of its current template exists, lists its pods,
   * and publishes the status computed from what it saw (status is always what was last observed).
   */
  @ActivityMethod
  SetSnapshot refresh(SetKey key);

  /** Records {@code operationWorkflowId} as the set's running operation, the target of pod-change signals. */
  @ActivityMethod
  void claimOperation(SetKey key, String operationWorkflowId);

  /** Ensures the PVCs of {@code ordinal} exist, then ensures its pod exists at {@code revision}. */
  @ActivityMethod
  void createPod(SetKey key, int ordinal, String revision);

  /** Starts the graceful deletion of a pod, if it still exists and is not already terminating. */
  @ActivityMethod
  void deletePod(SetKey key, String podName, String reason);

  /**
   * Sets the set's {@code Progressing} condition (as a Deployment's), recording an event when it
   * changes; a no-op when it already says the same.
   */
  @ActivityMethod
  void setProgressing(SetKey key, boolean progressing, String reason, String message);

  /**
   * Automatic rollback: puts the template of {@code revision} back into the set's spec, unless the
   * spec no longer asks for {@code failedRevision} (someone changed it since). Returns whether it did.
   */
  @ActivityMethod
  boolean rollBack(SetKey key, String failedRevision, String revision, String reason);

  /** Removes a set that is being deleted and has no pods left. PVCs are kept. */
  @ActivityMethod
  void finishDeletion(SetKey key);
}
