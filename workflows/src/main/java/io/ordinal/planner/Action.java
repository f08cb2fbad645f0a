package io.ordinal.planner;

/** One side effect the planner asks for. Each maps to one idempotent activity. */
public sealed interface Action {

  /** Create the pod for {@code ordinal} (and its PVCs, first) from {@code revision}. */
  record CreatePod(int ordinal, String revision) implements Action {}

  /** Delete the pod {@code podName}; {@code reason} ends up in the event. */
  record DeletePod(int ordinal, String podName, String reason) implements Action {}

  /** The set is being deleted and has no pods left: remove the set itself (PVCs are kept). */
  record FinishDeletion() implements Action {}
}
