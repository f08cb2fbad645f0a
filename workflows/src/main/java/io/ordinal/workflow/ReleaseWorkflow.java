package io.ordinal.workflow;

import io.ordinal.model.SetKey;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;

/**
 * Hands a set Ordinal runs in a cluster back to upstream's StatefulSet controller without restarting
 * a pod: the reverse of {@link AdoptionWorkflow}. A refusal before the apps.ordinal.io object is
 * orphaned changes nothing; after it, the steps resume until upstream's controller has the pods.
 */
@WorkflowInterface
public interface ReleaseWorkflow {
  String OPERATION = "release";

  /** e.g. {@code statefulset/default/web/release}. */
  static String workflowId(SetKey key) {
    return key.controllerWorkflowId() + "/" + OPERATION;
  }

  @WorkflowMethod
  String release(SetKey key);
}
