package io.ordinal.temporal;

import io.opentracing.Scope;
import io.opentracing.Span;
import io.opentracing.Tracer;
import io.ordinal.workflow.OperationInput;
import io.ordinal.workflow.StatefulSetControllerWorkflow;
import io.temporal.common.interceptors.WorkerInterceptorBase;
import io.temporal.common.interceptors.WorkflowInboundCallsInterceptor;
import io.temporal.common.interceptors.WorkflowInboundCallsInterceptorBase;
import io.temporal.common.interceptors.WorkflowOutboundCallsInterceptor;
import io.temporal.common.interceptors.WorkflowOutboundCallsInterceptorBase;
import io.temporal.workflow.Workflow;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * Puts what a set's controller does in the trace of the signal that caused it. The controller lives
 * as long as its set, so under the tracing interceptor alone all of its work (observations, status,
 * the operations it starts, its continue-as-new) would hang under its own run, in the trace of the
 * request that created the set, for ever. Placed inside the tracing interceptor, this one keeps the
 * span of each signal the controller handles, and makes the controller's next calls its children:
 * an operation the span of the spec change of its generation (the first signal of that generation,
 * the API's through the outbox, not a later resync of the same), everything else the last signal's.
 * Spans only: nothing it does reaches the workflow's commands or history.
 */
final class ControllerTraces extends WorkerInterceptorBase {
  private static final String CONTROLLER = StatefulSetControllerWorkflow.class.getSimpleName();
  private final Tracer tracer;

  ControllerTraces(Tracer tracer) {
    this.tracer = tracer;
  }

  @Override
  public WorkflowInboundCallsInterceptor interceptWorkflow(WorkflowInboundCallsInterceptor next) {
    return new WorkflowInboundCallsInterceptorBase(next) {
      private Span lastSignal;
      /** The span of the first specChanged signal of each generation no operation has started for yet. */
      private final TreeMap<Long, Span> specChanges = new TreeMap<>();

      @Override
      public void handleSignal(SignalInput input) {
        if (Workflow.getInfo().getWorkflowType().equals(CONTROLLER)) {
          lastSignal = tracer.activeSpan(); // the tracing interceptor's span of this signal
          if (input.getSignalName().equals("specChanged") && input.getArguments()[0] instanceof Long generation) {
            specChanges.putIfAbsent(generation, lastSignal);
          }
        }
        super.handleSignal(input);
      }

      @Override
      public void init(WorkflowOutboundCallsInterceptor outboundCalls) {
        super.init(new WorkflowOutboundCallsInterceptorBase(outboundCalls) {
          @Override
          public <R> ChildWorkflowOutput<R> executeChildWorkflow(ChildWorkflowInput<R> input) {
            Span cause = lastSignal;
            if (input.getArgs().length > 0 && input.getArgs()[0] instanceof OperationInput operation) {
              Span change = specChanges.get(operation.generation());
              cause = change != null ? change : cause;
              specChanges.headMap(operation.generation(), true).clear();
            }
            return under(cause, () -> super.executeChildWorkflow(input));
          }

          @Override
          public <R> ActivityOutput<R> executeActivity(ActivityInput<R> input) {
            return under(lastSignal, () -> super.executeActivity(input));
          }

          @Override
          public <R> LocalActivityOutput<R> executeLocalActivity(LocalActivityInput<R> input) {
            return under(lastSignal, () -> super.executeLocalActivity(input));
          }

          @Override
          public void continueAsNew(ContinueAsNewInput input) {
            under(lastSignal, () -> {
              super.continueAsNew(input);
              return null;
            });
          }
        });
      }
    };
  }

  /** Runs {@code call} with {@code cause} as the active span (none known: as it is). */
  private <T> T under(Span cause, Supplier<T> call) {
    if (cause == null) {
      return call.get();
    }
    try (Scope ignored = tracer.activateSpan(cause)) {
      return call.get();
    }
  }
}
