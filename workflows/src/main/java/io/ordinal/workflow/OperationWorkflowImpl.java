package io.ordinal.workflow;

import io.ordinal.model.SetKey;
import io.ordinal.model.SetSnapshot;
import io.ordinal.planner.Action;
import io.ordinal.planner.Plan;
import io.ordinal.planner.Planner;
import io.ordinal.workflow.PodActivities.PodCreation;
import io.ordinal.workflow.PodActivities.PodDeletion;
import io.ordinal.workflow.SetActivities.HookFailure;
import io.ordinal.workflow.SetActivities.OperationClaim;
import io.ordinal.workflow.SetActivities.ProgressingCondition;
import io.ordinal.workflow.SetActivities.Rollback;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.CanceledFailure;
import io.temporal.failure.TemporalFailure;
import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowInfo;
import io.temporal.workflow.WorkflowInit;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
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
  /** The result of a run that handed the operation over to the controller's next run. */
  static final String HANDED_OVER = "handed over to the controller's next run";
  /**
   * Passes in a row that observe again at once. Bounded, so that a claim an activity cannot change
   * (owned by another controller) costs a timer, not a busy loop.
   */
  private static final int MAX_IMMEDIATE_PASSES = 3;

  private final OperationInput input;
  private final OperationState state;
  private Steps steps;
  private OperationMetrics metrics;
  /** When the operation's first run started: its duration spans all its runs. */
  private long startedAtMillis;

  /** What one operation knows between its passes; its handlers write the requests. */
  private static final class OperationState {
    /** A rollout's progress-deadline bookkeeping; null until its first observation. */
    RolloutProgress progress;
    /** Something changed (a pod, the spec): the wait ends and the set is observed again. */
    boolean wakeRequested;
    /** Set by the pause fence; cleared by the next observation, which reads the stored pause. */
    boolean pauseRequested;
    /** The controller's history budget ran out: this run ends after its pass, to go on in the controller's next run. */
    boolean handOverRequested;
    /** What the operation waits for, for the query and the Web UI. */
    String waitingFor = "";
    /** Passes in a row that observed again at once, without waiting. */
    int immediatePasses;

    OperationState(RolloutProgress progress) {
      this.progress = progress;
    }
  }

  /** How an operation ends: its result (a metric's label) and a line for humans. */
  private record Outcome(String result, String message) {}

  /** What acting on a plan leaves to do. */
  private enum AfterActing {
    /** Wait: the pods acted on will announce their changes, or a timer ends the wait. */
    WAIT,
    /** Observe again at once: only claims or membership changed, or a step did not finish, so no pod change will come. */
    OBSERVE_AGAIN,
    /** The deleted set is gone: the operation is done. */
    SET_REMOVED
  }

  @WorkflowInit
  public OperationWorkflowImpl(OperationInput input) {
    this.input = input;
    this.state = new OperationState(input.progress());
  }

  @Override
  public String run(OperationInput input) {
    steps = Steps.ofThisRun();
    startedAtMillis = input.startedAtMillis() > 0 ? input.startedAtMillis() : Workflow.getInfo().getRunStartedTimestampMillis();
    metrics = new OperationMetrics(input, startedAtMillis);
    metrics.started(input);
    try {
      return operate();
    } catch (CanceledFailure cancelled) {
      metrics.completed("cancelled", startedAtMillis);
      throw cancelled;
    } catch (TemporalFailure failure) {
      metrics.failed(); // fails the operation's workflow (other exceptions fail only the task, which is retried)
      throw failure;
    }
  }

  /**
   * Observe, plan, act, wait, until the set converges, or the operation gives way to the next one.
   * Each pass plans against the newest spec, so a change that arrives mid-operation takes over at once.
   * Between two passes, the run may end to keep histories bounded: handed over to the controller's
   * next run, or continued as new.
   */
  private String operate() {
    SetKey key = input.key();
    steps.set.claimOperation(new OperationClaim(key, Workflow.getInfo().getWorkflowId()));
    while (true) {
      state.wakeRequested = false;
      SetSnapshot set = steps.observe(key);
      state.pauseRequested = false;
      Optional<Outcome> givingWay = givesWay(set);
      if (givingWay.isPresent()) {
        steps.publishStatus();
        return completed(givingWay.get());
      }
      long now = Workflow.currentTimeMillis();
      Plan plan = Planner.plan(set, now);
      long deadlineMillis = followRollout(set, plan, now);
      if (plan.converged()) {
        return converged(set);
      }
      AfterActing after = act(set, plan, now);
      if (after == AfterActing.SET_REMOVED) {
        return completed(new Outcome("deleted", "StatefulSet " + key + " deleted"));
      }
      steps.publishStatus();
      if (after == AfterActing.OBSERVE_AGAIN && !state.pauseRequested && state.immediatePasses < MAX_IMMEDIATE_PASSES) {
        state.immediatePasses++;
        continue;
      }
      state.immediatePasses = 0;
      waitForChange(set, plan, now, deadlineMillis);
      if (state.handOverRequested) {
        return handOverToTheController();
      }
      if (HistoryBudget.exhausted(MAX_HISTORY_EVENTS)) {
        Workflow.await(Workflow::isEveryHandlerFinished);
        Workflow.continueAsNew(input.continuing(state.progress, startedAtMillis));
      }
    }
  }

  /**
   * Takes the plan's actions in order. A failed hook ends the plan there (the pod action that
   * depended on it is not taken); so does a pause, except between a hook and its pod action.
   */
  private AfterActing act(SetSnapshot set, Plan plan, long now) {
    SetKey key = input.key();
    if (plan.actsOnPods()) {
      metrics.acting(set, now);
    }
    Action previous = null;
    List<Action> actions = plan.actions();
    for (int i = 0; i < actions.size(); i++) {
      Action action = actions.get(i);
      if (state.pauseRequested && !(previous instanceof Action.RunHook)) {
        return AfterActing.WAIT; // a wait the pause ends at once, then an observation that reads it
      }
      previous = action;
      switch (action) {
        case Action.CreatePod create when steps.batchesPodSteps() -> {
          List<PodCreation> row = inARow(actions, i, Action.CreatePod.class).stream()
              .map(c -> new PodCreation(key, c.ordinal(), c.revision())).toList();
          steps.createPods(key, row);
          i += row.size() - 1;
        }
        case Action.CreatePod create -> steps.createPod(key, create.ordinal(), create.revision());
        case Action.DeletePod delete when steps.batchesPodSteps() -> {
          List<Action.DeletePod> row = inARow(actions, i, Action.DeletePod.class);
          row.stream().filter(d -> Planner.FORCED_REPLACEMENT.equals(d.reason())).forEach(d -> metrics.forcedReplacement());
          steps.deletePods(key, row.stream().map(d -> new PodDeletion(key, d.podName(), d.reason())).toList());
          i += row.size() - 1;
        }
        case Action.DeletePod delete -> {
          if (Planner.FORCED_REPLACEMENT.equals(delete.reason())) {
            metrics.forcedReplacement();
          }
          steps.deletePod(key, delete.podName(), delete.reason());
        }
        case Action.UpdatePodInPlace update -> steps.updatePodInPlace(key, update.podName(), update.revision());
        case Action.UpdateClaims owners -> steps.updateClaims(key, owners.ordinal(), owners.podName());
        case Action.DeleteClaim claim -> steps.deleteClaim(key, claim.claimName(), claim.reason());
        case Action.RunHook hook -> {
          if (!runHook(set, hook)) {
            return AfterActing.OBSERVE_AGAIN;
          }
        }
        case Action.FinishDeletion finish -> {
          // The last action of a deletion's plan. False: the set was given a pod since it was observed.
          return Boolean.FALSE.equals(steps.finishDeletion(key)) ? AfterActing.OBSERVE_AGAIN : AfterActing.SET_REMOVED;
        }
      }
    }
    return plan.observeAgainAtOnce() ? AfterActing.OBSERVE_AGAIN : AfterActing.WAIT;
  }

  /** The actions of {@code type} in a row from {@code from} on (the first is one). */
  private static <T extends Action> List<T> inARow(List<Action> actions, int from, Class<T> type) {
    List<T> row = new ArrayList<>();
    for (int i = from; i < actions.size() && type.isInstance(actions.get(i)); i++) {
      row.add(type.cast(actions.get(i)));
    }
    return row;
  }

  /**
   * Waits for a pod change, a pause, or the earliest timer: the plan's (minReadySeconds) or the
   * rollout's deadline. Without either timer, the safety poll.
   */
  private void waitForChange(SetSnapshot set, Plan plan, long now, long deadlineMillis) {
    state.waitingFor = plan.waitingFor();
    Workflow.setCurrentDetails(details(set, now));
    long wakeAt = earliest(plan.wakeAtMillis(), deadlineMillis);
    Duration timeout = wakeAt > 0 ? Duration.ofMillis(Math.max(1, wakeAt - now)) : SAFETY_POLL;
    steps.await(timeout, "waiting for " + state.waitingFor
        + (wakeAt > 0 ? "" : " (a pod change ends the wait; this timer is only a safety poll)"), this::waitIsOver);
  }

  /** A change, a pause or a hand-over ends the wait; so does a spent history budget, in runs that started since that rule. */
  private boolean waitIsOver() {
    return state.wakeRequested || state.pauseRequested || state.handOverRequested
        || (steps.continuesAsNewOnBudget() && HistoryBudget.exhausted(MAX_HISTORY_EVENTS));
  }

  /**
   * Ends this run between two passes and gives the controller what the operation knows, so that its
   * next run starts the operation again under the same id: a controller that continues as new ends
   * its children. The signal is delivered before this run ends, so the controller has it when it sees
   * the run end.
   */
  private String handOverToTheController() {
    Workflow.await(Workflow::isEveryHandlerFinished);
    WorkflowInfo info = Workflow.getInfo();
    StatefulSetControllerWorkflow controller = Workflow.newExternalWorkflowStub(StatefulSetControllerWorkflow.class,
        WorkflowExecution.newBuilder().setWorkflowId(info.getParentWorkflowId().orElseThrow())
            .setRunId(info.getParentRunId().orElseThrow()).build());
    controller.operationHandedOver(new OperationStart(info.getWorkflowId(), input.continuing(state.progress, startedAtMillis)));
    return HANDED_OVER;
  }

  private String converged(SetSnapshot set) {
    boolean rollout = input.operation().isRollout();
    steps.publishStatus();
    state.waitingFor = "";
    if (rollout) {
      setProgressing(true, "RolloutComplete", describe() + " complete");
    }
    return completed(new Outcome("converged", "converged at generation " + set.generation() + ": " + set.replicas()
        + " replicas" + (rollout ? " at revision " + set.updateRevision() : "")));
  }

  private String completed(Outcome outcome) {
    metrics.completed(outcome.result(), startedAtMillis);
    return outcome.message();
  }

  /**
   * Runs a membership hook; true when it succeeded. When it fails for good, membership changes are
   * held until the set is resumed and the pod action that depended on it is not taken; nor is it when
   * a spec that no longer wants an asynchronous hook ended its wait (a scale undone meanwhile).
   */
  private boolean runHook(SetSnapshot set, Action.RunHook hook) {
    SetKey key = input.key();
    state.waitingFor = hook.hook() + " hook of " + hook.podName() + " (" + hook.reason() + ")";
    Workflow.setCurrentDetails("running the " + state.waitingFor);
    try {
      String output = ActivityStubs.hooks(set.hooks().timing(hook.hook()), steps.node()).runHook(
          new HookActivities.HookRun(key, hook.hook(), hook.ordinal(), hook.podName(), hook.reason()));
      return !HookActivities.abandoned(output);
    } catch (ActivityFailure failure) {
      Throwable cause = failure.getCause() == null ? failure : failure.getCause();
      steps.set.holdForFailedHook(new HookFailure(key, hook.hook(), hook.podName(), cause.getMessage()));
      return false;
    }
  }

  /** How this operation ends to give way to the next one; empty to go on. */
  private Optional<Outcome> givesWay(SetSnapshot set) {
    SetKey key = input.key();
    if (!set.exists()) {
      return Optional.of(new Outcome("gone", "StatefulSet " + key + " is gone"));
    }
    if (set.deleting() && input.operation() != Operation.DELETE) {
      return Optional.of(new Outcome("superseded", "superseded by the deletion of StatefulSet " + key));
    }
    if (input.operation().isRollout()) {
      if (!Objects.equals(set.updateRevision(), input.toRevision())) {
        return Optional.of(new Outcome("superseded", "superseded: the update revision is now " + set.updateRevision()));
      }
    } else if (input.operation() != Operation.DELETE && set.generation() > input.generation()
        && Operation.choose(set, input.generation()).isRollout()) {
      return Optional.of(new Outcome("superseded", "superseded by a rollout to revision " + set.updateRevision()));
    }
    return Optional.empty();
  }

  /**
   * A rollout's progress deadline, like a Deployment's: the clock starts at its first observation and
   * restarts with each pod that becomes available on the target revision. Returns when a timer must
   * end the wait for it; 0 for none (not a rollout, paused, or already failed).
   */
  private long followRollout(SetSnapshot set, Plan plan, long now) {
    if (!input.operation().isRollout()) {
      return 0;
    }
    if (state.progress == null) {
      state.progress = RolloutProgress.start(set, now);
      setProgressing(true, "RolloutProgressing", describe() + " started");
    }
    state.progress = checkDeadline(set, state.progress, state.progress.observe(set, now), plan.converged());
    return state.progress.failed() || set.rollout().paused() ? 0 : state.progress.deadlineMillis(set);
  }

  /**
   * Marks the rollout failed when its deadline passes without progress (and rolls it back when the
   * set asks for that), and healthy again when progress resumes.
   */
  private RolloutProgress checkDeadline(SetSnapshot set, RolloutProgress before, RolloutProgress after, boolean complete) {
    SetKey key = input.key();
    if (after.failed() && !before.failed() && !complete) {
      metrics.deadlineExceeded();
      setProgressing(false, DEADLINE_EXCEEDED, describe() + " has not made progress in "
          + set.rollout().progressDeadlineSeconds() + "s");
      // A rollback is never rolled back in turn: that could swing between two broken revisions.
      if (set.rollout().autoRollback() && input.operation() == Operation.ROLLOUT
          && input.fromRevision() != null && !input.fromRevision().equals(input.toRevision())) {
        boolean rolledBack = steps.set.rollBack(new Rollback(key, input.toRevision(), input.fromRevision(),
            "automatic rollback: " + describe() + " exceeded its progress deadline"));
        log.info(rolledBack ? "{}: rolled back to {}" : "{}: not rolled back to {}, the spec changed since",
            describe(), input.fromRevision());
        if (rolledBack) {
          metrics.rolledBack();
        }
        state.wakeRequested = true; // either way the spec changed: observe it
      }
    } else if (before.failed() && !after.failed()) {
      setProgressing(true, "RolloutProgressing", describe() + " is progressing again");
    }
    return after;
  }

  private void setProgressing(boolean progressing, String reason, String message) {
    steps.set.setProgressing(new ProgressingCondition(input.key(), progressing, reason, message));
  }

  private String describe() {
    return input.operation().wireName() + " from revision " + input.fromRevision() + " to " + input.toRevision();
  }

  /** The operation's current details in the Temporal Web UI. */
  private String details(SetSnapshot set, long now) {
    StringBuilder out = new StringBuilder();
    RolloutProgress progress = state.progress;
    if (progress != null) {
      var range = set.range();
      long updated = set.pods().stream().filter(p -> range.contains(p.ordinal()) && !p.terminating()
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
    return out.append("waiting for ").append(state.waitingFor).toString();
  }

  /** The earlier of two times where 0 means none. */
  private static long earliest(long a, long b) {
    return a == 0 ? b : b == 0 ? a : Math.min(a, b);
  }

  @Override
  public void wake() {
    state.wakeRequested = true;
  }

  @Override
  public void handOver() {
    // Only a controller hands its operation over; an operation started on its own has no one to hand over to.
    state.handOverRequested = Workflow.getInfo().getParentWorkflowId().isPresent();
  }

  @Override
  public void pause(String requestedBy) {
    state.pauseRequested = true; // who paused is in the update's input in the history
  }

  @Override
  public String waitingFor() {
    return state.waitingFor;
  }
}
