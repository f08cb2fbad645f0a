package io.ordinal.workflow;

import io.ordinal.model.SetKey;

public record OperationInput(SetKey key, String operation) {}
