package io.ordinal.workflow;

/**
 * What starting an operation as a controller's child takes: its workflow id and its input. An
 * operation handed over to the controller's next run is started again with the same id and its
 * state (a rollout's progress, its first start) in the input.
 */
public record OperationStart(String workflowId, OperationInput input) {}
