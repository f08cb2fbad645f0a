package io.ordinal.workflow;

import com.uber.m3.tally.Scope;
import io.ordinal.model.PodSnapshot;
import io.ordinal.model.SetSnapshot;
import io.temporal.workflow.Workflow;
import java.util.Map;

/**
 * An operation's metrics, through the workflow's metrics scope: the SDK drops them while it replays
 * history, so each is counted once however often a run is replayed, and none adds to the history.
 * The service bridges the scope into its Prometheus registry ({@code ordinal_operations_started_total}
 * and so on: the registry adds the suffixes). The labels {@code namespace} and {@code statefulset} are
 * the set's, as kube-state-metrics names them (they replace the SDK's Temporal namespace tag).
 */
final class OperationMetrics {
  static final String STARTED = "ordinal_operations_started";
  static final String COMPLETED = "ordinal_operations_completed";
  static final String FAILED = "ordinal_operations_failed";
  static final String DURATION = "ordinal_operation_duration";
  static final String STEP_LATENCY = "ordinal_step_latency";
  static final String AUTOMATIC_ROLLBACKS = "ordinal_automatic_rollbacks";
  static final String DEADLINES_EXCEEDED = "ordinal_rollout_deadlines_exceeded";
  static final String FORCED_REPLACEMENTS = "ordinal_forced_pod_replacements";

  private final Scope scope;
  /** When the operation's last pod action was taken (its start before the first). */
  private long lastActionMillis;

  OperationMetrics(OperationInput input, long startedAtMillis) {
    this.scope = Workflow.getMetricsScope().tagged(Map.of("namespace", input.key().namespace(),
        "statefulset", input.key().name(), "operation", input.operation().wireName()));
    this.lastActionMillis = startedAtMillis;
  }

  /**
   * Counts the operation as started; only its first run does: not a continue-as-new, nor a start
   * again after a hand-over (whose input carries the first run's start).
   */
  void started(OperationInput input) {
    if (Workflow.getInfo().getContinuedExecutionRunId().isEmpty() && input.startedAtMillis() == 0) {
      scope.counter(STARTED).inc(1);
    }
  }

  /** The operation ended as {@code result} (converged, superseded, deleted, gone, cancelled). */
  void completed(String result, long startedAtMillis) {
    Scope ended = scope.tagged(Map.of("result", result));
    ended.counter(COMPLETED).inc(1);
    ended.timer(DURATION).record(com.uber.m3.util.Duration.ofMillis(Workflow.currentTimeMillis() - startedAtMillis));
  }

  void failed() {
    scope.counter(FAILED).inc(1);
  }

  /**
   * A pass that acts on pods: the step latency is the time from the moment a pod became available
   * (Ready for minReadySeconds) since the last action to this workflow task, the one that acts on
   * it. A pass that no availability led to (the first, a scale down after a pod went) has none.
   */
  void acting(SetSnapshot set, long nowMillis) {
    long available = 0;
    for (PodSnapshot pod : set.pods()) {
      long at = pod.availableAtMillis(set.minReadySeconds());
      if (at > lastActionMillis && at <= nowMillis) {
        available = Math.max(available, at);
      }
    }
    if (available > 0) {
      scope.timer(STEP_LATENCY).record(com.uber.m3.util.Duration.ofMillis(nowMillis - available));
    }
    lastActionMillis = nowMillis;
  }

  void deadlineExceeded() {
    scope.counter(DEADLINES_EXCEEDED).inc(1);
  }

  void rolledBack() {
    scope.counter(AUTOMATIC_ROLLBACKS).inc(1);
  }

  /**
   * A pod replaced while unhealthy because its revision is no longer its target: the forced rollback
   * that upstream leaves to a human.
   */
  void forcedReplacement() {
    scope.counter(FORCED_REPLACEMENTS).inc(1);
  }
}
