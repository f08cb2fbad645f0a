package io.ordinal.workflow;

import io.ordinal.model.SetSnapshot;
import io.ordinal.planner.Planner;
import java.util.Objects;

/** Names of the operations a controller runs; they appear in workflow ids and search attributes. */
public final class Operations {
  public static final String CONTROLLER = "controller";
  /** A spec change: scale up or down towards spec.replicas. */
  public static final String SCALE = "scale";
  /** A new pod template: pods move to the update revision (RollingUpdate). */
  public static final String ROLLOUT = "rollout";
  /** A rollout back to an older revision: an undo, an automatic rollback or a reverted template. */
  public static final String ROLLBACK = "rollback";
  /** No spec change, but pods need fixing: a deleted or failed pod is recreated. */
  public static final String REPAIR = "repair";
  /** The set was deleted: its pods go, highest ordinal first. */
  public static final String DELETE = "delete";

  /** Task queue of the Ordinal worker. */
  public static final String TASK_QUEUE = "ordinal";

  private Operations() {}

  /**
   * The operation a set needs. A new generation means the user asked for something: a rollout when
   * pods must change revision, else a scale. The same generation means pods drifted: a repair.
   */
  public static String choose(SetSnapshot set, long handledGeneration) {
    if (set.deleting()) {
      return DELETE;
    }
    if (set.generation() <= handledGeneration) {
      return REPAIR;
    }
    return updating(set) ? (set.rollout().rollingBack() ? ROLLBACK : ROLLOUT) : SCALE;
  }

  public static boolean isRollout(String operation) {
    return ROLLOUT.equals(operation) || ROLLBACK.equals(operation);
  }

  /** Pods must move to another revision. Under OnDelete nothing moves by itself: no rollout. */
  private static boolean updating(SetSnapshot set) {
    return set.rollingUpdate()
        && (!Objects.equals(set.updateRevision(), set.currentRevision()) || Planner.podsOffTarget(set));
  }
}
