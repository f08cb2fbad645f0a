package io.ordinal.temporal;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.micronaut.context.annotation.Value;
import io.ordinal.node.ThisNode;
import io.ordinal.workflow.OrdinalSearchAttributes;
import io.ordinal.workflow.StatefulSetControllerWorkflow;
import io.ordinal.workflow.TemporalProbeWorkflow;
import io.temporal.api.workflowservice.v1.DescribeNamespaceRequest;
import io.temporal.api.workflowservice.v1.GetSystemInfoRequest;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowExecutionAlreadyStarted;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.common.SearchAttributes;
import io.temporal.serviceclient.WorkflowServiceStubs;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the service checks of a Temporal it did not start itself (TEMPORAL_ADDRESS: a cluster, Temporal
 * Cloud) before it takes work, so that a missing piece is a clear message at start rather than a
 * failure mid-operation: the namespace exists; a workflow starts with Ordinal's search attributes (a
 * new attribute reaches every frontend with its namespace cache); workflow updates are enabled (pause
 * and undo wait on them: {@code frontend.enableUpdateWorkflowExecution}). How late short timers fire
 * ({@code history.timerProcessorMaxTimeShift}, deploy/temporal/dynamicconfig.yaml) is measured after
 * the start and logged as a warning when late: it slows minReadySeconds, it breaks nothing.
 */
@Singleton
public class TemporalPreflight {
  private static final Logger log = LoggerFactory.getLogger(TemporalPreflight.class);
  /** Timers of the probe, and the mean lateness past which the log says the timer config is missing. */
  static final int TIMERS = 5;
  static final long TIMER_MILLIS = 100;
  static final long LATE_MILLIS = 300;
  /**
   * How long a search attribute just registered may take to reach the frontends (their namespace
   * cache), and a cluster just started to serve workflows.
   */
  private static final Duration ATTRIBUTES_PROPAGATION = Duration.ofSeconds(60);
  private final WorkflowServiceStubs stubs;
  private final WorkflowClient client;
  private final ThisNode node;
  private final String address;
  private final boolean embedded;

  public TemporalPreflight(WorkflowServiceStubs stubs, WorkflowClient client, ThisNode node,
      @Value("${temporal.address}") String address, @Value("${ordinal.temporal.embedded:false}") boolean embedded) {
    this.stubs = stubs;
    this.client = client;
    this.node = node;
    this.address = address;
    this.embedded = embedded;
  }

  /** Thrown when the Temporal lacks something the service needs; its message says what to do. */
  public static final class TemporalNotReady extends IllegalStateException {
    TemporalNotReady(String message) {
      super(message);
    }
  }

  private String namespace() {
    return client.getOptions().getNamespace();
  }

  /** The namespace exists (before anything is registered in it). Nothing to check on the embedded dev server. */
  public void checkNamespace() {
    if (embedded) {
      return;
    }
    try {
      var described = stubs.blockingStub().describeNamespace(DescribeNamespaceRequest.newBuilder()
          .setNamespace(namespace()).build());
      var info = stubs.blockingStub().getSystemInfo(GetSystemInfoRequest.getDefaultInstance());
      log.info("Temporal {} at {}, namespace {} (retention {} h)", info.getServerVersion(), address, namespace(),
          described.getConfig().getWorkflowExecutionRetentionTtl().getSeconds() / 3600);
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() == Status.Code.NOT_FOUND) {
        throw new TemporalNotReady("Temporal namespace '" + namespace() + "' does not exist at " + address
            + ": register it (temporal operator namespace create --address " + address + " --namespace " + namespace()
            + " --retention 72h) or set TEMPORAL_NAMESPACE to one that exists");
      }
      throw e;
    }
  }

  /**
   * Runs the probe workflow on this node's worker (started before): it must start with Ordinal's
   * search attributes and take an update. Then measures its timers in the background.
   */
  public void probe() {
    if (embedded) {
      return;
    }
    String id = "ordinal-probe/" + node.name();
    Instant deadline = Instant.now().plus(ATTRIBUTES_PROPAGATION);
    TemporalProbeWorkflow probe;
    while (true) {
      probe = client.newWorkflowStub(TemporalProbeWorkflow.class, WorkflowOptions.newBuilder()
          .setWorkflowId(id)
          .setTaskQueue(StatefulSetControllerWorkflow.TASK_QUEUE)
          .setWorkflowExecutionTimeout(Duration.ofMinutes(2))
          .setTypedSearchAttributes(SearchAttributes.newBuilder()
              .set(OrdinalSearchAttributes.OPERATION, "probe").build())
          .build());
      try {
        WorkflowClient.start(probe::run, TIMERS, TIMER_MILLIS);
        break;
      } catch (WorkflowExecutionAlreadyStarted e) {
        // A probe of a start that died: it ends by its timeout; this start probes with a new run.
        client.newUntypedWorkflowStub(id).terminate("a new start of " + node.name() + " probes again");
      } catch (RuntimeException e) {
        if (hasStatus(e, Status.Code.UNAVAILABLE) && Instant.now().isBefore(deadline)) {
          // A cluster whose history hosts are still joining its membership ring ("Not enough hosts").
          sleep(Duration.ofMillis(500));
          continue;
        }
        if (!isUnknownSearchAttribute(e) || Instant.now().isAfter(deadline)) {
          throw isUnknownSearchAttribute(e) ? new TemporalNotReady("Temporal at " + address + " still refuses Ordinal's "
              + "search attributes " + ATTRIBUTES_PROPAGATION.toSeconds() + " s after they were registered in namespace "
              + namespace() + ": " + rootMessage(e)) : e;
        }
        sleep(Duration.ofMillis(500));
      }
    }
    try {
      probe.ping();
    } catch (RuntimeException e) {
      throw new TemporalNotReady("Temporal at " + address + " refuses workflow updates in namespace " + namespace()
          + " (pause and undo need them): set frontend.enableUpdateWorkflowExecution to true in its dynamic config ("
          + rootMessage(e) + ")");
    }
    WorkflowStub run = WorkflowStub.fromTyped(probe);
    Thread.ofVirtual().name("temporal-probe").start(() -> reportTimers(run));
  }

  private void reportTimers(WorkflowStub run) {
    try {
      @SuppressWarnings("unchecked")
      List<Number> lateness = run.getResult(60, TimeUnit.SECONDS, List.class);
      double mean = lateness.stream().mapToLong(Number::longValue).average().orElse(0);
      if (mean > LATE_MILLIS) {
        log.warn("Temporal at {} fires short timers {} ms late on average ({} ms timers: {}): minReadySeconds waits "
            + "will be that much longer. Set history.timerProcessorMaxTimeShift to 10ms in its dynamic config "
            + "(deploy/temporal/dynamicconfig.yaml has it, and the task-queue read rates Ordinal wants)",
            address, Math.round(mean), TIMER_MILLIS, lateness);
      } else {
        log.info("Temporal at {} fires {} ms timers {} ms late on average", address, TIMER_MILLIS, Math.round(mean));
      }
    } catch (RuntimeException | java.util.concurrent.TimeoutException e) {
      log.warn("could not measure Temporal's timers: {}", e.toString());
    }
  }

  private static boolean hasStatus(Throwable e, Status.Code code) {
    for (Throwable cause = e; cause != null; cause = cause.getCause()) {
      if (cause instanceof StatusRuntimeException status && status.getStatus().getCode() == code) {
        return true;
      }
    }
    return false;
  }

  private static boolean isUnknownSearchAttribute(Throwable e) {
    for (Throwable cause = e; cause != null; cause = cause.getCause()) {
      if (cause instanceof StatusRuntimeException status && status.getStatus().getCode() == Status.Code.INVALID_ARGUMENT
          && String.valueOf(status.getStatus().getDescription()).toLowerCase().contains("search attribute")) {
        return true;
      }
    }
    return false;
  }

  private static String rootMessage(Throwable e) {
    Throwable cause = e;
    while (cause.getCause() != null) {
      cause = cause.getCause();
    }
    return cause.getMessage();
  }

  private static void sleep(Duration duration) {
    try {
      Thread.sleep(duration);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
