package io.ordinal.workflow;

import io.ordinal.model.SetKey;
import io.temporal.activity.ActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.workflow.Workflow;
import java.time.Duration;

public class ReleaseWorkflowImpl implements ReleaseWorkflow {

  private static ReleaseActivities steps(Duration timeout, int attempts) {
    return Workflow.newActivityStub(ReleaseActivities.class, ActivityOptions.newBuilder()
        .setTaskQueue(StatefulSetControllerWorkflow.TASK_QUEUE)
        .setStartToCloseTimeout(timeout)
        // A step of an instance that died is retried by another within seconds (every wait heartbeats).
        .setHeartbeatTimeout(Duration.ofSeconds(10))
        .setRetryOptions(RetryOptions.newBuilder()
            .setInitialInterval(Duration.ofMillis(500))
            .setMaximumInterval(Duration.ofSeconds(10))
            .setDoNotRetry(AdoptionActivities.REFUSED)
            .setMaximumAttempts(attempts)
            .build())
        .build());
  }

  @Override
  public String release(SetKey key) {
    ReleaseActivities checks = steps(Duration.ofSeconds(30), 5);
    ReleaseActivities after = steps(Duration.ofMinutes(2), 0);
    ReleasePlan plan = checks.planRelease(key.namespace(), key.name());
    after.writeRevisions(plan);
    after.orphanOrdinal(plan); // refuses, changing nothing, if the set moved since the plan
    after.detach(plan);
    String uid = after.createUpstream(plan);
    after.awaitUpstream(plan, uid);
    return "released StatefulSet " + key + " to upstream's controller: " + plan.pods().size() + " pods at revision "
        + plan.revision() + ", none restarted";
  }
}
