package io.ordinal.workflow;

import io.ordinal.model.SetKey;
import io.temporal.activity.ActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.failure.ActivityFailure;
import io.temporal.workflow.Workflow;
import java.time.Duration;

public class AdoptionWorkflowImpl implements AdoptionWorkflow {
  private static final RetryOptions RETRIES = RetryOptions.newBuilder()
      .setInitialInterval(Duration.ofMillis(500))
      .setMaximumInterval(Duration.ofSeconds(10))
      .setDoNotRetry(AdoptionActivities.REFUSED)
      .build();

  private static AdoptionActivities steps(Duration timeout, int attempts) {
    return Workflow.newActivityStub(AdoptionActivities.class, ActivityOptions.newBuilder()
        .setTaskQueue(StatefulSetControllerWorkflow.TASK_QUEUE)
        .setStartToCloseTimeout(timeout)
        // A step of an instance that died is retried by another within seconds (every wait heartbeats).
        .setHeartbeatTimeout(Duration.ofSeconds(10))
        .setRetryOptions(RetryOptions.newBuilder(RETRIES).setMaximumAttempts(attempts).build())
        .build());
  }

  @Override
  public String adopt(SetKey key) {
    // Until the apps/v1 object is being deleted a refusal undoes what was done; from then on the
    // steps are retried until they are done: only forward.
    AdoptionActivities checks = steps(Duration.ofSeconds(30), 5);
    AdoptionActivities after = steps(Duration.ofMinutes(2), 0);
    AdoptionPlan plan = checks.plan(key.namespace(), key.name());
    try {
      checks.importRecords(plan);
      after.orphanUpstream(plan);
    } catch (ActivityFailure e) {
      checks.forgetRecords(plan);
      throw e;
    }
    String objectUid = after.createObject(plan);
    after.moveOwnership(plan, objectUid);
    after.awaitControlled(plan);
    return "adopted StatefulSet " + key + ": " + plan.pods().size() + " pods at revision " + plan.revision()
        + ", none restarted";
  }
}
