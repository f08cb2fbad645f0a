package io.ordinal.workflow;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.temporal.client.WorkflowClientOptions;
import io.temporal.common.WorkflowExecutionHistory;
import io.temporal.testing.TestEnvironmentOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.testing.WorkflowReplayer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Determinism: histories recorded from real runs (src/test/resources/histories, see its README)
 * must replay against the current workflow code. A change that would break running workflows on
 * upgrade fails here. The histories recorded before the named steps ({@link Steps#NAMED_STEPS})
 * stay, in their own folder: runs that started then replay through the old sequence of activities.
 */
class ReplayTest {
  static final Path HISTORIES = Path.of("src", "test", "resources", "histories");
  static final Path BEFORE_NAMED_STEPS = HISTORIES.resolve("before-named-steps");
  /** The scenarios the recorded set must cover (file name prefixes). */
  static final List<String> SCENARIOS = List.of("controller", "scale-up", "scale-down", "rollout", "rollout-paused",
      "rollout-partitioned", "rollback-after-undo", "rollout-auto-rolled-back", "delete");

  static Stream<Path> histories() throws IOException {
    return Stream.concat(histories(HISTORIES), histories(BEFORE_NAMED_STEPS));
  }

  static Stream<Path> histories(Path folder) throws IOException {
    try (Stream<Path> files = Files.list(folder)) {
      return files.filter(f -> f.toString().endsWith(".json")).sorted().toList().stream();
    }
  }

  @ParameterizedTest
  @MethodSource("folders")
  void everyScenarioHasARecordedHistory(Path folder) throws IOException {
    List<String> names = histories(folder).map(p -> p.getFileName().toString()).toList();
    for (String scenario : SCENARIOS) {
      assertTrue(names.contains(scenario + ".json"), "no recorded history for " + scenario + " in " + folder);
    }
  }

  static Stream<Path> folders() {
    return Stream.of(HISTORIES, BEFORE_NAMED_STEPS);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("histories")
  void replaysDeterministically(Path history) throws Exception {
    try (TestWorkflowEnvironment env = TestWorkflowEnvironment.newInstance(withOrdinalDataConverter())) {
      WorkflowReplayer.replayWorkflowExecution(WorkflowExecutionHistory.fromJson(Files.readString(history)), env,
          StatefulSetControllerWorkflowImpl.class, OperationWorkflowImpl.class);
    }
  }

  /** Test environments decode payloads as the service writes them (large ones compressed). */
  static TestEnvironmentOptions withOrdinalDataConverter() {
    return TestEnvironmentOptions.newBuilder().setWorkflowClientOptions(
        WorkflowClientOptions.newBuilder().setDataConverter(LargePayloadCodec.dataConverter()).build()).build();
  }
}
