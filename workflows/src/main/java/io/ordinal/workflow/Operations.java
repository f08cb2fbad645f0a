package io.ordinal.workflow;

/** Names of the operations a controller runs; they appear in workflow ids and search attributes. */
public final class Operations {
  public static final String CONTROLLER = "controller";
  /** A spec change: scale up or down towards spec.replicas. */
  public static final String SCALE = "scale";
  /** A new pod template: pods move to the update revision (RollingUpdate). */
  public static final String ROLLOUT = "rollout";
  /** No spec change, but pods need fixing: a deleted or failed pod is recreated. */
  public static final String REPAIR = "repair";
  /** The set was deleted: its pods go, highest ordinal first. */
  public static final String DELETE = "delete";

  /** Task queue of the Ordinal worker. */
  public static final String TASK_QUEUE = "ordinal";

  private Operations() {}
}
