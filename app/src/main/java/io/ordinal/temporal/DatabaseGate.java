package io.ordinal.temporal;

import io.temporal.activity.ActivityExecutionContext;
import io.temporal.common.interceptors.ActivityInboundCallsInterceptor;
import io.temporal.common.interceptors.ActivityInboundCallsInterceptorBase;
import io.temporal.common.interceptors.WorkerInterceptorBase;
import io.temporal.failure.ApplicationFailure;
import jakarta.inject.Singleton;

/**
 * Fails a step's local activity at once while this instance's database does not answer
 * ({@link WorkerPollingGuard} closes it): each attempt would otherwise wait for a pooled connection
 * (30 s) before failing, so the step's backoff would take minutes to pass the local retry threshold
 * and give the workflow task up to another instance. Regular activities (a node's steps, hooks) are
 * left alone: this instance takes none while it is closed.
 */
@Singleton
public class DatabaseGate extends WorkerInterceptorBase {
  static final String UNREACHABLE = "DatabaseUnreachable";
  private volatile boolean closed;

  void close() {
    closed = true;
  }

  void open() {
    closed = false;
  }

  @Override
  public ActivityInboundCallsInterceptor interceptActivity(ActivityInboundCallsInterceptor next) {
    return new ActivityInboundCallsInterceptorBase(next) {
      private ActivityExecutionContext context;

      @Override
      public void init(ActivityExecutionContext context) {
        this.context = context;
        super.init(context);
      }

      @Override
      public ActivityOutput execute(ActivityInput input) {
        if (closed && context.getInfo().isLocal()) {
          throw ApplicationFailure.newFailure("this instance's database does not answer: the step is retried,"
              + " on another instance once this one's workflow task ends", UNREACHABLE);
        }
        return super.execute(input);
      }
    };
  }
}
