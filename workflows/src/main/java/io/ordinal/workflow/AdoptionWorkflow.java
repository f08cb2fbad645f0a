package io.ordinal.workflow;

import io.ordinal.model.SetKey;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;

/**
 * Moves a running apps/v1 StatefulSet of a cluster under Ordinal without restarting a pod: upstream's
 * "orphan, then adopt", made durable. A crash before the apps/v1 object is orphaned leaves it as it
 * was; after, the adoption resumes until Ordinal's set controls every pod.
 */
@WorkflowInterface
public interface AdoptionWorkflow {
  /** The operation's name in search attributes and workflow ids. */
  String OPERATION = "adopt";

  /** e.g. {@code statefulset/default/web/adopt}: beside the set's controller in the Web UI. */
  static String workflowId(SetKey key) {
    return key.controllerWorkflowId() + "/" + OPERATION;
  }

  /** Returns what was adopted, in a sentence. */
  @WorkflowMethod
  String adopt(SetKey key);
}
