package io.ordinal.workflow;

import io.ordinal.model.PodSnapshot;
import io.ordinal.model.SetKey;
import io.ordinal.model.SetSnapshot;
import io.ordinal.planner.Plan;
import io.ordinal.planner.Planner;
import io.temporal.api.enums.v1.ParentClosePolicy;
import io.temporal.failure.ChildWorkflowFailure;
import io.temporal.workflow.Async;
import io.temporal.workflow.ChildWorkflowOptions;
import io.temporal.workflow.Promise;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;

public class StatefulSetControllerWorkflowImpl implements StatefulSetControllerWorkflow {
  private static final Logger log = Workflow.getLogger(StatefulSetControllerWorkflowImpl.class);
  /** Keep each run's history small; the controller lives as long as its set. */
  static final int MAX_HISTORY_EVENTS = 2_000;
  private static final Duration RETRY_FAILED_OPERATION_AFTER = Duration.ofSeconds(5);

  private boolean specChanged;
  private boolean podsChanged;
  /** What the last signal announced, for the Web UI and the log. */
  private String lastChange = "";
  /** The user who wrote the newest spec, as its signal said: the memo of the operation it starts. */
  private String requestedBy;

  @Override
  public void run(ControllerInput input) {
    Steps steps = Steps.ofThisRun();
    SetKey key = input.key();
    long sequence = input.nextSequence();
    long handledGeneration = input.handledGeneration();
    specChanged |= input.specChanged();
    podsChanged |= input.podsChanged();
    if (requestedBy == null) {
      requestedBy = input.requestedBy();
    }
    boolean recheck = true;
    while (true) {
      if (!recheck) {
        Workflow.setCurrentDetails("converged; last change: " + lastChange);
        Workflow.await(() -> specChanged || podsChanged);
        log.debug("{} woken: {}", key, lastChange);
      }
      specChanged = false;
      podsChanged = false;

      SetSnapshot set = steps.observe(key);
      steps.publishStatus();
      if (!set.exists()) {
        return; // deleted: the next write to this name starts a new controller
      }
      Plan plan = Planner.plan(set, Workflow.currentTimeMillis());
      recheck = !plan.converged();
      if (recheck) {
        runOperation(set, Operation.choose(set, handledGeneration), sequence++);
      }
      handledGeneration = Math.max(handledGeneration, set.generation());
      if (!recheck && HistoryBudget.exhausted(MAX_HISTORY_EVENTS)) {
        Workflow.await(Workflow::isEveryHandlerFinished);
        Workflow.continueAsNew(new ControllerInput(key, sequence, handledGeneration, specChanged, podsChanged,
            requestedBy));
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
    Map<String, Object> memo = requestedBy == null || operation == Operation.REPAIR ? null
        : Map.of("requestedBy", requestedBy);
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
        Workflow.await(() -> outcome.isCompleted() || specChanged || podsChanged);
        if (!outcome.isCompleted()) {
          specChanged = false;
          podsChanged = false;
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
    specChanged = true;
    lastChange = "spec generation " + generation + (requestedBy == null ? "" : " by " + requestedBy);
    if (requestedBy != null) {
      this.requestedBy = requestedBy;
    }
  }

  @Override
  public void podChanged(String podName) {
    podsChanged = true;
    lastChange = "pod " + podName;
  }
}
