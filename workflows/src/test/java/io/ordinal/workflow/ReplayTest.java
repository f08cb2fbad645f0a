package io.ordinal.workflow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.temporal.client.WorkflowClientOptions;
import io.temporal.common.converter.DefaultDataConverter;
import io.temporal.common.interceptors.WorkerInterceptorBase;
import io.temporal.common.interceptors.WorkflowInboundCallsInterceptor;
import io.temporal.common.interceptors.WorkflowInboundCallsInterceptorBase;
import io.temporal.common.interceptors.WorkflowOutboundCallsInterceptor;
import io.temporal.common.interceptors.WorkflowOutboundCallsInterceptorBase;
import io.temporal.common.WorkflowExecutionHistory;
import io.temporal.testing.TestEnvironmentOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.testing.WorkflowReplayer;
import io.temporal.worker.WorkerFactoryOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Determinism: histories recorded from real runs (src/test/resources/histories, see its README)
 * must replay against the current workflow code. A change that would break running workflows on
 * upgrade fails here. Histories recorded by earlier versions of the code ({@link Steps#NAMED_STEPS})
 * stay, each version in its own folder: runs that started then replay through the commands they
 * recorded.
 */
class ReplayTest {
  static final Path HISTORIES = Path.of("src", "test", "resources", "histories");
  /**
   * Version 4 of the named steps: each observation an {@code Observe} that read and recorded every pod,
   * and a {@code PublishStatus} after each pod step.
   */
  static final Path FEWER_EVENTS = HISTORIES.resolve("fewer-events");
  /**
   * Version 3 of the named steps: a pod's claims were a {@code CreateClaims} of their own, and each
   * wait a signal ended started and cancelled a timer.
   */
  static final Path CONTINUES_AS_NEW_ON_BUDGET = HISTORIES.resolve("continues-as-new-on-budget");
  /**
   * Version 2 of the named steps: a controller continued as new only once its set had converged, an
   * operation looked at its history budget only after a wait.
   */
  static final Path CANCELLED_WAIT_TIMERS = HISTORIES.resolve("cancelled-wait-timers");
  /** Version 1 of the named steps: the safety-poll timer of a wait a signal ended was left running. */
  static final Path NAMED_STEPS = HISTORIES.resolve("named-steps");
  static final Path BEFORE_NAMED_STEPS = HISTORIES.resolve("before-named-steps");
  /** The scenarios the recorded set must cover (file name prefixes). */
  static final List<String> SCENARIOS = List.of("controller", "scale-up", "scale-down", "rollout", "rollout-paused",
      "rollout-partitioned", "rollback-after-undo", "rollout-auto-rolled-back", "delete");

  static Stream<Path> histories() {
    return folders().flatMap(ReplayTest::histories);
  }

  static Stream<Path> histories(Path folder) {
    try (Stream<Path> files = Files.list(folder)) {
      return files.filter(f -> f.toString().endsWith(".json")).sorted().toList().stream();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @ParameterizedTest
  @MethodSource("folders")
  void everyScenarioHasARecordedHistory(Path folder) {
    List<String> names = histories(folder).map(p -> p.getFileName().toString()).toList();
    for (String scenario : SCENARIOS) {
      assertTrue(names.contains(scenario + ".json"), "no recorded history for " + scenario + " in " + folder);
    }
  }

  static Stream<Path> folders() {
    return Stream.of(HISTORIES, FEWER_EVENTS, CONTINUES_AS_NEW_ON_BUDGET, CANCELLED_WAIT_TIMERS, NAMED_STEPS, BEFORE_NAMED_STEPS);
  }

  /**
   * Replays the history, and checks that the code asked for the same local activities, in the same
   * order, as the history recorded: the SDK matches local-activity markers by sequence number only,
   * so a reordering of two local activities would otherwise replay unnoticed.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("histories")
  void replaysDeterministically(Path history) throws Exception {
    WorkflowExecutionHistory recorded = WorkflowExecutionHistory.fromJson(Files.readString(history));
    LocalActivityRecorder calls = new LocalActivityRecorder();
    TestEnvironmentOptions options = TestEnvironmentOptions.newBuilder(withOrdinalDataConverter())
        .setWorkerFactoryOptions(WorkerFactoryOptions.newBuilder().setWorkerInterceptors(calls).build()).build();
    try (TestWorkflowEnvironment env = TestWorkflowEnvironment.newInstance(options)) {
      WorkflowReplayer.replayWorkflowExecution(recorded, env, StatefulSetControllerWorkflowImpl.class,
          OperationWorkflowImpl.class);
    }
    assertEquals(localActivities(recorded), calls.names);
  }

  /** The types of the local activities a history recorded, in order. */
  static List<String> localActivities(WorkflowExecutionHistory history) {
    return history.getEvents().stream()
        .filter(e -> e.hasMarkerRecordedEventAttributes()
            && "LocalActivity".equals(e.getMarkerRecordedEventAttributes().getMarkerName()))
        .map(e -> e.getMarkerRecordedEventAttributes().getDetailsOrThrow("type").getPayloads(0))
        .map(type -> DefaultDataConverter.STANDARD_INSTANCE.fromPayload(type, String.class, String.class))
        .toList();
  }

  /** Records the local activities workflow code asks for. */
  static final class LocalActivityRecorder extends WorkerInterceptorBase {
    final List<String> names = new CopyOnWriteArrayList<>();

    @Override
    public WorkflowInboundCallsInterceptor interceptWorkflow(WorkflowInboundCallsInterceptor next) {
      return new WorkflowInboundCallsInterceptorBase(next) {
        @Override
        public void init(WorkflowOutboundCallsInterceptor outbound) {
          super.init(new WorkflowOutboundCallsInterceptorBase(outbound) {
            @Override
            public <R> LocalActivityOutput<R> executeLocalActivity(LocalActivityInput<R> input) {
              names.add(input.getActivityName());
              return super.executeLocalActivity(input);
            }
          });
        }
      };
    }
  }

  /** Test environments decode payloads as the service writes them (large ones compressed). */
  static TestEnvironmentOptions withOrdinalDataConverter() {
    return TestEnvironmentOptions.newBuilder().setWorkflowClientOptions(
        WorkflowClientOptions.newBuilder().setDataConverter(LargePayloadCodec.dataConverter()).build()).build();
  }
}
