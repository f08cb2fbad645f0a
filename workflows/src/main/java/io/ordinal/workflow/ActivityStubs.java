package io.ordinal.workflow;

import io.temporal.activity.ActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.workflow.Workflow;
import java.time.Duration;

final class ActivityStubs {
  private ActivityStubs() {}

  /**
   * Activities are short and idempotent; they are retried without limit (with capped back-off) so
   * that an operation rides out a database or service outage instead of failing.
   */
  static SetActivities setActivities() {
    return Workflow.newActivityStub(
        SetActivities.class,
        ActivityOptions.newBuilder()
            .setStartToCloseTimeout(Duration.ofSeconds(30))
            .setRetryOptions(RetryOptions.newBuilder()
                .setInitialInterval(Duration.ofMillis(200))
                .setMaximumInterval(Duration.ofSeconds(10))
                .build())
            .build());
  }
}
