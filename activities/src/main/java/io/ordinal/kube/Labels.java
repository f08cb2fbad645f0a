package io.ordinal.kube;

import io.fabric8.kubernetes.api.model.ObjectMeta;
import java.util.Map;

/** Well-known labels and annotations, upstream's names where upstream has one. */
public final class Labels {
  public static final String POD_NAME = "statefulset.kubernetes.io/pod-name";
  public static final String REVISION_HASH = "controller-revision-hash";
  public static final String POD_INDEX = "apps.kubernetes.io/pod-index";

  /** Chooses the driver that runs a set's pods ({@code sim}, later {@code local}, {@code kubernetes}). */
  public static final String DRIVER_ANNOTATION = "ordinal.io/driver";
  /**
   * The node whose instance runs a set's pods, for drivers that keep pods on one node (local, sim):
   * chosen when the set is created (the instance that took the request, unless the set names one)
   * and never changed, so that sharing the work between instances never moves a pod.
   */
  public static final String NODE_ANNOTATION = "ordinal.io/node";
  /** Upstream's annotation on a claim whose volume was provisioned on one node. */
  public static final String SELECTED_NODE_ANNOTATION = "volume.kubernetes.io/selected-node";
  /** The cluster domain of stable network names: {@code <pod>.<service>.<namespace>.svc.<domain>}. */
  public static final String CLUSTER_DOMAIN = "cluster.local";
  /** A membership hook that failed and holds membership changes until the set is resumed. */
  public static final String HELD_HOOK_ANNOTATION = "ordinal.io/held-hook";
  /** Why a pod is being deleted: ScaleDown, Update, Delete or Recreate (upstream's pod termination reason, told to the pod). */
  public static final String TERMINATION_REASON_ANNOTATION = "ordinal.io/termination-reason";

  /** How long a rollout may go without a pod becoming available on its target revision (seconds). */
  public static final String PROGRESS_DEADLINE_ANNOTATION = "ordinal.io/progress-deadline-seconds";
  /** {@code "true"}: a rollout that exceeds its progress deadline reverts to the previous revision. */
  public static final String AUTO_ROLLBACK_ANNOTATION = "ordinal.io/auto-rollback";
  /** Why the template changed; kept with each revision and shown in the rollout history (kubectl's name). */
  public static final String CHANGE_CAUSE_ANNOTATION = "kubernetes.io/change-cause";
  /** Template annotation {@code kubectl rollout restart} sets; a restart here sets the same one. */
  public static final String RESTARTED_AT_ANNOTATION = "kubectl.kubernetes.io/restartedAt";
  /** The OpenKruise field under {@code spec.updateStrategy.rollingUpdate} that pauses a rollout. */
  public static final String PAUSED_FIELD = "paused";

  private Labels() {}

  /** An object's annotations, empty when it has none (or no metadata). */
  public static Map<String, String> annotations(ObjectMeta meta) {
    return meta == null || meta.getAnnotations() == null ? Map.of() : meta.getAnnotations();
  }

  /** One annotation of an object, null when it is not set. */
  public static String annotation(ObjectMeta meta, String key) {
    return annotations(meta).get(key);
  }

  /** An object's labels, empty when it has none (or no metadata). */
  public static Map<String, String> labels(ObjectMeta meta) {
    return meta == null || meta.getLabels() == null ? Map.of() : meta.getLabels();
  }
}
