package io.ordinal.workflow;

import io.ordinal.model.MemberHooks;
import io.temporal.activity.ActivityOptions;
import io.temporal.activity.LocalActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.workflow.Workflow;
import java.time.Duration;

final class ActivityStubs {
  private ActivityStubs() {}

  /**
   * Set and pod activities run as local activities: each is a few milliseconds of database work, and
   * running observe-plan-act inside one workflow task (instead of a task-queue round trip per
   * activity) is what lets the next pod start within ~100 ms of its predecessor becoming
   * available. They stay visible in the history as markers. They are idempotent and retried
   * without limit, with capped back-off, so an operation rides out a database outage.
   */
  static <T> T local(Class<T> activities) {
    return local(activities, null);
  }

  /** The same, each call with {@code summary}: what the step does, as the Web UI shows it. */
  static <T> T local(Class<T> activities, String summary) {
    return Workflow.newLocalActivityStub(
        activities,
        LocalActivityOptions.newBuilder()
            .setStartToCloseTimeout(STEP_TIMEOUT)
            .setRetryOptions(STEP_RETRIES)
            .setLocalRetryThreshold(LOCAL_RETRY_THRESHOLD)
            .setSummary(summary)
            .build());
  }

  /**
   * A failing local activity is retried inside its workflow task (heartbeated, so held by this
   * instance) while its next backoff is at most this; a longer one (from the 5th attempt: 3.2 s) waits on
   * a workflow timer, which ends the task, and the next can go to another instance. The SDK's default (a
   * minute) is above STEP_RETRIES' 10 s cap, so a step failing on one instance held its workflow there
   * for good; an instance cut off from its database fails its steps at once and stops polling
   * (WorkerPollingGuard), and its workflows move on elsewhere within seconds. A blip (a PostgreSQL
   * restart) is still retried in place for about 3 s.
   */
  private static final Duration LOCAL_RETRY_THRESHOLD = Duration.ofSeconds(2);

  /**
   * The same activities, run by the worker of {@code node} (its task queue), because they start,
   * stop or remove what lives on that node: processes, volumes, addresses. No schedule-to-start
   * limit: while the node is down its pods are neither created nor deleted, as upstream's controller
   * waits for a kubelet; the workflow itself goes on (signals, status) on any instance.
   */
  static <T> T onNode(Class<T> activities, String node) {
    return onNode(activities, node, null);
  }

  static <T> T onNode(Class<T> activities, String node, String summary) {
    return Workflow.newActivityStub(
        activities,
        ActivityOptions.newBuilder()
            .setTaskQueue(StatefulSetControllerWorkflow.nodeTaskQueue(node))
            .setStartToCloseTimeout(STEP_TIMEOUT)
            .setRetryOptions(STEP_RETRIES)
            .setSummary(summary)
            .build());
  }

  private static final Duration STEP_TIMEOUT = Duration.ofSeconds(30);

  private static final RetryOptions STEP_RETRIES = RetryOptions.newBuilder()
      .setInitialInterval(Duration.ofMillis(200))
      .setMaximumInterval(Duration.ofSeconds(10))
      // Explicit: for local activities the SDK reads an unset (0 = unlimited) maximum as
      // "do not retry" (temporalio/sdk-java#1727); fault injection found a PostgreSQL
      // restart failing the controller on the first attempt.
      .setMaximumAttempts(Integer.MAX_VALUE)
      .build();

  /**
   * A membership hook (run by {@code node}'s worker when the set has one: an exec hook runs in a
   * member's container there): one attempt may take {@code timeoutSeconds}, heartbeats every few seconds (so
   * a crashed worker's attempt is retried within {@link #HOOK_HEARTBEAT}), and {@code maxAttempts}
   * attempts back off exponentially from {@code backoffSeconds}.
   */
  static HookActivities hooks(MemberHooks.Timing timing, String node) {
    return Workflow.newActivityStub(HookActivities.class, ActivityOptions.newBuilder()
        .setTaskQueue(node == null ? StatefulSetControllerWorkflow.TASK_QUEUE : StatefulSetControllerWorkflow.nodeTaskQueue(node))
        // An attempt's answer, then the wait for an asynchronous hook's completion (0 for others).
        .setStartToCloseTimeout(Duration.ofSeconds(timing.timeoutSeconds() + timing.completionDeadlineSeconds() + 30L))
        .setHeartbeatTimeout(HOOK_HEARTBEAT)
        .setRetryOptions(RetryOptions.newBuilder()
            .setInitialInterval(Duration.ofSeconds(Math.max(1, timing.backoffSeconds())))
            .setBackoffCoefficient(2)
            .setMaximumInterval(Duration.ofMinutes(5))
            .setMaximumAttempts(Math.max(1, timing.maxAttempts()))
            .build())
        .build());
  }

  /**
   * A hook calls heartbeat every 2 s, but the SDK sends one at most every 0.8 of this timeout: 30 s
   * leaves 6 s for a stalled JVM before a healthy hook would be taken for dead and run again.
   */
  static final Duration HOOK_HEARTBEAT = Duration.ofSeconds(30);
}
