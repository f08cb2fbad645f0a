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
import org.slf4j.Logger;

public class StatefulSetControllerWorkflowImpl implements StatefulSetControllerWorkflow {
  private static final Logger log = Workflow.getLogger(StatefulSetControllerWorkflowImpl.class);
  /** Keep each run's history small; the controller lives as long as its set. */
  static final int MAX_HISTORY_EVENTS = 2_000;
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

    ControllerState(ControllerInput input) {
      key = input.key();
      nextSequence = input.nextSequence();
      handledGeneration = input.handledGeneration();
      specChanged = input.specChanged();
      podsChanged = input.podsChanged();
      requestedBy = input.requestedBy();
    }

    boolean changed() {
      return specChanged || podsChanged;
    }

    /** Takes the changes signalled so far: the next observation sees them. */
    void takeChanges() {
      specChanged = false;
      podsChanged = false;
    }

    ControllerInput continuing() {
      return new ControllerInput(key, nextSequence, handledGeneration, specChanged, podsChanged, requestedBy);
    }
  }

  @WorkflowInit
  public StatefulSetControllerWorkflowImpl(ControllerInput input) {
    state = new ControllerState(input);
  }

  /**
   * Observes the set; when it has not converged, runs the operation it needs and observes again
   * after it; when it has, sleeps until a signal says something changed.
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
      converged = Planner.plan(set, Workflow.currentTimeMillis()).converged();
      if (!converged) {
        runOperation(set, Operation.choose(set, state.handledGeneration), state.nextSequence++);
      }
      state.handledGeneration = Math.max(state.handledGeneration, set.generation());
      if (converged && HistoryBudget.exhausted(MAX_HISTORY_EVENTS)) {
        Workflow.await(Workflow::isEveryHandlerFinished);
        Workflow.continueAsNew(state.continuing());
      }
    }
  }

  /** Runs one operation as a child workflow and forwards every wake-up to it until it ends. */
  private void runOperation(SetSnapshot set, Operation operation, long sequence) {
    SetKey key = set.key();
    boolean rollout = operation.isRollout();
    String from = rollout ? fromRevision(set) : null;
    // Who asked for it, in the operation's memo (the Web UI shows it). Only when a user is known:
    // without one the start command is exactly what it was before the memo existed.
    Map<String, Object> memo = state.requestedBy == null || operation == Operation.REPAIR ? null
        : Map.of("requestedBy", state.requestedBy);
    OperationWorkflow child = Workflow.newChildWorkflowStub(
        OperationWorkflow.class,
        ChildWorkflowOptions.newBuilder()
            .setMemo(memo)
            .setWorkflowId(operation.workflowId(key, sequence))
            .setTaskQueue(Workflow.getInfo().getTaskQueue())
            .setTypedSearchAttributes(OrdinalSearchAttributes.ofOperation(key, operation, set.updateRevision(), from))
            .setStaticSummary(rollout
                ? operation.wireName() + " of StatefulSet " + key + " from revision " + from + " to "
                    + set.updateRevision()
                : operation.wireName() + " of StatefulSet " + key + " to " + set.replicas() + " replicas")
            .setParentClosePolicy(ParentClosePolicy.PARENT_CLOSE_POLICY_TERMINATE)
            .build());
    OperationInput input = new OperationInput(key, operation, set.generation(), from, set.updateRevision(), null);
    Promise<String> outcome = Async.function(child::run, input);
    try {
      Workflow.getWorkflowExecution(child).get();
      while (!outcome.isCompleted()) {
        Workflow.await(() -> outcome.isCompleted() || state.changed());
        if (!outcome.isCompleted() && state.changed()) {
          state.takeChanges();
          // Not awaited: the child may complete before the signal lands, which is fine.
          Async.procedure(child::wake).exceptionally(failure -> null);
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

  @Override
  public void podChanged(String podName) {
    state.podsChanged = true;
    state.lastChange = "pod " + podName;
  }
}
