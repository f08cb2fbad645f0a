package io.ordinal.workflow;

import io.ordinal.model.SetKey;
import io.ordinal.model.SetSnapshot;
import io.ordinal.planner.Action;
import io.ordinal.planner.Plan;
import io.ordinal.planner.Planner;
import io.ordinal.workflow.SetActivities.HookFailure;
import io.ordinal.workflow.SetActivities.OperationClaim;
import io.ordinal.workflow.SetActivities.ProgressingCondition;
import io.ordinal.workflow.SetActivities.Rollback;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.CanceledFailure;
import io.temporal.failure.TemporalFailure;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.util.Objects;
import org.slf4j.Logger;

public class OperationWorkflowImpl implements OperationWorkflow {
  private static final Logger log = Workflow.getLogger(OperationWorkflowImpl.class);
  /**
   * Pod changes arrive as signals; this poll is only a safety net for a notification lost in a
   * crash between a pod's change and its signal.
   */
  static final Duration SAFETY_POLL = Duration.ofSeconds(15);
  static final int MAX_HISTORY_EVENTS = 5_000;
  static final String DEADLINE_EXCEEDED = "ProgressDeadlineExceeded";

  private Steps steps;
  private OperationMetrics metrics;
  private long startedAtMillis;
  private boolean woken;
  /** Set by the pause fence; cleared by the next observation, which reads the stored pause. */
  private boolean pauseRequested;
  private String waitingFor = "";
  private static final int MAX_IMMEDIATE_PASSES = 3;
  private int immediatePasses;

  @Override
  public String run(OperationInput input) {
    steps = Steps.ofThisRun();
    startedAtMillis = input.startedAtMillis() > 0 ? input.startedAtMillis() : Workflow.getInfo().getRunStartedTimestampMillis();
    metrics = new OperationMetrics(input, startedAtMillis);
    metrics.started();
    try {
      return operate(input);
    } catch (CanceledFailure cancelled) {
      metrics.completed("cancelled", startedAtMillis);
      throw cancelled;
    } catch (TemporalFailure failure) {
      metrics.failed(); // fails the operation's workflow (other exceptions fail only the task, which is retried)
      throw failure;
    }
  }

  private String operate(OperationInput input) {
    SetKey key = input.key();
    boolean rollout = input.operation().isRollout();
    RolloutProgress progress = input.progress();
    steps.set.claimOperation(new OperationClaim(key, Workflow.getInfo().getWorkflowId()));
    while (true) {
      woken = false;
      SetSnapshot set = steps.observe(key);
      pauseRequested = false;
      String superseded = supersededBy(input, set);
      if (superseded != null) {
        steps.publishStatus();
        return completed(superseded.startsWith("superseded") ? "superseded" : "gone", superseded);
      }
      long now = Workflow.currentTimeMillis();
      Plan plan = Planner.plan(set, now);
      long deadline = 0;
      if (rollout) {
        if (progress == null) {
          progress = RolloutProgress.start(set, now);
          setProgressing(key, true, "RolloutProgressing", describe(input) + " started");
        }
        progress = checkDeadline(input, set, progress, progress.observe(set, now), plan.converged());
        deadline = progress.failed() || set.rollout().paused() ? 0 : progress.deadlineMillis(set);
      }
      if (plan.converged()) {
        steps.publishStatus();
        waitingFor = "";
        if (rollout) {
          setProgressing(key, true, "RolloutComplete", describe(input) + " complete");
        }
        return completed("converged", "converged at generation " + set.generation() + ": " + set.replicas()
            + " replicas" + (rollout ? " at revision " + set.updateRevision() : ""));
      }
      boolean hookFailed = false;
      boolean deletionUnfinished = false;
      Action previous = null;
      if (plan.actsOnPods()) {
        metrics.acting(set, now);
      }
      for (Action action : plan.actions()) {
        if (hookFailed || (pauseRequested && !(previous instanceof Action.RunHook))) {
          break; // observe again: the stored spec now says paused (a hook's pod action is done first)
        }
        previous = action;
        switch (action) {
          case Action.CreatePod create -> steps.createPod(key, create.ordinal(), create.revision());
          case Action.DeletePod delete -> {
            if (Planner.FORCED_REPLACEMENT.equals(delete.reason())) {
              metrics.forcedReplacement();
            }
            steps.deletePod(key, delete.podName(), delete.reason());
          }
          case Action.UpdateClaims owners -> steps.updateClaims(key, owners.ordinal(), owners.podName());
          case Action.DeleteClaim claim -> steps.deleteClaim(key, claim.claimName(), claim.reason());
          case Action.RunHook hook -> hookFailed = !runHook(key, set, hook);
          case Action.FinishDeletion finish -> {
            if (!Boolean.FALSE.equals(steps.finishDeletion(key))) {
              return completed("deleted", "StatefulSet " + key + " deleted");
            }
            deletionUnfinished = true;
          }
        }
      }
      steps.publishStatus();
      // Only claims or membership changed (or a hook failed): no pod event will come to wake us. Bounded,
      // so that a claim an activity cannot change (owned by another controller) costs a timer, not a busy loop.
      if ((hookFailed || deletionUnfinished || plan.observeAgainAtOnce()) && !pauseRequested && immediatePasses++ < MAX_IMMEDIATE_PASSES) {
        continue;
      }
      immediatePasses = 0;
      waitingFor = plan.waitingFor();
      Workflow.setCurrentDetails(details(input, set, progress, now));
      long wakeAt = earliest(plan.wakeAtMillis(), deadline);
      Duration timeout = wakeAt > 0 ? Duration.ofMillis(Math.max(1, wakeAt - now)) : SAFETY_POLL;
      steps.await(timeout, "waiting for " + waitingFor
          + (wakeAt > 0 ? "" : " (a pod change ends the wait; this timer is only a safety poll)"), () -> woken || pauseRequested);
      if (HistoryBudget.exhausted(MAX_HISTORY_EVENTS)) {
        Workflow.await(Workflow::isEveryHandlerFinished);
        Workflow.continueAsNew(input.continuing(progress, startedAtMillis));
      }
    }
  }

  private String completed(String result, String message) {
    metrics.completed(result, startedAtMillis);
    return message;
  }

  /**
   * Runs a membership hook; true when it succeeded. When it fails for good, membership changes are
   * held until the set is resumed and the pod action that depended on it is not taken.
   */
  private boolean runHook(SetKey key, SetSnapshot set, Action.RunHook hook) {
    waitingFor = hook.hook() + " hook of " + hook.podName() + " (" + hook.reason() + ")";
    Workflow.setCurrentDetails("running the " + waitingFor);
    try {
      ActivityStubs.hooks(set.hooks().timing(hook.hook()), steps.node()).runHook(
          new HookActivities.HookRun(key, hook.hook(), hook.ordinal(), hook.podName(), hook.reason()));
      return true;
    } catch (ActivityFailure failure) {
      Throwable cause = failure.getCause() == null ? failure : failure.getCause();
      steps.set.holdForFailedHook(new HookFailure(key, hook.hook(), hook.podName(), cause.getMessage()));
      return false;
    }
  }

  /** Why this operation should give way to the next one, or null to go on. */
  private static String supersededBy(OperationInput input, SetSnapshot set) {
    SetKey key = input.key();
    if (!set.exists()) {
      return "StatefulSet " + key + " is gone";
    }
    if (set.deleting() && input.operation() != Operation.DELETE) {
      return "superseded by the deletion of StatefulSet " + key;
    }
    if (input.operation().isRollout()) {
      if (!Objects.equals(set.updateRevision(), input.toRevision())) {
        return "superseded: the update revision is now " + set.updateRevision();
      }
    } else if (input.operation() != Operation.DELETE && set.generation() > input.generation()
        && Operation.choose(set, input.generation()).isRollout()) {
      return "superseded by a rollout to revision " + set.updateRevision();
    }
    return null;
  }

  /**
   * Marks the rollout failed when its deadline passes without progress (and rolls it back when the
   * set asks for that), and healthy again when progress resumes.
   */
  private RolloutProgress checkDeadline(OperationInput input, SetSnapshot set, RolloutProgress before,
      RolloutProgress after, boolean complete) {
    SetKey key = input.key();
    if (after.failed() && !before.failed() && !complete) {
      metrics.deadlineExceeded();
      setProgressing(key, false, DEADLINE_EXCEEDED, describe(input) + " has not made progress in "
          + set.rollout().progressDeadlineSeconds() + "s");
      // A rollback is never rolled back in turn: that could swing between two broken revisions.
      if (set.rollout().autoRollback() && input.operation() == Operation.ROLLOUT
          && input.fromRevision() != null && !input.fromRevision().equals(input.toRevision())) {
        boolean rolledBack = steps.set.rollBack(new Rollback(key, input.toRevision(), input.fromRevision(),
            "automatic rollback: " + describe(input) + " exceeded its progress deadline"));
        log.info(rolledBack ? "{}: rolled back to {}" : "{}: not rolled back to {}, the spec changed since",
            describe(input), input.fromRevision());
        if (rolledBack) {
          metrics.rolledBack();
        }
        woken = true; // either way the spec changed: observe it
      }
    } else if (before.failed() && !after.failed()) {
      setProgressing(key, true, "RolloutProgressing", describe(input) + " is progressing again");
    }
    return after;
  }

  private void setProgressing(SetKey key, boolean progressing, String reason, String message) {
    steps.set.setProgressing(new ProgressingCondition(key, progressing, reason, message));
  }

  private static String describe(OperationInput input) {
    return input.operation().wireName() + " from revision " + input.fromRevision() + " to " + input.toRevision();
  }

  /** The operation's current details in the Temporal Web UI. */
  private String details(OperationInput input, SetSnapshot set, RolloutProgress progress, long now) {
    StringBuilder out = new StringBuilder();
    if (progress != null) {
      long updated = set.pods().stream().filter(p -> set.inRange(p.ordinal()) && !p.terminating()
          && p.revision().equals(set.updateRevision())).count();
      out.append(input.fromRevision()).append(" -> ").append(input.toRevision()).append(": ")
          .append(updated).append('/').append(set.replicas()).append(" pods updated, ")
          .append(set.availableOnUpdateRevision(now)).append(" available");
      if (set.partition() > 0) {
        out.append(", partition ").append(set.partition());
      }
      out.append(set.rollout().paused() ? "; PAUSED" : progress.failed() ? "; FAILED (" + DEADLINE_EXCEEDED + ")" : "");
      out.append("\n");
    }
    return out.append("waiting for ").append(waitingFor).toString();
  }

  private static long earliest(long a, long b) {
    return a == 0 ? b : b == 0 ? a : Math.min(a, b);
  }

  @Override
  public void wake() {
    woken = true;
  }

  @Override
  public void pause(String requestedBy) {
    pauseRequested = true; // who paused is in the update's input in the history
  }

  @Override
  public String waitingFor() {
    return waitingFor;
  }
}
