package io.ordinal.workflow;

import io.temporal.workflow.QueryMethod;
import io.temporal.workflow.SignalMethod;
import io.temporal.workflow.UpdateMethod;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;

/**
 * One scale, rollout, rollback, repair or deletion of a set: observe, plan, act, wait, until the
 * set converges. It always plans against the newest spec, so a spec that arrives mid-operation
 * takes over at once; a rollout whose target revision changes ends, and the controller starts the
 * next one.
 */
@WorkflowInterface
public interface OperationWorkflow {

  /** Returns a one-line outcome. */
  @WorkflowMethod
  String run(OperationInput input);

  /** Something changed (spec or pods): observe again now. */
  @SignalMethod
  void wake();

  /**
   * The controller's history budget ran out: at the end of its current pass, the operation hands its
   * state to the controller ({@link StatefulSetControllerWorkflow#operationHandedOver}) and ends, to
   * be started again by the controller's next run (a parent that continues as new ends its children).
   */
  @SignalMethod
  void handOver();

  /**
   * Fence for a pause that was just stored in the spec: once this update returns, the operation
   * touches no further pod before it has observed the spec again.
   *
   * @param requestedBy the user who paused, recorded with the update in the history; null in
   *     histories recorded before this argument existed
   */
  @UpdateMethod
  void pause(String requestedBy);

  /** What the operation is waiting for right now. */
  @QueryMethod
  String waitingFor();
}
