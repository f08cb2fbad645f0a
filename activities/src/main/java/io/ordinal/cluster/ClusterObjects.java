package io.ordinal.cluster;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.apps.ControllerRevision;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.ordinal.kube.Labels;
import io.ordinal.store.ControllerRevisionRow;
import io.ordinal.store.KubeJson;
import io.ordinal.store.RevisionStore;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * How Ordinal's objects appear in a cluster. A set that mirrors a cluster's StatefulSet
 * ({@code apps.ordinal.io/v1}) carries that object's uid and generation as annotations; the pods and
 * claims Ordinal makes for it there are owned by that object (so the cluster's garbage collector
 * agrees with Ordinal) and name the incarnation they mirror.
 */
public final class ClusterObjects {
  public static final String GROUP = "apps.ordinal.io";
  public static final String API_VERSION = GROUP + "/v1";
  public static final String KIND = "StatefulSet";
  /** On a set mirrored from the cluster: the uid of its {@code apps.ordinal.io} object there. */
  public static final String CLUSTER_UID_ANNOTATION = GROUP + "/cluster-uid";
  /** On a set mirrored from the cluster: the generation of the cluster object its spec came from. */
  public static final String CLUSTER_GENERATION_ANNOTATION = GROUP + "/cluster-generation";
  /**
   * On a set mirrored from the cluster: a digest of the cluster object's member overrides when it was
   * mirrored (they change no generation there), so that Ordinal's own change of them (an undo) is told
   * from the user's.
   */
  public static final String CLUSTER_OVERRIDES_ANNOTATION = GROUP + "/cluster-member-overrides";
  /**
   * On a set mirrored from the cluster's own apps/v1 object (Ordinal as the cluster's StatefulSet
   * controller): {@code apps/v1}. Absent: the object is an {@code apps.ordinal.io/v1} one.
   */
  public static final String CLUSTER_API_VERSION_ANNOTATION = GROUP + "/cluster-api-version";
  public static final String BUILTIN_API_VERSION = "apps/v1";
  /** On a pod Ordinal made in the cluster: the uid of the pod (the incarnation) in Ordinal. */
  public static final String POD_UID_ANNOTATION = "ordinal.io/pod-uid";
  /** On a claim Ordinal made in the cluster: the uid of the claim in Ordinal. */
  public static final String CLAIM_UID_ANNOTATION = "ordinal.io/claim-uid";

  private ClusterObjects() {}

  /** The uid of the cluster object {@code set} mirrors, if it mirrors one. */
  public static Optional<String> clusterUid(StatefulSet set) {
    return Optional.ofNullable(Labels.annotation(set.getMetadata(), CLUSTER_UID_ANNOTATION));
  }

  /** The apiVersion of the cluster object {@code set} mirrors (its pods' and claims' owner there). */
  public static String clusterApiVersion(StatefulSet set) {
    return Optional.ofNullable(Labels.annotation(set.getMetadata(), CLUSTER_API_VERSION_ANNOTATION)).orElse(API_VERSION);
  }

  /** Whether {@code set} mirrors an apps/v1 object of the cluster (Ordinal is the cluster's StatefulSet controller). */
  public static boolean mirrorsBuiltin(StatefulSet set) {
    return clusterUid(set).isPresent() && BUILTIN_API_VERSION.equals(clusterApiVersion(set));
  }

  /** A controller reference to the cluster's StatefulSet {@code name} of {@code apiVersion}, as upstream's controllers write them. */
  public static OwnerReference controllerReference(String apiVersion, String name, String uid) {
    return new OwnerReferenceBuilder().withApiVersion(apiVersion).withKind(KIND).withName(name).withUid(uid)
        .withController(true).withBlockOwnerDeletion(true).build();
  }

  /**
   * Ordinal's revision ({@code revision}, the API object of {@code row}) as a ControllerRevision of the
   * cluster in upstream's form: its name, number, annotations, the template's labels and upstream's
   * hash label (not Ordinal's), and its data byte for byte as upstream writes it; controlled by {@code
   * owner}, or by nothing (for a controller to adopt) when it is null.
   */
  public static ControllerRevision revisionForCluster(ControllerRevision revision, ControllerRevisionRow row,
      OwnerReference owner) {
    ObjectMeta from = revision.getMetadata();
    Map<String, String> labels = new LinkedHashMap<>(Labels.labels(from));
    labels.remove(Labels.REVISION_HASH); // Ordinal's; upstream's revisions carry only its hash label
    ControllerRevision copy = new ControllerRevision();
    copy.setApiVersion("apps/v1");
    copy.setKind("ControllerRevision");
    copy.setMetadata(new ObjectMeta());
    copy.getMetadata().setName(from.getName());
    copy.getMetadata().setNamespace(from.getNamespace());
    copy.getMetadata().setLabels(labels);
    copy.getMetadata().setAnnotations(from.getAnnotations());
    copy.getMetadata().setOwnerReferences(owner == null ? null : List.of(owner));
    copy.setRevision(revision.getRevision());
    copy.setData(RevisionStore.clusterData(row));
    return copy;
  }

  /**
   * An object of Ordinal's as it is created in the cluster: without the store's identity and
   * status, annotated with its uid in Ordinal under {@code uidAnnotation}, owned by the set's cluster
   * object where Ordinal's copy is owned by the set (an owner the cluster does not have is dropped).
   */
  public static <T extends HasMetadata> T forCluster(T object, Class<T> type,
      String uidAnnotation, String uid, Optional<StatefulSet> set) {
    T copy = KubeJson.copy(object, type);
    ObjectMeta meta = copy.getMetadata();
    meta.setUid(null);
    meta.setResourceVersion(null);
    meta.setCreationTimestamp(null);
    meta.setDeletionTimestamp(null);
    meta.setDeletionGracePeriodSeconds(null);
    meta.setGeneration(null);
    meta.setManagedFields(null);
    meta.setFinalizers(null);
    Map<String, String> annotations = new LinkedHashMap<>(meta.getAnnotations() == null ? Map.of() : meta.getAnnotations());
    annotations.put(uidAnnotation, uid);
    meta.setAnnotations(annotations);
    List<OwnerReference> owners = new ArrayList<>();
    String setUid = set.map(s -> s.getMetadata().getUid()).orElse(null);
    Optional<String> clusterUid = set.flatMap(ClusterObjects::clusterUid);
    for (OwnerReference ref : meta.getOwnerReferences() == null ? List.<OwnerReference>of() : meta.getOwnerReferences()) {
      if (clusterUid.isPresent() && ref.getUid().equals(setUid)) {
        owners.add(new OwnerReferenceBuilder(ref).withApiVersion(clusterApiVersion(set.get())).withKind(KIND)
            .withUid(clusterUid.get()).build());
      }
    }
    meta.setOwnerReferences(owners.isEmpty() ? null : owners);
    return copy;
  }
}
