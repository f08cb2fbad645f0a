package io.ordinal.temporal;

import io.micronaut.context.annotation.Value;
import io.micronaut.core.annotation.Nullable;
import io.ordinal.activities.HookActivitiesImpl;
import io.ordinal.activities.PodActivitiesImpl;
import io.ordinal.activities.SetActivitiesImpl;
import io.ordinal.node.ThisNode;
import io.ordinal.workflow.AdoptionActivities;
import io.ordinal.workflow.AdoptionWorkflowImpl;
import io.ordinal.workflow.OperationWorkflowImpl;
import io.ordinal.workflow.ReleaseActivities;
import io.ordinal.workflow.ReleaseWorkflowImpl;
import io.ordinal.workflow.OrdinalSearchAttributes;
import io.ordinal.workflow.StatefulSetControllerWorkflow;
import io.ordinal.workflow.StatefulSetControllerWorkflowImpl;
import io.ordinal.workflow.TemporalProbeWorkflowImpl;
import io.temporal.api.enums.v1.IndexedValueType;
import io.temporal.api.operatorservice.v1.AddSearchAttributesRequest;
import io.temporal.api.operatorservice.v1.ListSearchAttributesRequest;
import io.temporal.client.WorkflowClient;
import io.temporal.serviceclient.OperatorServiceStubs;
import io.temporal.serviceclient.OperatorServiceStubsOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkerFactory;
import io.temporal.worker.WorkerOptions;
import jakarta.annotation.PreDestroy;
import jakarta.inject.Singleton;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This instance's Temporal workers: every instance runs any set's workflows (one shared queue); the
 * activities that act on what lives on a node (processes, volumes) come to that node's own queue.
 */
@Singleton
public class Workers {
  private static final Logger log = LoggerFactory.getLogger(Workers.class);
  private final WorkerFactory factory;
  private final WorkflowServiceStubs stubs;
  private final WorkflowClient client;
  private final SetActivitiesImpl setActivities;
  private final PodActivitiesImpl podActivities;
  private final HookActivitiesImpl hookActivities;
  private final ThisNode node;
  private final WorkerPollingGuard pollingGuard;

  /** Where Ordinal runs a cluster: the steps of adopting its apps/v1 sets and handing them back; else null. */
  private final AdoptionActivities adoption;
  private final ReleaseActivities release;

  /** How many workflow tasks and local activities this instance runs at once (see {@link #options()}). */
  private final int workflowTaskSlots;
  private final int localActivitySlots;

  public Workers(WorkerFactory factory, WorkflowServiceStubs stubs, WorkflowClient client, SetActivitiesImpl setActivities,
      PodActivitiesImpl podActivities, HookActivitiesImpl hookActivities, ThisNode node, WorkerPollingGuard pollingGuard,
      @Nullable AdoptionActivities adoption, @Nullable ReleaseActivities release,
      @Value("${ordinal.worker.workflow-task-slots:4}") int workflowTaskSlots,
      @Value("${ordinal.worker.local-activity-slots:6}") int localActivitySlots) {
    this.workflowTaskSlots = workflowTaskSlots;
    this.localActivitySlots = localActivitySlots;
    this.adoption = adoption;
    this.release = release;
    this.factory = factory;
    this.stubs = stubs;
    this.client = client;
    this.setActivities = setActivities;
    this.podActivities = podActivities;
    this.hookActivities = hookActivities;
    this.node = node;
    this.pollingGuard = pollingGuard;
  }

  /** Adds the Ordinal search attributes the namespace lacks (idempotent; also for external clusters). */
  public void registerSearchAttributes() {
    String namespace = client.getOptions().getNamespace();
    OperatorServiceStubs operator = OperatorServiceStubs.newServiceStubs(
        OperatorServiceStubsOptions.newBuilder().setChannel(stubs.getRawChannel()).validateAndBuildWithDefaults());
    try {
      var existing = operator.blockingStub().listSearchAttributes(
          ListSearchAttributesRequest.newBuilder().setNamespace(namespace).build()).getCustomAttributesMap();
      Map<String, IndexedValueType> missing = OrdinalSearchAttributes.ALL.stream()
          .filter(key -> !existing.containsKey(key.getName()))
          .collect(Collectors.toMap(key -> key.getName(), key -> IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD));
      if (!missing.isEmpty()) {
        operator.blockingStub().addSearchAttributes(AddSearchAttributesRequest.newBuilder()
            .setNamespace(namespace).putAllSearchAttributes(missing).build());
        log.info("registered search attributes {}", missing.keySet());
      }
    } finally {
      operator.shutdown();
    }
  }

  /** Starts polling the shared queue and this node's. */
  public void start() {
    Worker worker = factory.newWorker(StatefulSetControllerWorkflow.TASK_QUEUE, options());
    worker.registerWorkflowImplementationTypes(StatefulSetControllerWorkflowImpl.class, OperationWorkflowImpl.class,
        AdoptionWorkflowImpl.class, ReleaseWorkflowImpl.class, TemporalProbeWorkflowImpl.class);
    worker.registerActivitiesImplementations(setActivities, podActivities, hookActivities);
    if (adoption != null && release != null) {
      worker.registerActivitiesImplementations(adoption, release);
    }
    Worker nodeWorker = factory.newWorker(node.taskQueue(), options());
    nodeWorker.registerActivitiesImplementations(setActivities, podActivities, hookActivities);
    factory.start();
    pollingGuard.start();
  }

  /**
   * Bounded workflow task and local activity slots (the SDK's default is 200 each): a step's local
   * activities hold a database connection, and with 200 sets stepping at once they took the whole pool,
   * so the API's reads queued behind them for seconds. Bounded, a burst of steps waits in Temporal's
   * task queue instead, and the pool keeps connections for the API. Activities (a hook may wait for
   * minutes in one) stay unbounded.
   */
  private WorkerOptions options() {
    return WorkerOptions.newBuilder()
        .setUsingVirtualThreads(true)
        .setMaxConcurrentWorkflowTaskExecutionSize(workflowTaskSlots)
        .setMaxConcurrentLocalActivityExecutionSize(localActivitySlots)
        .build();
  }

  @PreDestroy
  void stop() {
    factory.shutdown();
    factory.awaitTermination(10, TimeUnit.SECONDS);
  }
}
