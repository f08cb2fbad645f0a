package io.ordinal.workflow;

import io.ordinal.model.PodSnapshot;
import io.ordinal.model.SetKey;
import io.ordinal.model.SetSnapshot;
import io.ordinal.planner.Planner;
import io.temporal.api.enums.v1.ParentClosePolicy;
import io.temporal.failure.ChildWorkflowFailure;
import io.temporal.workflow.Async;
import io.temporal.workflow.ChildWorkflowOptions;
import io.temporal.workflow.Promise;
import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowInit;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;

public class StatefulSetControllerWorkflowImpl implements StatefulSetControllerWorkflow {
  private static final Logger log = Workflow.getLogger(StatefulSetControllerWorkflowImpl.class);
  /** Keep each run's history small; the controller lives as long as its set. */
  static final int MAX_HISTORY_EVENTS = 2_000;
  /**
   * Handing a running operation over takes a few workflow tasks while signals keep arriving: runs
   * that continue as new whatever they are doing start that many events before the budget's end.
   */
  static final int HAND_OVER_RESERVE = 200;
  private static final Duration RETRY_FAILED_OPERATION_AFTER = Duration.ofSeconds(5);

  private final ControllerState state;
  private Steps steps;

  /** What the controller knows between its passes; carried across continue-as-new. Its signals write the changes. */
  private static final class ControllerState {
    final SetKey key;
    /** The number of the next operation, for readable, unique operation ids. */
    long nextSequence;
    /** The newest spec generation an operation has already been run for. */
    long handledGeneration;
    boolean specChanged;
    boolean podsChanged;
    /** What the last signal announced, for the Web UI and the log. */
    String lastChange = "";
    /** The user who wrote the newest spec, as its signal said: the memo of the operation it starts. */
    String requestedBy;
    /** An operation handed over by the previous run, or by the running operation to the next run; null when none. */
    OperationStart handedOver;
    /** The running operation was asked to hand over. */
    boolean handOverAsked;

    ControllerState(ControllerInput input) {
      key = input.key();
      nextSequence = input.nextSequence();
      handledGeneration = input.handledGeneration();
      specChanged = input.specChanged();
      podsChanged = input.podsChanged();
      requestedBy = input.requestedBy();
      handedOver = input.handedOver();
    }

    boolean changed() {
      return specChanged || podsChanged;
    }

    /** Takes the changes signalled so far: the next observation sees them. */
    void takeChanges() {
      specChanged = false;
      podsChanged = false;
    }

    Optional<OperationStart> takeHandedOver() {
      Optional<OperationStart> taken = Optional.ofNullable(handedOver);
      handedOver = null;
      return taken;
    }

    ControllerInput continuing() {
      return new ControllerInput(key, nextSequence, handledGeneration, specChanged, podsChanged, requestedBy, handedOver);
    }
  }

  @WorkflowInit
  public StatefulSetControllerWorkflowImpl(ControllerInput input) {
    state = new ControllerState(input);
  }

  /**
   * Observes the set; when it has not converged, runs the operation it needs and observes again
   * after it; when it has, sleeps until a signal says something changed. After each pass, continues
   * as new if the history budget is spent (runs that started before that rule: only once converged).
   */
  @Override
  public void run(ControllerInput input) {
    steps = Steps.ofThisRun();
    boolean converged = false;
    while (true) {
      if (converged) {
        Workflow.setCurrentDetails("converged; last change: " + state.lastChange);
        Workflow.await(state::changed);
        log.debug("{} woken: {}", state.key, state.lastChange);
      }
      state.takeChanges();
      SetSnapshot set = steps.observe(state.key);
      steps.publishStatus();
      if (!set.exists()) {
        return; // deleted: the next write to this name starts a new controller
      }
      Optional<OperationStart> operation = operationToRun(set);
      operation.ifPresent(start -> runOperation(set, start));
      converged = operation.isEmpty();
      state.handledGeneration = Math.max(state.handledGeneration, set.generation());
      if (budgetSpent() && (converged || steps.continuesAsNewOnBudget())) {
        Workflow.await(Workflow::isEveryHandlerFinished);
        Workflow.continueAsNew(state.continuing());
      }
    }
  }

  /**
   * The operation this pass runs: the one the previous run handed over (it goes on whatever the set's
   * state, and ends itself when nothing is left to do), else the one the set needs; none when the set
   * has converged.
   */
  private Optional<OperationStart> operationToRun(SetSnapshot set) {
    Optional<OperationStart> handedOver = state.takeHandedOver();
    if (handedOver.isPresent() || Planner.plan(set, Workflow.currentTimeMillis()).converged()) {
      return handedOver;
    }
    Operation operation = Operation.choose(set, state.handledGeneration);
    String from = operation.isRollout() ? fromRevision(set) : null;
    return Optional.of(new OperationStart(operation.workflowId(state.key, state.nextSequence++),
        new OperationInput(state.key, operation, set.generation(), from, set.updateRevision(), null)));
  }

  /**
   * Whether this run's history budget is spent. Runs that continue as new whatever they are doing
   * leave a reserve for handing their operation over.
   */
  private boolean budgetSpent() {
    return HistoryBudget.exhausted(MAX_HISTORY_EVENTS - (steps.continuesAsNewOnBudget() ? HAND_OVER_RESERVE : 0));
  }

  /**
   * Runs one operation as a child workflow and forwards every wake-up to it until it ends. When the
   * budget runs out meanwhile, asks it to hand over, so that this run can continue as new once it has.
   */
  private void runOperation(SetSnapshot set, OperationStart start) {
    SetKey key = set.key();
    OperationInput input = start.input();
    Operation operation = input.operation();
    boolean rollout = operation.isRollout();
    String from = input.fromRevision();
    // Who asked for it, in the operation's memo (the Web UI shows it). Only when a user is known:
    // without one the start command is exactly what it was before the memo existed.
    Map<String, Object> memo = state.requestedBy == null || operation == Operation.REPAIR ? null
        : Map.of("requestedBy", state.requestedBy);
    OperationWorkflow child = Workflow.newChildWorkflowStub(
        OperationWorkflow.class,
        ChildWorkflowOptions.newBuilder()
            .setMemo(memo)
            .setWorkflowId(start.workflowId())
            .setTaskQueue(Workflow.getInfo().getTaskQueue())
            .setTypedSearchAttributes(OrdinalSearchAttributes.ofOperation(key, operation, input.toRevision(), from))
            .setStaticSummary(rollout
                ? operation.wireName() + " of StatefulSet " + key + " from revision " + from + " to "
                    + input.toRevision()
                : operation.wireName() + " of StatefulSet " + key + " to " + set.replicas() + " replicas")
            .setParentClosePolicy(ParentClosePolicy.PARENT_CLOSE_POLICY_TERMINATE)
            .build());
    Promise<String> outcome = Async.function(child::run, input);
    state.handOverAsked = false;
    try {
      Workflow.getWorkflowExecution(child).get();
      while (!outcome.isCompleted()) {
        Workflow.await(() -> outcome.isCompleted() || changeToForward() || handOverDue());
        // Signals are not awaited: the child may complete before one lands, which is fine.
        if (!outcome.isCompleted() && changeToForward()) {
          state.takeChanges();
          Async.procedure(child::wake).exceptionally(failure -> null);
        }
        if (!outcome.isCompleted() && handOverDue()) {
          state.handOverAsked = true;
          Async.procedure(child::handOver).exceptionally(failure -> null);
        }
      }
      log.info("{} of {} ended: {}", operation.wireName(), key, outcome.get());
    } catch (ChildWorkflowFailure e) {
      // The controller must outlive any failed operation: it retries with a fresh one.
      log.warn("{} of {} failed; retrying after {}", operation.wireName(), key, RETRY_FAILED_OPERATION_AFTER, e);
      Workflow.sleep(RETRY_FAILED_OPERATION_AFTER);
    }
  }

  /**
   * The revision a rollout moves pods away from: the current revision, or, when the update went back
   * to it (an undo before the rollout completed), the revision the outdated pods run.
   */
  private static String fromRevision(SetSnapshot set) {
    if (!Objects.equals(set.currentRevision(), set.updateRevision())) {
      return set.currentRevision();
    }
    return set.pods().stream().map(PodSnapshot::revision)
        .filter(revision -> !revision.equals(set.updateRevision())).findFirst().orElse(set.currentRevision());
  }

  @Override
  public void specChanged(long generation, String requestedBy) {
    state.specChanged = true;
    state.lastChange = "spec generation " + generation + (requestedBy == null ? "" : " by " + requestedBy);
    if (requestedBy != null) {
      state.requestedBy = requestedBy;
    }
  }

  /**
   * A change the running operation must be woken for. None once it was asked to hand over: a run
   * cannot end while new signals keep arriving, and the next run observes the changes anyway.
   */
  private boolean changeToForward() {
    return state.changed() && !state.handOverAsked;
  }

  /** The running operation must hand over: the budget is spent, in a run that continues as new whatever it is doing. */
  private boolean handOverDue() {
    return !state.handOverAsked && steps.continuesAsNewOnBudget() && budgetSpent();
  }

  @Override
  public void podChanged(String podName) {
    state.podsChanged = true;
    state.lastChange = "pod " + podName;
  }

  @Override
  public void operationHandedOver(OperationStart continuation) {
    state.handedOver = continuation;
  }
}
