package io.ordinal.temporal;

import io.ordinal.model.SetKey;
import io.ordinal.workflow.Operation;
import io.temporal.activity.ActivityExecutionContext;
import io.temporal.common.interceptors.ActivityInboundCallsInterceptor;
import io.temporal.common.interceptors.ActivityInboundCallsInterceptorBase;
import io.temporal.common.interceptors.WorkerInterceptorBase;
import io.temporal.common.interceptors.WorkflowInboundCallsInterceptor;
import io.temporal.common.interceptors.WorkflowInboundCallsInterceptorBase;
import io.temporal.workflow.Workflow;
import java.lang.reflect.RecordComponent;
import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.MDC;

/**
 * Puts what a workflow or activity is about into the logging context, beside the ids the SDK puts
 * there ({@code WorkflowId}, {@code RunId}, {@code ActivityType}, and {@code Namespace}, Temporal's):
 * {@code set} ({@code namespace/name}), {@code pod} (when the step is about one) and {@code operation},
 * read from the call's first argument (a {@link SetKey} or a record whose component is one).
 */
public final class LogContext extends WorkerInterceptorBase {
  public static final String SET = "set";
  public static final String POD = "pod";
  public static final String OPERATION = "operation";

  @Override
  public WorkflowInboundCallsInterceptor interceptWorkflow(WorkflowInboundCallsInterceptor next) {
    return new WorkflowInboundCallsInterceptorBase(next) {
      @Override
      public WorkflowOutput execute(WorkflowInput input) {
        // The workflow's own thread keeps its context to the end (the SDK's replay-aware logger reads it).
        about(input.getArguments(), Workflow.getInfo().getWorkflowId()).forEach(MDC::put);
        return super.execute(input);
      }
    };
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
        Map<String, String> about = about(input.getArguments(), context.getInfo().getWorkflowId());
        about.forEach(MDC::put);
        try {
          return super.execute(input);
        } finally {
          about.keySet().forEach(MDC::remove); // activity threads are pooled
        }
      }
    };
  }

  /** The set, pod and operation a call with {@code arguments} in workflow {@code workflowId} is about. */
  static Map<String, String> about(Object[] arguments, String workflowId) {
    Map<String, String> about = new LinkedHashMap<>();
    Object first = arguments.length > 0 ? arguments[0] : null;
    SetKey set = first instanceof SetKey key ? key : null;
    String pod = null;
    Integer ordinal = null;
    if (first != null && first.getClass().isRecord()) {
      for (RecordComponent component : first.getClass().getRecordComponents()) {
        Object value = read(component, first);
        if (value instanceof SetKey key && set == null) {
          set = key;
        } else if (component.getName().equals("podName") && value instanceof String name) {
          pod = name;
        } else if (component.getName().equals("ordinal") && value instanceof Integer number) {
          ordinal = number;
        }
      }
    }
    if (set != null) {
      about.put(SET, set.toString());
      if (pod == null && ordinal != null) {
        pod = set.podName(ordinal);
      }
    }
    if (pod != null) {
      about.put(POD, pod);
    }
    if (workflowId != null) {
      Operation.ofWorkflowId(workflowId).ifPresent(operation -> about.put(OPERATION, operation.wireName()));
    }
    return about;
  }

  private static Object read(RecordComponent component, Object record) {
    try {
      return component.getAccessor().invoke(record);
    } catch (ReflectiveOperationException | RuntimeException e) {
      return null;
    }
  }
}
