package io.ordinal.workflow;

import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

public class TemporalProbeWorkflowImpl implements TemporalProbeWorkflow {
  private boolean pinged;

  @Override
  public List<Long> run(int timers, long timerMillis) {
    Workflow.await(() -> pinged);
    List<Long> lateness = new ArrayList<>();
    for (int i = 0; i < timers; i++) {
      long before = Workflow.currentTimeMillis();
      Workflow.sleep(Duration.ofMillis(timerMillis));
      // The time of the workflow task that saw the timer fire: its lateness plus one dispatch.
      lateness.add(Workflow.currentTimeMillis() - before - timerMillis);
    }
    return lateness;
  }

  @Override
  public void ping() {
    pinged = true;
  }
}
