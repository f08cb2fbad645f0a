package io.ordinal.frontdoor;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.apps.ControllerRevision;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micronaut.context.annotation.Requires;
import io.ordinal.cluster.ClusterObjects;
import io.ordinal.cluster.KubernetesDriver;
import io.ordinal.kube.Labels;
import io.ordinal.model.PodSnapshot;
import io.ordinal.store.KubeJson;
import io.ordinal.store.PodRow;
import io.ordinal.store.PodStore;
import io.ordinal.store.PvcRow;
import io.ordinal.store.Repositories;
import io.ordinal.store.RevisionStore;
import io.ordinal.store.StatefulSetStore;
import io.ordinal.workflow.AdoptionPlan;
import jakarta.inject.Singleton;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A running cluster set's pods, claims and ControllerRevisions taken into Ordinal's records as the
 * cluster has them (pods by their uid, revisions by their name and number), and then marked as
 * Ordinal's ({@code ordinal.io/pod-uid}, {@code ordinal.io/claim-uid}) so the kubernetes driver
 * mirrors them instead of making its own: the records first, because the driver deletes a marked pod
 * Ordinal has no record of. Shared by an adoption and by Ordinal taking over an apps/v1 set as the
 * cluster's StatefulSet controller; the set of Ordinal's that is made afterwards claims the records.
 */
@Singleton
@Requires(beans = KubernetesClient.class)
public class RunningPods {
  private final KubernetesClient client;
  private final PodStore podStore;
  private final Repositories.Pods pods;
  private final Repositories.Pvcs claims;
  private final RevisionStore revisions;

  public RunningPods(KubernetesClient client, PodStore podStore, Repositories.Pods pods, Repositories.Pvcs claims,
      RevisionStore revisions) {
    this.client = client;
    this.podStore = podStore;
    this.pods = pods;
    this.claims = claims;
    this.revisions = revisions;
  }

  /** The pods the object {@code uid} controls, as upstream's controller claims them. */
  List<Pod> controlledBy(String namespace, String uid) {
    return client.pods().inNamespace(namespace).list().getItems().stream()
        .filter(pod -> OperationSteps.controlledBy(pod, uid)).toList();
  }

  /** The members of set {@code name} among {@code owned}, lowest ordinal first (a pod of another name is none). */
  static List<AdoptionPlan.Member> members(String name, List<Pod> owned) {
    return owned.stream().filter(pod -> ordinal(pod, name) >= 0)
        .map(pod -> new AdoptionPlan.Member(pod.getMetadata().getName(), ordinal(pod, name), pod.getMetadata().getUid()))
        .sorted(Comparator.comparingInt(AdoptionPlan.Member::ordinal)).toList();
  }

  /**
   * Records each member that still runs as it was found (its claims of {@code claimTemplates} with it),
   * and the revisions the object {@code setUid} controls; what is recorded already is kept. Returns
   * the members that were gone or replaced.
   */
  List<AdoptionPlan.Member> record(String namespace, String setName, String setUid,
      List<PersistentVolumeClaim> claimTemplates, List<AdoptionPlan.Member> members) {
    List<AdoptionPlan.Member> gone = new ArrayList<>();
    for (AdoptionPlan.Member member : members) {
      Pod pod = client.pods().inNamespace(namespace).withName(member.name()).get();
      if (pod == null || !member.uid().equals(pod.getMetadata().getUid())) {
        gone.add(member);
        continue;
      }
      if (!pods.existsById(StatefulSetStore.id(namespace, member.name()))) {
        podStore.insert(podRow(pod, setName, member.ordinal()));
      }
      for (PersistentVolumeClaim template : Objects.requireNonNullElse(claimTemplates, List.<PersistentVolumeClaim>of())) {
        String claimName = template.getMetadata().getName() + "-" + member.name();
        PersistentVolumeClaim claim = client.persistentVolumeClaims().inNamespace(namespace).withName(claimName).get();
        if (claim != null && !claims.existsById(StatefulSetStore.id(namespace, claimName))) {
          claims.save(claimRow(claim, setName, member.ordinal()));
        }
      }
    }
    for (ControllerRevision revision : client.apps().controllerRevisions().inNamespace(namespace).list().getItems()) {
      if (OperationSteps.controlledBy(revision, setUid)) {
        JsonNode template = KubeJson.JSON.valueToTree(revision.getData()).at("/spec/template");
        if (template instanceof ObjectNode object) {
          object.remove("$patch");
          revisions.adopt(namespace, setName, revision.getMetadata().getName(), revision.getRevision(),
              KubeJson.JSON.convertValue(object, PodTemplateSpec.class),
              Labels.annotation(revision.getMetadata(), Labels.CHANGE_CAUSE_ANNOTATION),
              KubeJson.instant(revision.getMetadata().getCreationTimestamp()));
        }
      }
    }
    return gone;
  }

  /**
   * Marks the recorded members' pods and set {@code setName}'s recorded claims as Ordinal's; with an
   * {@code owner}, it becomes each pod's controller (other owners kept). A pod gone since is passed
   * over: Ordinal's controller makes it again, as for any pod lost.
   */
  void mark(String namespace, String setName, List<AdoptionPlan.Member> members, OwnerReference owner) {
    for (AdoptionPlan.Member member : members) {
      Pod pod = client.pods().inNamespace(namespace).withName(member.name()).get();
      if (pod == null || !member.uid().equals(pod.getMetadata().getUid())
          || (Labels.annotation(pod.getMetadata(), ClusterObjects.POD_UID_ANNOTATION) != null
              && (owner == null || OperationSteps.controlledBy(pod, owner.getUid())))) {
        continue;
      }
      // A patch of what changed (edit), not a replace: the pod's status may move meanwhile.
      client.pods().inNamespace(namespace).withName(member.name())
          .edit(p -> marked(p, ClusterObjects.POD_UID_ANNOTATION, member.uid(), owner));
    }
    for (PvcRow row : claims.findByNamespaceAndSetNameOrderByName(namespace, setName)) {
      PersistentVolumeClaim claim = client.persistentVolumeClaims().inNamespace(namespace).withName(row.name()).get();
      if (claim != null && row.uid().equals(claim.getMetadata().getUid())
          && Labels.annotation(claim.getMetadata(), ClusterObjects.CLAIM_UID_ANNOTATION) == null) {
        client.persistentVolumeClaims().inNamespace(namespace).withName(row.name())
            .edit(c -> marked(c, ClusterObjects.CLAIM_UID_ANNOTATION, row.uid(), null));
      }
    }
  }

  /**
   * The reverse, for a set Ordinal no longer runs: the marks go from its pods and claims first (so the
   * kubernetes driver stops taking them for its own), then Ordinal's records of them.
   */
  void forget(String namespace, String setName) {
    List<PodRow> rows = podStore.ofSet(namespace, setName);
    for (PodRow row : rows) {
      Pod pod = client.pods().inNamespace(namespace).withName(row.name()).get();
      if (pod != null && row.uid().equals(Labels.annotation(pod.getMetadata(), ClusterObjects.POD_UID_ANNOTATION))) {
        client.pods().inNamespace(namespace).withName(row.name()).edit(p -> unmarked(p, ClusterObjects.POD_UID_ANNOTATION));
      }
    }
    for (PvcRow row : claims.findByNamespaceAndSetNameOrderByName(namespace, setName)) {
      PersistentVolumeClaim claim = client.persistentVolumeClaims().inNamespace(namespace).withName(row.name()).get();
      if (claim != null && Labels.annotation(claim.getMetadata(), ClusterObjects.CLAIM_UID_ANNOTATION) != null) {
        client.persistentVolumeClaims().inNamespace(namespace).withName(row.name())
            .edit(c -> unmarked(c, ClusterObjects.CLAIM_UID_ANNOTATION));
      }
      claims.deleteByIdAndUid(row.id(), row.uid());
    }
    rows.forEach(row -> pods.deleteByIdAndUid(row.id(), row.uid()));
  }

  static int ordinal(Pod pod, String setName) {
    String name = pod.getMetadata().getName();
    try {
      return name.startsWith(setName + "-") ? Integer.parseInt(name.substring(setName.length() + 1)) : -1;
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  private static Optional<PodCondition> readyCondition(Pod pod) {
    return pod.getStatus() == null || pod.getStatus().getConditions() == null ? Optional.empty()
        : pod.getStatus().getConditions().stream().filter(c -> "Ready".equals(c.getType())).findFirst();
  }

  static boolean ready(Pod pod) {
    return readyCondition(pod).map(c -> "True".equals(c.getStatus())).orElse(false);
  }

  /** Ordinal's record of a running pod: what the cluster has, with no owner (the set claims it). */
  private static PodRow podRow(Pod pod, String setName, int ordinal) {
    Pod object = KubeJson.copy(pod, Pod.class);
    object.setStatus(null);
    stripIdentity(object.getMetadata());
    var status = pod.getStatus() == null ? new PodStatus() : pod.getStatus();
    boolean ready = ready(pod);
    Instant readySince = ready ? readyCondition(pod).map(PodCondition::getLastTransitionTime).map(KubeJson::instant)
        .orElse(Instant.now()) : null;
    String containerStatuses = status.getContainerStatuses() == null || status.getContainerStatuses().isEmpty() ? null
        : KubeJson.write(status.getContainerStatuses());
    // A pod Ordinal made (its set orphaned, now taken again) stays the incarnation its mark names.
    String uid = Objects.requireNonNullElse(Labels.annotation(pod.getMetadata(), ClusterObjects.POD_UID_ANNOTATION),
        pod.getMetadata().getUid());
    return new PodRow(StatefulSetStore.id(pod.getMetadata().getNamespace(), pod.getMetadata().getName()),
        pod.getMetadata().getNamespace(), pod.getMetadata().getName(), setName, ordinal, uid,
        Labels.labels(pod.getMetadata()).get(Labels.REVISION_HASH), KubernetesDriver.NAME, KubeJson.write(object),
        Objects.requireNonNullElse(status.getPhase(), PodSnapshot.PENDING), ready, readySince,
        status.getStartTime() == null ? null : KubeJson.instant(status.getStartTime()), null,
        KubeJson.instant(pod.getMetadata().getCreationTimestamp()), Repositories.VERSION_ASSIGNED_BY_DATABASE,
        status.getMessage(), status.getPodIP(), containerStatuses);
  }

  private static PvcRow claimRow(PersistentVolumeClaim claim, String setName, int ordinal) {
    PersistentVolumeClaim object = KubeJson.copy(claim, PersistentVolumeClaim.class);
    object.setStatus(null);
    stripIdentity(object.getMetadata());
    String uid = Objects.requireNonNullElse(Labels.annotation(claim.getMetadata(), ClusterObjects.CLAIM_UID_ANNOTATION),
        claim.getMetadata().getUid());
    return new PvcRow(StatefulSetStore.id(claim.getMetadata().getNamespace(), claim.getMetadata().getName()),
        claim.getMetadata().getNamespace(), claim.getMetadata().getName(), setName, ordinal, uid,
        KubeJson.write(object), KubeJson.instant(claim.getMetadata().getCreationTimestamp()),
        Repositories.VERSION_ASSIGNED_BY_DATABASE, null);
  }

  /** What the store keeps of its own (identity, versions, owners: the set's claim adds its own). */
  private static void stripIdentity(ObjectMeta meta) {
    meta.setUid(null);
    meta.setResourceVersion(null);
    meta.setCreationTimestamp(null);
    meta.setManagedFields(null);
    meta.setOwnerReferences(null);
    meta.setGeneration(null);
  }

  /** The object marked as Ordinal's record {@code uid}, controlled by {@code owner} (if any; other owners kept). */
  private static <T extends HasMetadata> T marked(T object, String uidAnnotation, String uid, OwnerReference owner) {
    ObjectMeta meta = object.getMetadata();
    Map<String, String> annotations = new LinkedHashMap<>(Objects.requireNonNullElse(meta.getAnnotations(), Map.of()));
    annotations.putIfAbsent(uidAnnotation, uid); // one there already names Ordinal's record of it (see podRow)
    meta.setAnnotations(annotations);
    if (owner != null) {
      List<OwnerReference> owners = new ArrayList<>(Objects.requireNonNullElse(meta.getOwnerReferences(), List.of()));
      owners.removeIf(ref -> Boolean.TRUE.equals(ref.getController()) || owner.getUid().equals(ref.getUid()));
      owners.add(owner);
      meta.setOwnerReferences(owners);
    }
    return object;
  }

  static <T extends HasMetadata> T unmarked(T object, String annotation) {
    Map<String, String> annotations = new LinkedHashMap<>(
        Objects.requireNonNullElse(object.getMetadata().getAnnotations(), Map.of()));
    annotations.remove(annotation);
    object.getMetadata().setAnnotations(annotations.isEmpty() ? null : annotations);
    return object;
  }
}
