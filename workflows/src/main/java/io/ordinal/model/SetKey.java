package io.ordinal.model;

/** Identifies one StatefulSet. Small enough to travel in every workflow payload. */
public record SetKey(String namespace, String name) {

  /** Id of the set's long-lived controller workflow: the single writer for this set. */
  public String controllerWorkflowId() {
    return "statefulset/" + namespace + "/" + name;
  }

  /** Readable id of one operation run by the controller, e.g. {@code statefulset/default/web/scale-3}. */
  public String operationWorkflowId(String operation, long sequence) {
    return controllerWorkflowId() + "/" + operation + "-" + sequence;
  }

  /** The operation named in an id made by {@link #operationWorkflowId}: {@code scale} for {@code .../scale-3}. */
  public static String operationOf(String operationWorkflowId) {
    String last = operationWorkflowId.substring(operationWorkflowId.lastIndexOf('/') + 1);
    int dash = last.lastIndexOf('-');
    return dash < 0 ? last : last.substring(0, dash);
  }

  public String podName(int ordinal) {
    return name + "-" + ordinal;
  }

  @Override
  public String toString() {
    return namespace + "/" + name;
  }
}
