package io.ordinal.temporal;

import io.opentracing.Scope;
import io.opentracing.Span;
import io.opentracing.Tracer;
import io.temporal.common.interceptors.WorkerInterceptorBase;
import io.temporal.common.interceptors.WorkflowInboundCallsInterceptor;
import io.temporal.common.interceptors.WorkflowInboundCallsInterceptorBase;
import io.temporal.common.interceptors.WorkflowOutboundCallsInterceptor;
import io.temporal.common.interceptors.WorkflowOutboundCallsInterceptorBase;

/**
 * Starts an operation in the trace of the spec change that led to it. A set's controller workflow
 * lives as long as the set, so the tracing interceptor would start every operation under the
 * controller's own run, in the trace of the request that created the set; this one, placed inside
 * the tracing interceptor, keeps the span of the last {@code specChanged} signal and makes it the
 * parent of the next child workflow (an operation started by pods changing has none, and keeps the run's).
 * Spans only: nothing it does reaches the workflow's commands or history.
 */
final class SpecChangeTraces extends WorkerInterceptorBase {
  private final Tracer tracer;

  SpecChangeTraces(Tracer tracer) {
    this.tracer = tracer;
  }

  @Override
  public WorkflowInboundCallsInterceptor interceptWorkflow(WorkflowInboundCallsInterceptor next) {
    return new WorkflowInboundCallsInterceptorBase(next) {
      private Span lastSpecChange;

      @Override
      public void init(WorkflowOutboundCallsInterceptor outboundCalls) {
        super.init(new WorkflowOutboundCallsInterceptorBase(outboundCalls) {
          @Override
          public <R> ChildWorkflowOutput<R> executeChildWorkflow(ChildWorkflowInput<R> input) {
            Span change = lastSpecChange;
            lastSpecChange = null;
            if (change == null) {
              return super.executeChildWorkflow(input);
            }
            try (Scope ignored = tracer.activateSpan(change)) {
              return super.executeChildWorkflow(input);
            }
          }
        });
      }

      @Override
      public void handleSignal(SignalInput input) {
        if (input.getSignalName().equals("specChanged")) {
          lastSpecChange = tracer.activeSpan(); // the tracing interceptor's span of this signal
        }
        super.handleSignal(input);
      }
    };
  }
}
