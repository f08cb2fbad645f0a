package io.ordinal.workflow;

import io.ordinal.model.SetKey;
import io.ordinal.model.SetSnapshot;
import io.ordinal.planner.Action;
import io.ordinal.planner.Plan;
import io.ordinal.planner.Planner;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.util.Objects;

public class OperationWorkflowImpl implements OperationWorkflow {
  /**
   * Pod changes arrive as signals; this poll is only a safety net for a notification lost in a
   * crash between a pod's change and its signal.
   */
  static final Duration SAFETY_POLL = Duration.ofSeconds(15);
  static final int MAX_HISTORY_EVENTS = 5_000;

  private final SetActivities activities = ActivityStubs.setActivities();
  private boolean woken;
  private String waitingFor = "";

  @Override
  public String run(OperationInput input) {
    SetKey key = input.key();
    String revision = null;
    activities.claimOperation(key, Workflow.getInfo().getWorkflowId());
    while (true) {
      woken = false;
      SetSnapshot set = activities.refresh(key);
      if (!set.exists()) {
        return "StatefulSet " + key + " is gone";
      }
      if (set.deleting() && !Operations.DELETE.equals(input.operation())) {
        return "superseded by the deletion of StatefulSet " + key;
      }
      if (!Objects.equals(revision, set.updateRevision())) {
        revision = set.updateRevision();
        Workflow.upsertTypedSearchAttributes(OrdinalSearchAttributes.REVISION.valueSet(revision));
      }
      long now = Workflow.currentTimeMillis();
      Plan plan = Planner.plan(set, now);
      if (plan.converged()) {
        waitingFor = "";
        return "converged at generation " + set.generation() + ": " + set.replicas() + " replicas";
      }
      for (Action action : plan.actions()) {
        switch (action) {
          case Action.CreatePod create -> activities.createPod(key, create.ordinal(), create.revision());
          case Action.DeletePod delete -> activities.deletePod(key, delete.podName(), delete.reason());
          case Action.FinishDeletion finish -> {
            activities.finishDeletion(key);
            return "StatefulSet " + key + " deleted";
          }
        }
      }
      waitingFor = plan.waitingFor();
      Workflow.setCurrentDetails("waiting for " + waitingFor);
      Duration timeout = plan.wakeAtMillis() > 0
          ? Duration.ofMillis(Math.max(1, plan.wakeAtMillis() - now))
          : SAFETY_POLL;
      Workflow.await(timeout, () -> woken);
      if (Workflow.getInfo().getHistoryLength() > MAX_HISTORY_EVENTS) {
        Workflow.continueAsNew(input);
      }
    }
  }

  @Override
  public void wake() {
    woken = true;
  }

  @Override
  public String waitingFor() {
    return waitingFor;
  }
}
