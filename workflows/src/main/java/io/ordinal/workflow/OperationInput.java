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
 */
public record OperationInput(SetKey key, Operation operation, long generation, String fromRevision, String toRevision,
    RolloutProgress progress) {

  OperationInput withProgress(RolloutProgress next) {
    return new OperationInput(key, operation, generation, fromRevision, toRevision, next);
  }
}
