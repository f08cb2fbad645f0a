package io.ordinal.model;

/** Identifies one StatefulSet. Small enough to travel in every workflow payload. */
public record SetKey(String namespace, String name) {

  /** Id of the set's long-lived controller workflow: the single writer for this set. */
  public String controllerWorkflowId() {
    return "statefulset/" + namespace + "/" + name;
  }

  public String podName(int ordinal) {
    return podName(name, ordinal);
  }

  /** The name of pod {@code ordinal} of set {@code setName}: its stable identity. */
  public static String podName(String setName, int ordinal) {
    return setName + "-" + ordinal;
  }

  @Override
  public String toString() {
    return namespace + "/" + name;
  }
}
