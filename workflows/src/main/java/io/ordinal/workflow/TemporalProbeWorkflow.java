package io.ordinal.workflow;

import io.temporal.workflow.UpdateMethod;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;
import java.util.List;

/**
 * What a service checks of its Temporal at start, through its own worker: that it can start a workflow
 * with Ordinal's search attributes, that workflow updates (which pause and undo wait on) are enabled,
 * and how late short timers fire (minReadySeconds waits are timers).
 */
@WorkflowInterface
public interface TemporalProbeWorkflow {
  /** Waits for {@link #ping}, then sleeps {@code timers} times {@code timerMillis}; returns each timer's lateness in ms. */
  @WorkflowMethod
  List<Long> run(int timers, long timerMillis);

  /** Answered once the update is accepted: proof that the frontend runs updates. */
  @UpdateMethod
  void ping();
}
