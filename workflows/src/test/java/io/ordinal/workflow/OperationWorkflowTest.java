package io.ordinal.workflow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ordinal.model.PodSnapshot;
import io.ordinal.model.SetKey;
import io.ordinal.model.SetSnapshot;
import io.temporal.client.BatchRequest;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Workflow logic on the in-memory test server, with time skipping. */
class OperationWorkflowTest {
  static final SetKey KEY = new SetKey("default", "web");

  TestWorkflowEnvironment env;
  WorkflowClient client;
  FakeWorld world;

  @BeforeEach
  void setUp() {
    env = TestWorkflowEnvironment.newInstance();
    client = env.getWorkflowClient();
    world = new FakeWorld();
    OrdinalSearchAttributes.ALL.forEach(key -> env.registerSearchAttribute(key.getName(),
        io.temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD));
    Worker worker = env.newWorker(Operations.TASK_QUEUE);
    worker.registerWorkflowImplementationTypes(StatefulSetControllerWorkflowImpl.class, OperationWorkflowImpl.class);
    worker.registerActivitiesImplementations(world);
    env.start();
  }

  @AfterEach
  void tearDown() {
    env.close();
  }

  @Test
  void minReadySecondsSeparatesEachCreationFromThePredecessorBecomingReady() {
    world.replicas = 3;
    world.minReadySeconds = 10;
    startController();
    String outcome = operationResult(1);
    assertTrue(outcome.startsWith("converged"), outcome);
    assertEquals(List.of("+web-0", "+web-1", "+web-2"), world.log);
    for (int i = 1; i < 3; i++) {
      long gap = world.createdAt.get(i) - world.createdAt.get(i - 1);
      assertTrue(gap >= 10_000, "web-" + i + " created " + gap + " ms after web-" + (i - 1) + " became Ready");
      assertTrue(gap < 11_000, "web-" + i + " waited for a poll, not for the durable timer: " + gap + " ms");
    }
  }

  @Test
  void scaleDownTerminatesHighestOrdinalFirst() {
    world.replicas = 3;
    startController();
    operationResult(1);
    world.replicas = 0;
    world.generation = 2;
    world.log.clear();
    signalSpecChanged();
    operationResult(2);
    assertEquals(List.of("-web-2", "-web-1", "-web-0"), world.log);
  }

  /** Waits for the controller to start operation {@code sequence}, then for its result. */
  private String operationResult(long sequence) {
    String id = KEY.operationWorkflowId(Operations.SCALE, sequence);
    for (int attempt = 0; ; attempt++) {
      try {
        return client.newUntypedWorkflowStub(id).getResult(String.class);
      } catch (io.temporal.client.WorkflowNotFoundException | io.grpc.StatusRuntimeException e) {
        if (attempt > 100) {
          throw e;
        }
        try {
          Thread.sleep(50);
        } catch (InterruptedException interrupted) {
          throw new IllegalStateException(interrupted);
        }
      }
    }
  }

  private void startController() {
    signalSpecChanged();
  }

  private void signalSpecChanged() {
    StatefulSetControllerWorkflow controller = client.newWorkflowStub(StatefulSetControllerWorkflow.class,
        WorkflowOptions.newBuilder().setWorkflowId(KEY.controllerWorkflowId()).setTaskQueue(Operations.TASK_QUEUE).build());
    BatchRequest request = client.newSignalWithStartRequest();
    request.add(controller::run, ControllerInput.start(KEY));
    request.add(controller::specChanged, 1L);
    client.signalWithStart(request);
  }

  /** Pods that become Ready the moment they are created and vanish the moment they are deleted. */
  class FakeWorld implements SetActivities {
    volatile int replicas;
    volatile long generation = 1;
    volatile int minReadySeconds;
    final Map<Integer, PodSnapshot> pods = new TreeMap<>();
    final List<String> log = new ArrayList<>();
    final Map<Integer, Long> createdAt = new TreeMap<>();

    @Override
    public synchronized SetSnapshot refresh(SetKey key) {
      return new SetSnapshot(key, true, false, generation, replicas, false, minReadySeconds, true, 0, 1, "rev", "rev",
          List.copyOf(pods.values()));
    }

    @Override
    public void createPod(SetKey key, int ordinal, String revision) {
      synchronized (this) {
        long now = env.currentTimeMillis();
        pods.put(ordinal, new PodSnapshot(ordinal, key.podName(ordinal), revision, PodSnapshot.RUNNING, true, now, false));
        log.add("+" + key.podName(ordinal));
        createdAt.put(ordinal, now);
      }
      notifyController(key, ordinal);
    }

    @Override
    public void deletePod(SetKey key, String podName, String reason) {
      int ordinal = Integer.parseInt(podName.substring(podName.lastIndexOf('-') + 1));
      synchronized (this) {
        pods.remove(ordinal);
        log.add("-" + podName);
      }
      notifyController(key, ordinal);
    }

    @Override
    public void finishDeletion(SetKey key) {}

    @Override
    public void claimOperation(SetKey key, String operationWorkflowId) {}

    private void notifyController(SetKey key, int ordinal) {
      client.newWorkflowStub(StatefulSetControllerWorkflow.class, key.controllerWorkflowId()).podChanged(key.podName(ordinal));
    }
  }
}
