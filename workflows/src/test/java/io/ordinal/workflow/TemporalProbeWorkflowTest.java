package io.ordinal.workflow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class TemporalProbeWorkflowTest {
  @Test
  void theProbeWaitsForItsUpdateThenReportsEachTimersLateness() throws Exception {
    try (TestWorkflowEnvironment env = TestWorkflowEnvironment.newInstance()) {
      Worker worker = env.newWorker("probe");
      worker.registerWorkflowImplementationTypes(TemporalProbeWorkflowImpl.class);
      env.start();
      TemporalProbeWorkflow probe = env.getWorkflowClient().newWorkflowStub(TemporalProbeWorkflow.class,
          WorkflowOptions.newBuilder().setTaskQueue("probe").setWorkflowId("ordinal-probe/test").build());
      WorkflowClient.start(probe::run, 3, 100L);
      env.sleep(java.time.Duration.ofMinutes(5));
      WorkflowStub run = WorkflowStub.fromTyped(probe);
      assertTrue(run.describe().getWorkflowExecutionInfo().getStatus().name().endsWith("RUNNING"),
          "no timer before the update");
      probe.ping();
      @SuppressWarnings("unchecked")
      List<Number> lateness = run.getResult(10, TimeUnit.SECONDS, List.class);
      assertEquals(3, lateness.size());
      // The test server fires a timer on time: lateness is the dispatch only, never negative.
      assertTrue(lateness.stream().allMatch(l -> l.longValue() >= 0 && l.longValue() < 1_000), lateness.toString());
    }
  }
}
