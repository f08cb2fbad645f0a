package io.ordinal.temporal;

import io.micronaut.context.event.ApplicationEventListener;
import io.micronaut.runtime.server.event.ServerStartupEvent;
import io.ordinal.activities.HookActivitiesImpl;
import io.ordinal.activities.PodActivitiesImpl;
import io.ordinal.activities.SetActivitiesImpl;
import io.ordinal.driver.DriverRegistry;
import io.ordinal.nodeagent.NodeAgent;
import io.ordinal.node.ThisNode;
import io.ordinal.store.NodeStore;
import io.ordinal.workflow.OperationWorkflowImpl;
import io.ordinal.workflow.OrdinalSearchAttributes;
import io.ordinal.workflow.StatefulSetControllerWorkflow;
import io.ordinal.workflow.StatefulSetControllerWorkflowImpl;
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
 * Once the HTTP server is up: registers the search attributes, starts the worker, lets the drivers
 * re-adopt their pods, and nudges every set's controller so that work interrupted by a crash resumes.
 */
@Singleton
public class WorkerLifecycle implements ApplicationEventListener<ServerStartupEvent> {
  private static final Logger log = LoggerFactory.getLogger(WorkerLifecycle.class);
  private final WorkerFactory factory;
  private final WorkflowServiceStubs stubs;
  private final WorkflowClient client;
  private final SetActivitiesImpl setActivities;
  private final PodActivitiesImpl podActivities;
  private final HookActivitiesImpl hookActivities;
  private final DriverRegistry drivers;
  private final SetSignals signals;
  private final ControllerOutboxDrain outbox;
  private final ThisNode node;
  private final NodeStore nodes;
  private final NodeAgent agent;
  private volatile boolean started;

  public WorkerLifecycle(WorkerFactory factory, WorkflowServiceStubs stubs, WorkflowClient client,
      SetActivitiesImpl setActivities, PodActivitiesImpl podActivities, HookActivitiesImpl hookActivities,
      DriverRegistry drivers, SetSignals signals, ControllerOutboxDrain outbox, ThisNode node, NodeStore nodes,
      NodeAgent agent) {
    this.node = node;
    this.nodes = nodes;
    this.agent = agent;
    this.outbox = outbox;
    this.hookActivities = hookActivities;
    this.factory = factory;
    this.stubs = stubs;
    this.client = client;
    this.setActivities = setActivities;
    this.podActivities = podActivities;
    this.drivers = drivers;
    this.signals = signals;
  }

  @Override
  public void onApplicationEvent(ServerStartupEvent event) {
    long start = System.nanoTime();
    registerSearchAttributes();
    nodes.register(node.name(), event.getSource().getURL().toString());
    int adopted = nodes.adoptUnplaced(node.name(), drivers.nodeBoundDrivers(), drivers.defaultDriver());
    if (adopted > 0) {
      log.info("placed {} sets, pods and claims made before nodes existed on node {}", adopted, node.name());
    }
    long attributes = System.nanoTime();
    // Every instance runs any set's workflows (one shared queue); the activities that act on what
    // lives on a node (processes, volumes) come to that node's own queue.
    Worker worker = factory.newWorker(StatefulSetControllerWorkflow.TASK_QUEUE,
        WorkerOptions.newBuilder().setUsingVirtualThreads(true).build());
    worker.registerWorkflowImplementationTypes(StatefulSetControllerWorkflowImpl.class, OperationWorkflowImpl.class);
    worker.registerActivitiesImplementations(setActivities, podActivities, hookActivities);
    Worker nodeWorker = factory.newWorker(node.taskQueue(),
        WorkerOptions.newBuilder().setUsingVirtualThreads(true).build());
    nodeWorker.registerActivitiesImplementations(setActivities, podActivities, hookActivities);
    factory.start();
    long workerStarted = System.nanoTime();
    drivers.recoverAll();
    agent.start();
    long recovered = System.nanoTime();
    outbox.start();
    // A signal per set, which nothing waits for: the service is ready while they go out.
    Thread.ofVirtual().name("nudge-all").start(() -> {
      try {
        signals.nudgeAll();
      } catch (RuntimeException e) {
        log.warn("start-up nudges stopped (the resync catches up): {}", e.toString());
      }
    });
    started = true;
    long end = System.nanoTime();
    // What a start spends where: search attributes, worker, drivers' re-adoption.
    log.info("worker of node {} ready in {} ms (search attributes and node {} ms, worker {} ms, drivers {} ms)",
        node.name(), (end - start) / 1_000_000, (attributes - start) / 1_000_000, (workerStarted - attributes) / 1_000_000,
        (recovered - workerStarted) / 1_000_000);
  }

  /** True once the worker runs and the drivers have re-adopted their pods. */
  public boolean started() {
    return started;
  }

  /** Adds the Ordinal search attributes the namespace lacks (idempotent; also for external clusters). */
  private void registerSearchAttributes() {
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

  @PreDestroy
  void stop() {
    factory.shutdown();
    factory.awaitTermination(10, TimeUnit.SECONDS);
  }
}
