package io.ordinal.workflow;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import io.ordinal.model.SetKey;
import io.ordinal.model.SetSnapshot;
import io.ordinal.planner.Planner;
import java.util.Arrays;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * The operations a controller runs. Their lower-case names appear in workflow ids, search attributes
 * and workflow inputs (so histories recorded before this type existed still read).
 */
public enum Operation {
  /** A spec change: scale up or down towards spec.replicas. */
  SCALE,
  /** A new pod template: pods move to the update revision (RollingUpdate). */
  ROLLOUT,
  /** A rollout back to an older revision: an undo, an automatic rollback or a reverted template. */
  ROLLBACK,
  /** No spec change, but pods need fixing: a deleted or failed pod is recreated. */
  REPAIR,
  /** The set was deleted: its pods go, highest ordinal first. */
  DELETE;

  @JsonValue
  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  @JsonCreator
  public static Operation ofWireName(String name) {
    return Arrays.stream(values()).filter(op -> op.wireName().equals(name)).findFirst()
        .orElseThrow(() -> new IllegalArgumentException("no operation " + name));
  }

  public boolean isRollout() {
    return this == ROLLOUT || this == ROLLBACK;
  }

  /** Readable id of one operation run by a set's controller, e.g. {@code statefulset/default/web/scale-3}. */
  public String workflowId(SetKey key, long sequence) {
    return key.controllerWorkflowId() + "/" + wireName() + "-" + sequence;
  }

  /** The operation named in an id made by {@link #workflowId}; empty for any other id. */
  public static Optional<Operation> ofWorkflowId(String workflowId) {
    String last = workflowId.substring(workflowId.lastIndexOf('/') + 1);
    int dash = last.lastIndexOf('-');
    String name = dash < 0 ? last : last.substring(0, dash);
    return Arrays.stream(values()).filter(op -> op.wireName().equals(name)).findFirst();
  }

  /**
   * The operation a set needs. A new generation means the user asked for something: a rollout when
   * pods must change revision, else a scale. The same generation means pods drifted: a repair.
   */
  public static Operation choose(SetSnapshot set, long handledGeneration) {
    if (set.deleting()) {
      return DELETE;
    }
    if (set.generation() <= handledGeneration) {
      return REPAIR;
    }
    return updating(set) ? (set.rollout().rollingBack() ? ROLLBACK : ROLLOUT) : SCALE;
  }

  /** Pods must move to another revision. Under OnDelete nothing moves by itself: no rollout. */
  private static boolean updating(SetSnapshot set) {
    return set.rollingUpdate()
        && (!Objects.equals(set.updateRevision(), set.currentRevision()) || Planner.podsOffTarget(set));
  }
}
