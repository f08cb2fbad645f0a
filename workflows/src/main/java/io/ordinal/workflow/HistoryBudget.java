package io.ordinal.workflow;

import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowInfo;

/**
 * When a run should continue as new. Events are bounded by count, but a large set's observations
 * are large too (a 1 000-pod snapshot is about 100 KiB), so size counts as well, as does the
 * server's own suggestion. All three come from the history itself, so the check replays the same.
 */
final class HistoryBudget {
  static final long MAX_BYTES = 8L * 1024 * 1024;

  private HistoryBudget() {}

  static boolean exhausted(int maxEvents) {
    WorkflowInfo info = Workflow.getInfo();
    return info.getHistoryLength() > maxEvents || info.getHistorySize() > MAX_BYTES || info.isContinueAsNewSuggested();
  }
}
