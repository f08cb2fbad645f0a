package io.ordinal.api.statefulset;

import io.ordinal.apimachinery.FieldError;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.ordinal.driver.DriverRegistry;
import io.ordinal.kube.Labels;
import io.ordinal.node.ThisNode;
import io.ordinal.store.NodeStore;
import jakarta.inject.Singleton;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Where a set's pods live, for drivers that keep a pod on one node (local, sim): the
 * {@code ordinal.io/node} annotation, set when the set is made and never changed afterwards, so
 * that sharing the work between instances never moves a pod or its volumes. Part of the set's
 * strategy (PrepareForCreate / PrepareForUpdate and their validation).
 */
@Singleton
public class NodePlacement {
  static final String FIELD = "metadata.annotations[" + Labels.NODE_ANNOTATION + "]";

  private final ThisNode node;
  private final NodeStore nodes;
  private final DriverRegistry drivers;

  public NodePlacement(ThisNode node, NodeStore nodes, DriverRegistry drivers) {
    this.node = node;
    this.nodes = nodes;
    this.drivers = drivers;
  }

  /**
   * Places {@code set}, a new set ({@code old} null) or a change of {@code old}: a new set of a
   * node-bound driver goes to the node it names, which must be one of the instances sharing this
   * database, else to this instance's node; a change keeps the node (a PUT or an apply that leaves
   * the annotation out keeps it too) and may not name another. Returns what is wrong; empty when placed.
   */
  public List<FieldError> place(StatefulSet set, StatefulSet old) {
    String wanted = Labels.annotation(set.getMetadata(), Labels.NODE_ANNOTATION);
    if (old != null) {
      String placed = Labels.annotation(old.getMetadata(), Labels.NODE_ANNOTATION);
      if (wanted == null && placed != null) {
        annotate(set, placed);
        return List.of();
      }
      return Objects.equals(wanted, placed) ? List.of() : List.of(FieldError.forbidden(FIELD,
          "field is immutable: a set's pods and volumes stay on the node they were placed on"
              + (placed == null ? "" : " (\"" + placed + "\")")));
    }
    String driver = drivers.nameFor(set);
    if (!drivers.nodeBound(driver)) {
      return wanted == null ? List.of() : List.of(FieldError.forbidden(FIELD, "the " + driver
          + " driver runs pods in a cluster, not on a node of Ordinal's; only sets of the "
          + String.join(", ", drivers.nodeBoundDrivers()) + " driver are placed on a node"));
    }
    if (wanted == null) {
      annotate(set, node.name());
      return List.of();
    }
    Set<String> known = nodes.all().keySet();
    if (!known.contains(wanted)) {
      return List.of(new FieldError("FieldValueNotFound", FIELD, "Not found: \"" + wanted
          + "\": no instance of Ordinal of that node name shares this database; the nodes are: "
          + String.join(", ", known)));
    }
    return List.of();
  }

  private static void annotate(StatefulSet set, String value) {
    Map<String, String> annotations = new LinkedHashMap<>(Labels.annotations(set.getMetadata()));
    annotations.put(Labels.NODE_ANNOTATION, value);
    set.getMetadata().setAnnotations(annotations);
  }
}
