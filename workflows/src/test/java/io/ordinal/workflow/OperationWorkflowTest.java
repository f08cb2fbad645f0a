package io.ordinal.workflow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import io.grpc.StatusRuntimeException;
import io.ordinal.model.MemberHooks;
import io.ordinal.model.PodSnapshot;
import io.ordinal.model.RolloutControl;
import io.ordinal.model.SetKey;
import io.ordinal.model.SetSnapshot;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.enums.v1.IndexedValueType;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.client.BatchRequest;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowNotFoundException;
import io.temporal.client.WorkflowOptions;
import io.temporal.common.WorkflowExecutionHistory;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.testing.WorkflowReplayer;
import io.temporal.worker.Worker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.Stream;
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
    env = TestWorkflowEnvironment.newInstance(ReplayTest.withOrdinalDataConverter());
    client = env.getWorkflowClient();
    world = new FakeWorld();
    OrdinalSearchAttributes.ALL.forEach(key -> env.registerSearchAttribute(key.getName(),
        IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD));
    Worker worker = env.newWorker(StatefulSetControllerWorkflow.TASK_QUEUE);
    worker.registerWorkflowImplementationTypes(StatefulSetControllerWorkflowImpl.class, OperationWorkflowImpl.class);
    worker.registerActivitiesImplementations(world);
    env.newWorker(StatefulSetControllerWorkflow.nodeTaskQueue("node-b")).registerActivitiesImplementations(world);
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
    assertEquals(List.of("+web-0@a", "+web-1@a", "+web-2@a"), world.log);
    for (int i = 1; i < 3; i++) {
      long gap = world.createdAt.get(i) - world.createdAt.get(i - 1);
      assertTrue(gap >= 10_000, "web-" + i + " created " + gap + " ms after web-" + (i - 1) + " became Ready");
      assertTrue(gap < 11_000, "web-" + i + " waited for a poll, not for the durable timer: " + gap + " ms");
    }
  }

  @Test
  void waitsThatSignalsEndShareOneStandingTimer() {
    world.replicas = 3;
    startController();
    assertTrue(operationResult(1).startsWith("converged"));
    Map<EventType, Long> timers = client.fetchHistory(Operation.SCALE.workflowId(KEY, 1)).getEvents().stream()
        .filter(event -> event.getEventType().name().startsWith("EVENT_TYPE_TIMER_"))
        .collect(Collectors.groupingBy(HistoryEvent::getEventType, TreeMap::new, Collectors.counting()));
    // Each pod's Ready signal ended a wait; the next wait kept the first wait's safety poll (it fires no
    // later than that wait needs): one timer for the whole scale, none cancelled, none fired.
    assertEquals(Map.of(EventType.EVENT_TYPE_TIMER_STARTED, 1L), timers);
  }

  @Test
  void aWaitThatNeedsAnEarlierTimerCancelsTheOneItSupersedes() {
    world.replicas = 2;
    world.minReadySeconds = 10;
    startController();
    assertTrue(operationResult(1).startsWith("converged"));
    List<EventType> timers = client.fetchHistory(Operation.SCALE.workflowId(KEY, 1)).getEvents().stream()
        .map(HistoryEvent::getEventType).filter(type -> type.name().startsWith("EVENT_TYPE_TIMER_")).toList();
    // web-0 Ready: the wait for its minReadySeconds (10 s) needs a timer earlier than the first wait's
    // safety poll (15 s), which it cancels first; the new timer fires, and web-1 is made.
    assertEquals(List.of(EventType.EVENT_TYPE_TIMER_STARTED, EventType.EVENT_TYPE_TIMER_CANCELED,
        EventType.EVENT_TYPE_TIMER_STARTED, EventType.EVENT_TYPE_TIMER_FIRED), timers.subList(0, 4), timers.toString());
  }

  @Test
  void podStepsOfASetOnAnotherNodeAreRefusedInTheWorkflowTaskAndRunOnThatNodesTaskQueue() {
    world.node = "node-b"; // the set's pods live on node-b; this worker is node-a
    world.replicas = 2;
    startController();
    assertTrue(operationResult(1).startsWith("converged"));
    // Refused once per plan; the plan's next steps go to node-b's queue at once.
    assertEquals(List.of("createPod:refused", "createPod:ordinal-node-node-b", "createPod:refused",
        "createPod:ordinal-node-node-b"), world.steps);
    assertEquals(List.of("+web-0@a", "+web-1@a"), world.log);
  }

  @Test
  void podStepsOfASetOnThisWorkersNodeAreLocalActivities() {
    world.node = "node-b";
    world.workerNode = "node-b";
    world.replicas = 2;
    startController();
    assertTrue(operationResult(1).startsWith("converged"));
    // One activity per pod: its claims are made in CreatePod (version 4 of the steps).
    assertEquals(List.of("createPod:local", "createPod:local"), world.steps);
  }

  @Test
  void aParallelScaleCreatesItsPodsInOneStepAndDeletesThemInOne() {
    world.parallel = true;
    world.replicas = 4;
    startController();
    assertTrue(operationResult(1).startsWith("converged"));
    assertEquals(List.of("createPods:local"), world.steps, "one activity for the four creations");
    assertEquals(List.of("+web-0@a", "+web-1@a", "+web-2@a", "+web-3@a"), world.log);
    world.replicas = 1;
    world.generation = 2;
    world.log.clear();
    world.steps.clear();
    signalSpecChanged();
    assertTrue(operationResult(2).startsWith("converged"));
    assertEquals(List.of("deletePods:local"), world.steps);
    assertEquals(List.of("-web-3", "-web-2", "-web-1"), world.log);
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

  @Test
  void scaleDownWithWhenScaledDeleteGivesEachClaimToItsPodThenDeletesItOnceThePodIsGone() {
    world.replicas = 3;
    world.ordinalStart = 5;
    world.claimsGoWithCondemnedPods = true;
    startController();
    operationResult(1);
    assertEquals(List.of("+web-5@a", "+web-6@a", "+web-7@a"), world.log);
    world.replicas = 1;
    world.generation = 2;
    world.log.clear();
    long start = env.currentTimeMillis();
    signalSpecChanged();
    String outcome = operationResult(2);
    assertTrue(outcome.startsWith("converged"), outcome);
    assertEquals(List.of("owners-web-7", "-web-7", "-claim-data-web-7", "owners-web-6", "-web-6", "-claim-data-web-6"),
        world.log);
    assertEquals(Set.of(5), world.claimOwners.keySet());
    long took = env.currentTimeMillis() - start;
    assertTrue(took < OperationWorkflowImpl.SAFETY_POLL.toMillis(),
        "a claim-only step observed again at once, not after the safety poll: " + took + " ms");
  }

  static final MemberHooks HOOKS = new MemberHooks(new MemberHooks.Timing(60, 3, 1), new MemberHooks.Timing(60, 3, 1));

  @Test
  void membersJoinThroughPreCreateAndLeaveThroughPreDeleteInOrderAndTheHistoryReplays() throws Exception {
    world.hooks = HOOKS;
    world.replicas = 3;
    startController();
    assertTrue(operationResult(1).startsWith("converged"));
    assertEquals(List.of("+web-0@a", "hook:PreCreate:web-1", "+web-1@a", "hook:PreCreate:web-2", "+web-2@a"), world.log);
    world.replicas = 1;
    world.generation = 2;
    world.log.clear();
    signalSpecChanged();
    assertTrue(operationResult(2).startsWith("converged"));
    assertEquals(List.of("hook:PreDelete:web-2", "-web-2", "hook:PreDelete:web-1", "-web-1"), world.log);
    assertEquals(Set.of(0), world.members);
    // A worker that crashed anywhere in it replays this history: no hook runs again, none is skipped.
    try (TestWorkflowEnvironment replay = TestWorkflowEnvironment.newInstance(ReplayTest.withOrdinalDataConverter())) {
      WorkflowReplayer.replayWorkflowExecution(client.fetchHistory(Operation.SCALE.workflowId(KEY, 2)), replay,
          StatefulSetControllerWorkflowImpl.class, OperationWorkflowImpl.class);
    }
  }

  @Test
  void aReservedMemberLeavesBeforeTheNextFreeOrdinalJoinsAndComesBackWhenUnreservedAndTheHistoryReplays()
      throws Exception {
    world.hooks = HOOKS;
    world.replicas = 3;
    startController();
    assertTrue(operationResult(1).startsWith("converged"));
    world.reserved = List.of(1);
    world.generation = 2;
    world.log.clear();
    signalSpecChanged();
    assertTrue(operationResult(2).startsWith("converged"));
    assertEquals(List.of("hook:PreDelete:web-1", "-web-1", "hook:PreCreate:web-3", "+web-3@a"), world.log);
    assertEquals(Set.of(0, 2, 3), world.pods.keySet());
    world.reserved = List.of();
    world.generation = 3;
    world.log.clear();
    signalSpecChanged();
    assertTrue(operationResult(3).startsWith("converged"));
    assertEquals(List.of("hook:PreCreate:web-1", "+web-1@a", "hook:PreDelete:web-3", "-web-3"), world.log);
    try (TestWorkflowEnvironment replay = TestWorkflowEnvironment.newInstance(ReplayTest.withOrdinalDataConverter())) {
      WorkflowReplayer.replayWorkflowExecution(client.fetchHistory(Operation.SCALE.workflowId(KEY, 2)), replay,
          StatefulSetControllerWorkflowImpl.class, OperationWorkflowImpl.class);
    }
  }

  @Test
  void aRolloutRunsEachMembersPreUpdateHookBeforeReplacingItAndTheHistoryReplays() throws Exception {
    world.hooks = new MemberHooks(null, null, new MemberHooks.Timing(60, 3, 1));
    world.replicas = 3;
    startController();
    assertTrue(operationResult(1).startsWith("converged"));
    world.log.clear();
    world.newSpec("b", RolloutControl.DEFAULT);
    signalSpecChanged();
    assertTrue(result(Operation.ROLLOUT.workflowId(KEY, 2)).startsWith("converged"));
    assertEquals(List.of("hook:PreUpdate:web-2", "-web-2", "+web-2@b", "hook:PreUpdate:web-1", "-web-1", "+web-1@b",
        "hook:PreUpdate:web-0", "-web-0", "+web-0@b"), world.log);
    try (TestWorkflowEnvironment replay = TestWorkflowEnvironment.newInstance(ReplayTest.withOrdinalDataConverter())) {
      WorkflowReplayer.replayWorkflowExecution(client.fetchHistory(Operation.ROLLOUT.workflowId(KEY, 2)), replay,
          StatefulSetControllerWorkflowImpl.class, OperationWorkflowImpl.class);
    }
  }

  @Test
  void aRolloutUpdatesPodsInPlaceHighestFirstWhenTheirRevisionAllowsAndTheHistoryReplays() throws Exception {
    world.replicas = 3;
    startController();
    assertTrue(operationResult(1).startsWith("converged"));
    world.log.clear();
    world.inPlace = new io.ordinal.model.InPlaceUpdates(io.ordinal.model.InPlaceUpdates.IF_POSSIBLE, List.of("a"));
    world.newSpec("b", RolloutControl.DEFAULT);
    signalSpecChanged();
    assertTrue(result(Operation.ROLLOUT.workflowId(KEY, 2)).startsWith("converged"));
    assertEquals(List.of("~web-2@b", "~web-1@b", "~web-0@b"), world.log);
    try (TestWorkflowEnvironment replay = TestWorkflowEnvironment.newInstance(ReplayTest.withOrdinalDataConverter())) {
      WorkflowReplayer.replayWorkflowExecution(client.fetchHistory(Operation.ROLLOUT.workflowId(KEY, 2)), replay,
          StatefulSetControllerWorkflowImpl.class, OperationWorkflowImpl.class);
    }
  }

  @Test
  void aFailingHookIsRetriedByItsPolicyBeforeThePodIsCreated() {
    world.hooks = HOOKS;
    world.replicas = 2;
    world.hookFailuresLeft.put("web-1", 2);
    startController();
    assertTrue(operationResult(1).startsWith("converged"));
    assertEquals(List.of("+web-0@a", "hook:PreCreate:web-1", "hook:PreCreate:web-1", "hook:PreCreate:web-1", "+web-1@a"),
        world.log);
    assertEquals(null, world.held);
  }

  @Test
  void aHookThatStopsAnsweringTimesOutOnItsHeartbeatAndIsRetried() {
    // Real time: the test service does not skip time while an activity runs (HOOK_HEARTBEAT, 30 s).
    world.hooks = HOOKS;
    world.replicas = 2;
    world.hookHangsLeft.put("web-1", 1);
    startController();
    try {
      assertTrue(operationResult(1).startsWith("converged"));
    } finally {
      world.hangingReleased = true;
    }
    assertEquals(List.of("+web-0@a", "hang:web-1", "hook:PreCreate:web-1", "+web-1@a"), world.log);
    assertEquals(null, world.held);
  }

  @Test
  void aHookThatFailsForGoodHoldsTheScaleUntilTheSetIsResumed() {
    world.hooks = HOOKS;
    world.replicas = 2;
    world.hookFailuresLeft.put("web-1", 3);
    startController();
    for (int i = 0; i < 200 && world.held == null; i++) {
      env.sleep(Duration.ofSeconds(1));
    }
    assertEquals("PreCreate hook of web-1 failed", world.held);
    env.sleep(Duration.ofMinutes(5)); // held: nothing more happens
    assertEquals(List.of("+web-0@a", "hook:PreCreate:web-1", "hook:PreCreate:web-1", "hook:PreCreate:web-1",
        "held:web-1"), world.log);
    world.held = null; // kubectl ordinal resume
    world.generation++;
    signalSpecChanged();
    assertTrue(operationResult(1).startsWith("converged"));
    assertEquals(List.of("hook:PreCreate:web-1", "+web-1@a"), world.log.subList(5, world.log.size()));
  }

  @Test
  void aLargeSetsObservationsAreStoredCompressedAndReplay() throws Exception {
    world.replicas = 300;
    startController();
    String outcome = operationResult(1);
    assertTrue(outcome.startsWith("converged"), outcome);

    var history = client.fetchHistory(Operation.SCALE.workflowId(KEY, 1));
    long compressed = history.getEvents().stream()
        .filter(e -> e.hasMarkerRecordedEventAttributes())
        .flatMap(e -> e.getMarkerRecordedEventAttributes().getDetailsMap().values().stream())
        .flatMap(payloads -> payloads.getPayloadsList().stream())
        .filter(p -> p.getMetadataOrDefault("encoding", ByteString.EMPTY).toStringUtf8().equals("binary/zlib"))
        .count();
    assertTrue(compressed > 0, "no observation of 300 pods was compressed");
    try (TestWorkflowEnvironment replay = TestWorkflowEnvironment.newInstance(ReplayTest.withOrdinalDataConverter())) {
      WorkflowReplayer.replayWorkflowExecution(history, replay,
          StatefulSetControllerWorkflowImpl.class, OperationWorkflowImpl.class);
    }
  }

  @Test
  void aDatabaseOutageDuringObservationIsRetriedNotFatal() {
    // Regression (found by fault injection): local activities were not retried, so the first
    // failed observation during a PostgreSQL restart failed the controller workflow.
    world.replicas = 2;
    world.failingObservations = 3;
    startController();
    String outcome = operationResult(1);
    assertTrue(outcome.startsWith("converged"), outcome);
    assertEquals(0, world.failingObservations);
    var controller = client.newUntypedWorkflowStub(KEY.controllerWorkflowId()).describe();
    assertEquals(WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING, controller.getStatus());
  }

  @Test
  void rolloutPastItsProgressDeadlineIsMarkedFailedAndRolledBackByItself() {
    world.replicas = 3;
    startController();
    operationResult(1);
    world.log.clear();
    world.broken.add("b");
    world.newSpec("b", new RolloutControl(false, 60, true, false));
    signalSpecChanged();

    String rollout = result(Operation.ROLLOUT.workflowId(KEY, 2));
    assertEquals("superseded: the update revision is now a", rollout);
    String rollback = result(Operation.ROLLBACK.workflowId(KEY, 3));
    assertTrue(rollback.startsWith("converged"), rollback);
    // web-2 was replaced by a broken pod, which the rollback replaced in turn, with nobody deleting it.
    assertEquals(List.of("-web-2", "+web-2@b", "-web-2", "+web-2@a"), world.log);
    assertEquals(List.of("True:RolloutProgressing", "False:ProgressDeadlineExceeded", "True:RolloutProgressing",
        "True:RolloutComplete"), world.conditions);
    long stuckFor = world.rolledBackAt - world.brokenCreatedAt;
    // The clock starts when the rollout does, a moment before the broken pod is created; a durable
    // timer, not the 15 s safety poll, ends it.
    assertTrue(stuckFor >= 59_000 && stuckFor < 61_000, "rolled back " + stuckFor + " ms after the broken pod was created");
    assertEquals("a", world.currentRevision);
  }

  @Test
  void failedRolloutWithoutAutoRollbackWaitsAndRecoversWhenPodsBecomeReady() {
    world.replicas = 2;
    startController();
    operationResult(1);
    world.broken.add("b");
    world.newSpec("b", new RolloutControl(false, 30, false, false));
    signalSpecChanged();
    String id = Operation.ROLLOUT.workflowId(KEY, 2);
    awaitCondition("False:ProgressDeadlineExceeded");
    assertTrue(world.rollbacks.isEmpty());
    world.broken.clear(); // the broken pod heals (say a dependency came back)
    world.makeReady(1);
    String outcome = result(id);
    assertTrue(outcome.startsWith("converged"), outcome);
    assertEquals("True:RolloutComplete", world.conditions.getLast());
    assertEquals("b", world.currentRevision);
  }

  /**
   * A set whose first pod never becomes Ready never converges: its scale goes on through every spec
   * change. The controller still continues as new on its budget, handing the running scale over to its
   * next run, and the scale it hands over goes on with the newest spec. Changes come in bursts, the set
   * observed after each: a run cannot end while signals keep arriving faster than it takes them (the
   * server refuses to end it while new signals wait, and each next attempt replays the whole run).
   */
  @Test
  void aControllerWhoseSetNeverConvergesContinuesAsNewWithinItsBudgetAndActsOnTheLastChange() throws Exception {
    world.broken.add("a"); // web-0 is created and never becomes Ready
    world.replicas = 1;
    startController();
    world.awaitObservationAfter(0);
    int changes = 3_003; // the last asks for 1 + 3003 % 5 = 4 replicas
    int burst = 10;
    for (int change = 1; change <= changes; change++) {
      int seen = world.observations.get();
      signalSpecChanged(world.scaleTo(1 + change % 5));
      if (change % burst == 0) {
        world.awaitObservationAfter(seen);
      }
    }
    world.broken.clear();
    world.makeReady(0);

    String outcome = operationResult(1);
    assertEquals("converged at generation " + world.generation + ": 4 replicas", outcome);
    assertEquals(Set.of(0, 1, 2, 3), world.pods.keySet());
    List<WorkflowExecutionHistory> controllerRuns = everyRun(KEY.controllerWorkflowId());
    List<Integer> controllerEvents = controllerRuns.stream().map(run -> run.getEvents().size()).toList();
    // Each controller run started the same scale again, under its id, and each of its runs kept to its own budget.
    List<String> operations = controllerRuns.stream().flatMap(run -> run.getEvents().stream())
        .filter(HistoryEvent::hasChildWorkflowExecutionStartedEventAttributes)
        .map(event -> event.getChildWorkflowExecutionStartedEventAttributes().getWorkflowExecution().getWorkflowId())
        .toList();
    List<WorkflowExecutionHistory> operationRuns = controllerRuns.stream().flatMap(run -> run.getEvents().stream())
        .filter(HistoryEvent::hasChildWorkflowExecutionStartedEventAttributes)
        .flatMap(event -> runsFrom(event.getChildWorkflowExecutionStartedEventAttributes().getWorkflowExecution()).stream())
        .toList();
    List<Integer> operationEvents = operationRuns.stream().map(run -> run.getEvents().size()).toList();
    System.out.printf("%d changes: controller runs of %s events (newest first), scale runs of %s events%n",
        changes, controllerEvents, operationEvents);
    assertTrue(controllerRuns.size() > 1, "never continued as new: " + controllerEvents);
    for (int events : controllerEvents) {
      assertTrue(events <= StatefulSetControllerWorkflowImpl.MAX_HISTORY_EVENTS, "a run of " + events + " events: "
          + controllerEvents);
    }
    assertEquals(controllerRuns.size(), operations.size());
    assertEquals(Set.of(Operation.SCALE.workflowId(KEY, 1)), Set.copyOf(operations));
    for (int events : operationEvents) {
      assertTrue(events <= OperationWorkflowImpl.MAX_HISTORY_EVENTS, "a scale run of " + events + " events");
    }
    // A worker that crashed anywhere in them replays every run, hand-overs included.
    try (TestWorkflowEnvironment replay = TestWorkflowEnvironment.newInstance(ReplayTest.withOrdinalDataConverter())) {
      Worker replayer = replay.newWorker(StatefulSetControllerWorkflow.TASK_QUEUE);
      replayer.registerWorkflowImplementationTypes(StatefulSetControllerWorkflowImpl.class, OperationWorkflowImpl.class);
      WorkflowReplayer.replayWorkflowExecutions(Stream.concat(controllerRuns.stream(), operationRuns.stream()).toList(),
          true, replayer);
    }
  }

  /**
   * A pod change the incremental readings never return (as if written without a new resourceVersion)
   * holds the scale only until the complete reading due a minute after the last one.
   */
  @Test
  void aChangeTheIncrementalReadingsMissIsSeenByThePeriodicCompleteReading() {
    world.incrementalReadings = true;
    world.broken.add("a");
    world.replicas = 2;
    startController();
    world.awaitPod(0); // made at revision a, which is broken: not Ready
    int seen = world.observations.get();
    world.notifyController(KEY, 0);
    world.awaitObservationAfter(seen); // the scale knows web-0, not Ready
    world.broken.clear();
    long lostAt = env.currentTimeMillis();
    int completeBefore;
    synchronized (world) {
      PodSnapshot ready = new PodSnapshot(0, "web-0", "a", PodSnapshot.RUNNING, true, lostAt, false);
      world.pods.put(0, ready);
      world.lastRead.put(0, ready);
      completeBefore = world.completeReadings.get();
    }
    world.notifyController(KEY, 0); // the signal arrives; the reading it causes misses the change

    assertEquals("converged at generation 1: 2 replicas", operationResult(1));
    long seenAfter = world.createdAt.get(1) - lostAt;
    assertTrue(seenAfter >= OperationWorkflowImpl.SAFETY_POLL.toMillis(),
        "web-1 was made " + seenAfter + " ms after web-0 became Ready: the incremental readings did not miss it");
    assertTrue(seenAfter <= KnownSet.COMPLETE_READING_EVERY.plus(OperationWorkflowImpl.SAFETY_POLL).toMillis(),
        "web-1 was made " + seenAfter + " ms after web-0 became Ready");
    assertTrue(world.completeReadings.get() > completeBefore, "a complete reading saw it");
  }

  /**
   * Pod changes go straight to the running operation (the service signals it, not the controller). One
   * that never converges continues as new on its own budget, and its next run goes on with the set.
   */
  @Test
  void anOperationThatNeverConvergesContinuesAsNewWithinItsBudget() {
    world.broken.add("a");
    world.replicas = 2;
    startController();
    world.awaitObservationAfter(1); // the controller's, then the scale's
    OperationWorkflow scale = client.newWorkflowStub(OperationWorkflow.class, Operation.SCALE.workflowId(KEY, 1));
    for (int wake = 1; wake <= 4_000; wake++) {
      int seen = world.observations.get();
      scale.wake();
      if (wake % 10 == 0) {
        world.awaitObservationAfter(seen);
      }
    }
    world.broken.clear();
    world.makeReady(0);

    assertEquals("converged at generation 1: 2 replicas", operationResult(1));
    List<Integer> runs = everyRun(Operation.SCALE.workflowId(KEY, 1)).stream().map(run -> run.getEvents().size()).toList();
    System.out.printf("4000 pod changes: scale runs of %s events (newest first)%n", runs);
    assertTrue(runs.size() > 1, "never continued as new: " + runs);
    for (int events : runs) {
      assertTrue(events <= OperationWorkflowImpl.MAX_HISTORY_EVENTS, "a run of " + events + " events: " + runs);
    }
  }

  /** Every run of workflow {@code id}, the newest first, following continue-as-new back. */
  private List<WorkflowExecutionHistory> everyRun(String id) {
    List<WorkflowExecutionHistory> runs = new ArrayList<>();
    WorkflowExecutionHistory run = client.fetchHistory(id);
    while (true) {
      runs.add(run);
      String previous = run.getEvents().getFirst().getWorkflowExecutionStartedEventAttributes().getContinuedExecutionRunId();
      if (previous.isEmpty()) {
        return runs;
      }
      run = client.fetchHistory(id, previous);
    }
  }

  /** The run {@code execution} and the runs it continued as new into, the oldest first. */
  private List<WorkflowExecutionHistory> runsFrom(WorkflowExecution execution) {
    List<WorkflowExecutionHistory> runs = new ArrayList<>();
    String runId = execution.getRunId();
    while (!runId.isEmpty()) {
      WorkflowExecutionHistory run = client.fetchHistory(execution.getWorkflowId(), runId);
      runs.add(run);
      HistoryEvent last = run.getEvents().getLast();
      runId = last.hasWorkflowExecutionContinuedAsNewEventAttributes()
          ? last.getWorkflowExecutionContinuedAsNewEventAttributes().getNewExecutionRunId() : "";
    }
    return runs;
  }

  private void awaitCondition(String condition) {
    for (int i = 0; i < 200 && !world.conditions.contains(condition); i++) {
      env.sleep(Duration.ofSeconds(1));
    }
    assertTrue(world.conditions.contains(condition), world.conditions.toString());
  }

  /** Waits for the controller to start operation {@code sequence}, then for its result. */
  private String operationResult(long sequence) {
    return result(Operation.SCALE.workflowId(KEY, sequence));
  }

  /**
   * The result of operation {@code id} once its newest execution has completed (one that handed over
   * is started again under the same id by the controller's next run). It waits in steps of test time,
   * never in a blocking getResult: time skips while a client waits for a result, and a controller idle
   * without a timer would let the clock jump to the test server's ten-year execution timeout.
   */
  private String result(String id) {
    for (int step = 0; step < 2_000; step++) {
      Optional<String> outcome = completedResult(id);
      if (outcome.isPresent() && !outcome.get().equals(OperationWorkflowImpl.HANDED_OVER)) {
        return outcome.get();
      }
      env.sleep(Duration.ofMillis(500));
    }
    throw new AssertionError(id + " did not complete");
  }

  /** The result of the newest run of {@code id}; empty while it runs, has not started, or continued as new. */
  private Optional<String> completedResult(String id) {
    HistoryEvent last;
    try {
      last = client.fetchHistory(id).getLastEvent();
    } catch (WorkflowNotFoundException | StatusRuntimeException notStartedYet) {
      return Optional.empty();
    }
    if (last.hasWorkflowExecutionCompletedEventAttributes()) {
      return Optional.of(client.getOptions().getDataConverter().fromPayloads(0,
          Optional.of(last.getWorkflowExecutionCompletedEventAttributes().getResult()), String.class, String.class));
    }
    assertTrue(!endedWithoutResult(last), id + " ended: " + last);
    return Optional.empty();
  }

  private static boolean endedWithoutResult(HistoryEvent event) {
    return event.hasWorkflowExecutionFailedEventAttributes() || event.hasWorkflowExecutionTerminatedEventAttributes()
        || event.hasWorkflowExecutionTimedOutEventAttributes() || event.hasWorkflowExecutionCanceledEventAttributes();
  }

  private void startController() {
    signalSpecChanged();
  }

  private void signalSpecChanged() {
    signalSpecChanged(1L);
  }

  private void signalSpecChanged(long generation) {
    StatefulSetControllerWorkflow controller = client.newWorkflowStub(StatefulSetControllerWorkflow.class,
        WorkflowOptions.newBuilder().setWorkflowId(KEY.controllerWorkflowId()).setTaskQueue(StatefulSetControllerWorkflow.TASK_QUEUE).build());
    BatchRequest request = client.newSignalWithStartRequest();
    request.add(controller::run, ControllerInput.start(KEY));
    request.add(controller::specChanged, generation, (String) null);
    client.signalWithStart(request);
  }

  /**
   * Pods that become Ready the moment they are created (unless their revision is broken) and vanish
   * the moment they are deleted; the current revision advances as upstream's status does.
   */
  class FakeWorld implements SetActivities, PodActivities, HookActivities {
    volatile int replicas;
    volatile long generation = 1;
    volatile int minReadySeconds;
    volatile String currentRevision = "a";
    volatile String updateRevision = "a";
    volatile RolloutControl control = RolloutControl.DEFAULT;
    volatile long rolledBackAt;
    volatile long brokenCreatedAt;
    volatile int failingObservations;
    final Set<String> broken = ConcurrentHashMap.newKeySet();
    final Map<Integer, PodSnapshot> pods = new TreeMap<>();
    final List<String> log = new ArrayList<>();
    final List<String> conditions = new CopyOnWriteArrayList<>();
    final List<String> rollbacks = new CopyOnWriteArrayList<>();
    final Map<Integer, Long> createdAt = new TreeMap<>();
    volatile int ordinalStart;
    volatile List<Integer> reserved = List.of();
    /** The pod update policy and the revisions a pod can be updated in place from. */
    volatile io.ordinal.model.InPlaceUpdates inPlace = io.ordinal.model.InPlaceUpdates.NONE;
    volatile MemberHooks hooks = MemberHooks.NONE;
    volatile String held;
    final Set<Integer> members = new java.util.TreeSet<>();
    /** Attempts of a pod's hook that fail before one succeeds. */
    final Map<String, Integer> hookFailuresLeft = new ConcurrentHashMap<>();
    /** Hooks whose next attempts hang without a heartbeat (a member that stopped answering, a worker gone). */
    final Map<String, Integer> hookHangsLeft = new ConcurrentHashMap<>();
    volatile boolean hangingReleased;
    /** whenScaled: Delete, as the fake world knows it: a condemned pod's claim must be owned by the pod. */
    volatile boolean claimsGoWithCondemnedPods;
    /** The node the set's pods live on, as observed; null for none. */
    volatile String node;
    /** Each pod and claim step with where it ran: "local" (in the workflow task) or its task queue. */
    final List<String> steps = new CopyOnWriteArrayList<>();

    /** The node this test's worker pretends to be. */
    volatile String workerNode = "node-a";

    /** Records where a step ran; refuses it, as PodActivitiesImpl does, as a local activity of another node. */
    private void step(String name, String node) {
      var info = io.temporal.activity.Activity.getExecutionContext().getInfo();
      if (info.isLocal() && node != null && !node.equals(workerNode)) {
        steps.add(name + ":refused");
        throw io.temporal.failure.ApplicationFailure.newNonRetryableFailure("not " + node, PodActivities.WRONG_NODE);
      }
      steps.add(name + ":" + (info.isLocal() ? "local" : info.getActivityTaskQueue()));
    }

    /** Each existing claim's owner, by ordinal: "none" or "pod". */
    final Map<Integer, String> claimOwners = new TreeMap<>();
    /** podManagementPolicy Parallel. */
    boolean parallel;

    @Override
    public synchronized Observation observe(SetKey key) {
      observations.incrementAndGet();
      if (failingObservations > 0) {
        failingObservations--;
        throw new IllegalStateException("Connection is closed (simulated database outage)");
      }
      boolean allUpdated = pods.size() == replicas && pods.values().stream()
          .allMatch(p -> p.ready() && p.revision().equals(updateRevision));
      if (allUpdated) {
        currentRevision = updateRevision;
      }
      List<PodSnapshot> seen = new ArrayList<>();
      for (PodSnapshot p : pods.values()) {
        boolean condemned = !new io.ordinal.model.OrdinalRange(ordinalStart, replicas, reserved).contains(p.ordinal());
        boolean stale = claimsGoWithCondemnedPods && condemned && !"pod".equals(claimOwners.get(p.ordinal()));
        seen.add(new PodSnapshot(p.ordinal(), p.name(), p.revision(), p.phase(), p.ready(), p.readySinceMillis(),
            p.terminating(), stale));
      }
      List<String> claimsToDelete = claimOwners.entrySet().stream()
          .filter(e -> "pod".equals(e.getValue()) && !pods.containsKey(e.getKey()))
          .map(e -> "data-" + key.podName(e.getKey())).toList();
      java.util.Set<Integer> memberOrdinals = new java.util.TreeSet<>(members);
      memberOrdinals.addAll(pods.keySet());
      return new Observation(new SetSnapshot(key, true, false, generation, replicas, parallel, minReadySeconds, true, 0, 1,
          currentRevision, updateRevision, seen, control, ordinalStart, claimsToDelete, hooks,
          List.copyOf(memberOrdinals), held, List.of(), reserved, 0, inPlace), null, false, false, false, false, node);
    }

    /** The status last published, which the next reading reports as stored. */
    volatile io.ordinal.model.SetStatus published;

    /**
     * Off: a complete reading every time (always a valid answer, whatever the request's version). On:
     * a request with a version gets the pods that differ from what the last reading returned.
     */
    volatile boolean incrementalReadings;
    /** The pods as the last reading returned them; a test that writes here hides a change from the next. */
    final Map<Integer, PodSnapshot> lastRead = new TreeMap<>();
    final AtomicInteger completeReadings = new AtomicInteger();

    @Override
    public synchronized SetChanges observeChanges(ChangesRequest request) {
      Observation seen = observe(request.set());
      boolean complete = !incrementalReadings || request.complete();
      List<PodSnapshot> all = seen.set().pods();
      List<PodSnapshot> changed = all.stream().filter(pod -> !pod.equals(lastRead.get(pod.ordinal()))).toList();
      List<Integer> gone = lastRead.keySet().stream().filter(ordinal -> !pods.containsKey(ordinal)).toList();
      List<Integer> changedSince = null;
      if (complete) {
        completeReadings.incrementAndGet();
        if (incrementalReadings && request.since() > 0) {
          changedSince = Stream.concat(changed.stream().map(PodSnapshot::ordinal), gone.stream()).toList();
        }
      }
      lastRead.clear();
      all.forEach(pod -> lastRead.put(pod.ordinal(), pod));
      return new SetChanges(seen.set().withPods(complete ? all : changed, currentRevision), complete,
          complete ? List.of() : gone, observations.get(), "uid", published, currentRevision, 0, List.of(), 10, false,
          node, true, changedSince);
    }

    @Override
    public String runHook(HookRun run) {
      Integer hangs = hookHangsLeft.get(run.podName());
      if (hangs != null && hangs > 0) {
        hookHangsLeft.put(run.podName(), hangs - 1);
        log.add("hang:" + run.podName());
        while (!hangingReleased) {
          Thread.onSpinWait();
          try {
            Thread.sleep(10);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
          }
        }
        return "too late";
      }
      synchronized (this) {
        log.add("hook:" + run.hook() + ":" + run.podName());
        Integer failures = hookFailuresLeft.get(run.podName());
        if (failures != null && failures > 0) {
          hookFailuresLeft.put(run.podName(), failures - 1);
          throw io.temporal.failure.ApplicationFailure.newFailure("etcdctl: context deadline exceeded", "MemberHookFailed");
        }
        if (MemberHooks.PRE_CREATE.equals(run.hook())) {
          members.add(run.ordinal());
        } else if (MemberHooks.PRE_DELETE.equals(run.hook())) {
          members.remove(run.ordinal());
        }
      }
      return "ok";
    }

    @Override
    public synchronized void holdForFailedHook(HookFailure failure) {
      held = failure.hook() + " hook of " + failure.podName() + " failed";
      log.add("held:" + failure.podName());
    }

    @Override
    public synchronized void updateClaims(ClaimUpdate request) {
      claimOwners.put(request.ordinal(), "pod");
      log.add("owners-" + request.podName());
    }

    @Override
    public synchronized void deleteClaim(ClaimDeletion request) {
      String name = request.claimName();
      claimOwners.remove(Integer.parseInt(name.substring(name.lastIndexOf('-') + 1)));
      log.add("-claim-" + name);
    }

    @Override
    public SetSnapshot refresh(SetKey key) {
      return observe(key).set();
    }

    @Override
    public void ensureRevision(SetKey key) {}

    @Override
    public void pruneHistory(HistoryPruning request) {}

    @Override
    public void publishStatus(StatusPublication request) {
      published = request.status();
    }

    @Override
    public synchronized void createClaims(PodCreation request) {
      step("createClaims", request.node());
      claimOwners.putIfAbsent(request.ordinal(), "none");
    }

    @Override
    public void createPod(PodCreation request) {
      step("createPod", request.node());
      create(request);
    }

    @Override
    public void createPods(PodCreations request) {
      step("createPods", request.node());
      request.pods().forEach(this::create);
    }

    @Override
    public void deletePods(PodDeletions request) {
      step("deletePods", request.node());
      request.pods().forEach(this::delete);
    }

    private void create(PodCreation request) {
      synchronized (this) {
        claimOwners.putIfAbsent(request.ordinal(), "none"); // its claims first, as PodLifecycle.createPod
      }
      SetKey key = request.set();
      int ordinal = request.ordinal();
      String revision = request.revision();
      synchronized (this) {
        long now = env.currentTimeMillis();
        boolean ready = !broken.contains(revision);
        pods.put(ordinal, new PodSnapshot(ordinal, key.podName(ordinal), revision, PodSnapshot.RUNNING, ready,
            ready ? now : 0, false));
        if (hooks.any()) {
          members.add(ordinal);
        }
        log.add("+" + key.podName(ordinal) + "@" + revision);
        createdAt.put(ordinal, now);
        if (!ready) {
          brokenCreatedAt = now;
        }
      }
      notifyController(key, ordinal);
    }

    /** Observations made so far, by the controller and its operations. */
    final AtomicInteger observations = new AtomicInteger();

    /** Waits (real time) until the set is observed after {@code seen} observations. */
    void awaitObservationAfter(int seen) {
      long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
      while (observations.get() <= seen) {
        assertTrue(System.nanoTime() < deadline, "the set was not observed again");
        try {
          Thread.sleep(1);
        } catch (InterruptedException e) {
          throw new IllegalStateException(e);
        }
      }
    }

    /** Waits (real time) until pod {@code ordinal} exists. */
    void awaitPod(int ordinal) {
      long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
      while (true) {
        synchronized (this) {
          if (pods.containsKey(ordinal)) {
            return;
          }
        }
        assertTrue(System.nanoTime() < deadline, "pod " + ordinal + " was not made");
        try {
          Thread.sleep(1);
        } catch (InterruptedException e) {
          throw new IllegalStateException(e);
        }
      }
    }

    /** A new generation asking for {@code count} replicas; returns the generation. */
    synchronized long scaleTo(int count) {
      replicas = count;
      return ++generation;
    }

    /** A new generation with a new template, in one step, as a stored write is. */
    synchronized void newSpec(String revision, RolloutControl rolloutControl) {
      generation++;
      updateRevision = revision;
      control = rolloutControl;
    }

    void makeReady(int ordinal) {
      synchronized (this) {
        PodSnapshot p = pods.get(ordinal);
        pods.put(ordinal, new PodSnapshot(ordinal, p.name(), p.revision(), p.phase(), true, env.currentTimeMillis(), false));
      }
      notifyController(KEY, ordinal);
    }

    @Override
    public void updatePodInPlace(PodInPlaceUpdate request) {
      step("updatePodInPlace", request.node());
      String podName = request.podName();
      int ordinal = Integer.parseInt(podName.substring(podName.lastIndexOf('-') + 1));
      synchronized (this) {
        PodSnapshot pod = pods.get(ordinal);
        if (pod == null || pod.terminating() || pod.revision().equals(request.revision())) {
          return; // idempotent, as the real one
        }
        // Its containers restarted at the revision: Ready at once as a created pod, unless the revision is broken.
        boolean ready = !broken.contains(request.revision());
        pods.put(ordinal, new PodSnapshot(ordinal, podName, request.revision(), PodSnapshot.RUNNING, ready,
            ready ? env.currentTimeMillis() : 0, false));
        log.add("~" + podName + "@" + request.revision());
      }
      notifyController(request.set(), ordinal);
    }

    @Override
    public void deletePod(PodDeletion request) {
      step("deletePod", request.node());
      delete(request);
    }

    private void delete(PodDeletion request) {
      String podName = request.podName();
      int ordinal = Integer.parseInt(podName.substring(podName.lastIndexOf('-') + 1));
      synchronized (this) {
        // Idempotent, as the real one: a local activity re-run by a retried workflow task finds nothing.
        if (pods.remove(ordinal) == null) {
          return;
        }
        log.add("-" + podName);
      }
      notifyController(request.set(), ordinal);
    }

    @Override
    public void setProgressing(ProgressingCondition condition) {
      conditions.add((condition.progressing() ? "True:" : "False:") + condition.reason());
    }

    @Override
    public synchronized boolean rollBack(Rollback request) {
      if (!updateRevision.equals(request.failedRevision())) {
        return false;
      }
      rollbacks.add(request.failedRevision() + "->" + request.toRevision());
      updateRevision = request.toRevision();
      generation++;
      control = new RolloutControl(control.paused(), control.progressDeadlineSeconds(), control.autoRollback(), true);
      rolledBackAt = env.currentTimeMillis();
      return true;
    }

    @Override
    public Boolean finishDeletion(SetKey key) {
      return true;
    }

    @Override
    public void claimOperation(OperationClaim claim) {}

    private void notifyController(SetKey key, int ordinal) {
      client.newWorkflowStub(StatefulSetControllerWorkflow.class, key.controllerWorkflowId()).podChanged(key.podName(ordinal));
    }
  }
}
