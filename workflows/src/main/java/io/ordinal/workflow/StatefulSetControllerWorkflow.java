package io.ordinal.workflow;

import io.temporal.workflow.SignalMethod;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;

/**
 * One per set, id {@code statefulset/<namespace>/<name>}: the set's single writer. It sleeps while the
 * set is converged and, when woken, runs each operation (scale, repair, delete) as a child workflow
 * with its own readable id, forwarding later wake-ups to it.
 *
 * <p>Why a long-lived controller with child operations rather than one run per operation: the
 * controller's workflow id is the lock (Temporal allows one open execution per id), while each
 * operation still gets its own execution, id and history in the Web UI.
 */
@WorkflowInterface
public interface StatefulSetControllerWorkflow {
  /** Task queue of the Ordinal worker: controllers, operations and their activities. */
  String TASK_QUEUE = "ordinal";

  /**
   * Task queue of one node's worker: the pod, claim and hook activities of the sets whose pods run
   * there (the local and sim drivers keep a pod on the node that started it). Workflows stay on
   * {@link #TASK_QUEUE}, so any instance runs any set's workflow.
   */
  static String nodeTaskQueue(String node) {
    return TASK_QUEUE + "-node-" + node;
  }

  @WorkflowMethod
  void run(ControllerInput input);

  /**
   * The spec (or deletion state) was written at {@code generation}.
   *
   * @param requestedBy the user whose request wrote it, so that the signal in the history says who
   *     asked; null when the service itself signals (resync, start-up), and in histories recorded
   *     before this argument existed (a missing argument reads as null)
   */
  @SignalMethod
  void specChanged(long generation, String requestedBy);

  /** A pod of the set changed phase, readiness or existence. */
  @SignalMethod
  void podChanged(String podName);

  /**
   * The running operation, asked to hand over ({@link OperationWorkflow#handOver}), is about to end:
   * {@code continuation} starts it again in the controller's next run.
   */
  @SignalMethod
  void operationHandedOver(OperationStart continuation);
}
