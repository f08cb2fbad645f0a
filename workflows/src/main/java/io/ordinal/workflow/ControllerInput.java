package io.ordinal.workflow;

import io.ordinal.model.SetKey;

/**
 * Input of a controller run; carries the pending work across continue-as-new.
 *
 * @param nextSequence number of the next operation, for readable, unique operation ids
 * @param handledGeneration the newest spec generation an operation has already been run for
 * @param requestedBy the user who wrote the newest spec (null: unknown, or an input recorded before
 *     the field existed)
 * @param handedOver the operation the previous run was running when its history budget ran out,
 *     which this run starts again first; null when none
 */
public record ControllerInput(
    SetKey key, long nextSequence, long handledGeneration, boolean specChanged, boolean podsChanged,
    String requestedBy, OperationStart handedOver) {

  public ControllerInput(SetKey key, long nextSequence, long handledGeneration, boolean specChanged,
      boolean podsChanged, String requestedBy) {
    this(key, nextSequence, handledGeneration, specChanged, podsChanged, requestedBy, null);
  }

  public static ControllerInput start(SetKey key) {
    return new ControllerInput(key, 1, 0, true, false, null);
  }
}
