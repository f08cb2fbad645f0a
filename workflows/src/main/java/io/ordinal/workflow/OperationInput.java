package io.ordinal.workflow;

import io.ordinal.model.SetKey;

/**
 * What an operation was started for; carried across continue-as-new.
 *
 * @param generation the spec generation the controller chose this operation for
 * @param fromRevision the set's current revision when a rollout started (the revision an automatic
 *     rollback returns to)
 * @param toRevision the update revision the operation works towards; a rollout ends when it changes
 * @param progress a rollout's progress-deadline bookkeeping; null until the first observation
 * @param startedAtMillis when the operation's first run started, once it has continued as new or been
 *     handed over (0 before, and in inputs recorded before this field existed): its duration spans all
 *     its runs
 */
public record OperationInput(SetKey key, Operation operation, long generation, String fromRevision, String toRevision,
    RolloutProgress progress, long startedAtMillis) {

  public OperationInput(SetKey key, Operation operation, long generation, String fromRevision, String toRevision,
      RolloutProgress progress) {
    this(key, operation, generation, fromRevision, toRevision, progress, 0);
  }

  OperationInput continuing(RolloutProgress next, long startedAt) {
    return new OperationInput(key, operation, generation, fromRevision, toRevision, next, startedAt);
  }
}
