package io.ordinal.store;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.PodIP;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.ordinal.kube.LabelSelectors;
import io.ordinal.model.PodSnapshot;
import jakarta.inject.Singleton;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.UnaryOperator;

/** Pods and PVCs in PostgreSQL, and their API objects. */
@Singleton
public class PodStore {
  private final Repositories.Pods pods;
  private final Repositories.Pvcs pvcs;

  public PodStore(Repositories.Pods pods, Repositories.Pvcs pvcs) {
    this.pods = pods;
    this.pvcs = pvcs;
  }

  public Optional<PodRow> find(String namespace, String name) {
    return pods.findById(StatefulSetStore.id(namespace, name));
  }

  /** Whether a pod of that name exists, alive or terminating. */
  public boolean exists(String namespace, String name) {
    return pods.existsById(StatefulSetStore.id(namespace, name));
  }

  public void insert(PodRow row) {
    pods.save(row);
  }

  /** Sets the deletion timestamp of that incarnation ({@code uid}) of the pod; false when it is gone or already set. */
  public boolean markTerminating(PodRow row, Instant at) {
    return pods.markTerminating(row.id(), row.uid(), at) > 0;
  }

  /**
   * Stores that incarnation of the pod ({@code row}'s uid) updated in place from {@code row}'s
   * revision to {@code revision}, unready: {@code change} applied to the pod as stored now (a label
   * written meanwhile through the API is kept). False when it is gone, terminating or no longer at
   * that revision.
   */
  public boolean updateInPlace(PodRow row, String revision, UnaryOperator<Pod> change) {
    for (int attempt = 0; attempt < 5; attempt++) {
      Optional<PodRow> now = pods.findById(row.id()).filter(found -> found.uid().equals(row.uid())
          && found.revision().equals(row.revision()) && !found.terminating());
      if (now.isEmpty()) {
        return false;
      }
      Pod updated = change.apply(KubeJson.read(now.get().object(), Pod.class));
      if (pods.updateInPlace(row.id(), row.uid(), row.revision(), now.get().resourceVersion(), revision,
          KubeJson.write(updated)) > 0) {
        return true;
      }
    }
    throw new IllegalStateException("pod " + row.name() + " kept changing while it was updated in place");
  }

  /**
   * Sets an annotation on that incarnation ({@code uid}) of the pod, on the object as stored now: call
   * it in the transaction that changed the pod's row before, whose lock keeps other writers out.
   */
  public void annotate(PodRow row, String key, String value) {
    Optional<PodRow> stored = pods.findById(row.id()).filter(found -> found.uid().equals(row.uid()));
    if (stored.isEmpty()) {
      return;
    }
    Pod pod = KubeJson.read(stored.get().object(), Pod.class);
    Map<String, String> annotations = new LinkedHashMap<>(
        pod.getMetadata().getAnnotations() == null ? Map.of() : pod.getMetadata().getAnnotations());
    annotations.put(key, value);
    pod.getMetadata().setAnnotations(annotations);
    pods.updateObject(row.id(), row.uid(), KubeJson.write(pod));
  }

  /**
   * Leaves a deleted set's pods running without an owner (deletion with propagationPolicy Orphan).
   * They keep the set's name, so a set created again under it takes them back, as upstream adopts.
   */
  public void release(String namespace, String setName, String setUid) {
    for (PodRow listed : ofSet(namespace, setName)) {
      // Retried on a racing write (the driver's status, a user's label): a pod left naming a removed
      // set as its controller could never be adopted.
      for (Optional<PodRow> row = Optional.of(listed); row.isPresent(); row = pods.findById(listed.id())) {
        List<OwnerReference> references = KubeJson.read(row.get().object(), MetadataOnly.class).metadata().getOwnerReferences();
        if (references == null || references.stream().noneMatch(r -> setUid.equals(r.getUid()))
            || writeOwners(row.get(), references.stream().filter(r -> !setUid.equals(r.getUid())).toList())) {
          break;
        }
      }
    }
  }

  /** A stored object read only as far as its metadata (the spec is skipped, not bound). */
  @JsonIgnoreProperties(ignoreUnknown = true)
  private record MetadataOnly(ObjectMeta metadata) {}

  /** The pods a set controls, and the ordinals whose pod name another owner holds. */
  public record Claimed(List<PodRow> owned, List<Integer> foreignOrdinals) {}

  /**
   * Upstream's {@code ClaimPods} over the pods named as a set's ({@code isMemberOf}), for the set that
   * {@code owner} references: an orphan whose labels match the selector is adopted (a set of the same
   * name deleted with propagationPolicy Orphan left it, or a user removed its owner), unless it is
   * terminating; an owned pod whose labels stopped matching is released (its reference removed, it
   * keeps running); a pod another controller owns is left alone. A set being deleted neither adopts
   * nor releases.
   */
  public Claimed claim(List<PodRow> rows, OwnerReference owner, LabelSelector selector, boolean deleting) {
    List<PodRow> owned = new ArrayList<>();
    List<Integer> foreign = new ArrayList<>();
    for (PodRow row : rows) {
      ObjectMeta meta = KubeJson.read(row.object(), MetadataOnly.class).metadata();
      List<OwnerReference> references = new ArrayList<>(Objects.requireNonNullElse(meta.getOwnerReferences(), List.of()));
      OwnerReference controller = controllerOf(references).orElse(null);
      boolean matches = LabelSelectors.matches(selector, Objects.requireNonNullElse(meta.getLabels(), Map.of()));
      boolean ours = controller != null && owner.getUid().equals(controller.getUid());
      if (ours && (matches || deleting)) {
        owned.add(row);
        continue;
      }
      if (ours) {
        references.remove(controller);
        writeOwners(row, references);
      } else if (controller == null && matches && !deleting && !row.terminating()) {
        references.add(owner);
        if (writeOwners(row, references)) {
          owned.add(row);
          continue;
        }
      }
      foreign.add(row.ordinal());
    }
    return new Claimed(owned, foreign);
  }

  /**
   * Writes what the API lets change on a pod (labels, annotations, ownerReferences) if it is still at
   * {@code expectedVersion}; false when it changed in between.
   */
  public boolean updateMetadata(PodRow row, ObjectMeta changed, long expectedVersion) {
    Pod stored = KubeJson.read(row.object(), Pod.class);
    copyWritableMetadata(changed, stored.getMetadata());
    return pods.updateObjectIfVersion(row.id(), expectedVersion, KubeJson.write(stored)) > 0;
  }

  /** What the API lets change on a pod: its labels, annotations and ownerReferences, and who set them (managedFields). */
  public static void copyWritableMetadata(ObjectMeta from, ObjectMeta to) {
    to.setLabels(from.getLabels());
    to.setAnnotations(from.getAnnotations());
    to.setOwnerReferences(from.getOwnerReferences());
    to.setManagedFields(from.getManagedFields());
  }

  /**
   * Writes a pod's ownerReferences (none: the field goes) if it is still as read; false when it changed
   * since (a user's write, which wakes the set to claim it again) or is gone.
   */
  private boolean writeOwners(PodRow row, List<OwnerReference> references) {
    Pod pod = KubeJson.read(row.object(), Pod.class);
    pod.getMetadata().setOwnerReferences(references.isEmpty() ? null : references);
    return pods.updateObjectIfVersion(row.id(), row.resourceVersion(), KubeJson.write(pod)) > 0;
  }

  /** Whether the pod's controller (its ownerReference with controller: true) is the owner with {@code uid}. */
  public static boolean controlledBy(PodRow row, String uid) {
    return controllerOf(KubeJson.read(row.object(), MetadataOnly.class).metadata().getOwnerReferences())
        .filter(controller -> uid.equals(controller.getUid())).isPresent();
  }

  /** The reference marked as the controller (metav1.GetControllerOf). */
  public static Optional<OwnerReference> controllerOf(List<OwnerReference> references) {
    return Objects.requireNonNullElse(references, List.<OwnerReference>of()).stream()
        .filter(r -> Boolean.TRUE.equals(r.getController())).findFirst();
  }

  /** The pods of a namespace, by name. */
  public List<PodRow> inNamespace(String namespace) {
    return pods.findByNamespaceOrderByName(namespace);
  }

  public List<PodRow> ofSet(String namespace, String setName) {
    return pods.findByNamespaceAndSetNameOrderByOrdinal(namespace, setName);
  }

  /** The pods of a namespace, or of all namespaces ({@code null}). */
  public List<Pod> list(String namespace) {
    return (namespace == null ? pods.listOrderById() : inNamespace(namespace)).stream().map(PodStore::toObject).toList();
  }

  /** The pods of a namespace (all: {@code null}) that carry at least these labels. */
  public List<Pod> list(String namespace, Map<String, String> requiredLabels) {
    if (requiredLabels.isEmpty()) {
      return list(namespace);
    }
    return pods.findLabelled(namespace, KubeJson.write(requiredLabels)).stream().map(PodStore::toObject).toList();
  }

  public Optional<PvcRow> claimRow(String namespace, String name) {
    return pvcs.findById(StatefulSetStore.id(namespace, name));
  }

  public Optional<PersistentVolumeClaim> findClaim(String namespace, String name) {
    return pvcs.findById(StatefulSetStore.id(namespace, name)).map(PodStore::toObject);
  }

  /** The claims of a namespace, or of all namespaces ({@code null}). */
  public List<PersistentVolumeClaim> listClaims(String namespace) {
    return (namespace == null ? pvcs.listOrderById() : pvcs.findByNamespaceOrderByName(namespace)).stream()
        .map(PodStore::toObject).toList();
  }

  public static PodSnapshot snapshot(PodRow row) {
    return snapshot(row, false);
  }

  /** @param claimsStale its claims' ownerReferences must be brought in line with the retention policy */
  public static PodSnapshot snapshot(PodRow row, boolean claimsStale) {
    return new PodSnapshot(row.ordinal(), row.name(), row.revision(), row.phase(), row.ready(),
        row.readySince() == null ? 0 : row.readySince().toEpochMilli(), row.terminating(), claimsStale);
  }

  /** The pod's labels, from its stored object. */
  public static Map<String, String> labels(PodRow row) {
    Map<String, String> labels = new LinkedHashMap<>();
    try {
      KubeJson.JSON.readTree(row.object()).path("metadata").path("labels").properties()
          .forEach(label -> labels.put(label.getKey(), label.getValue().asText()));
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException("pod " + row.name() + " is stored as invalid JSON", e);
    }
    return labels;
  }

  /** The API object: stored metadata and spec, status from the columns the driver maintains. */
  public static Pod toObject(PodRow row) {
    Pod pod = KubeJson.read(row.object(), Pod.class);
    var meta = pod.getMetadata();
    meta.setUid(row.uid());
    meta.setResourceVersion(Long.toString(row.resourceVersion()));
    meta.setCreationTimestamp(KubeJson.timestamp(row.createdAt()));
    meta.setDeletionTimestamp(KubeJson.timestamp(row.deletionTimestamp()));
    if (row.terminating()) {
      meta.setDeletionGracePeriodSeconds(pod.getSpec().getTerminationGracePeriodSeconds());
    }
    PodStatus status = new PodStatus();
    status.setPhase(row.phase());
    status.setMessage(row.message());
    status.setStartTime(KubeJson.timestamp(row.startedAt()));
    boolean running = PodSnapshot.RUNNING.equals(row.phase());
    String created = KubeJson.timestamp(row.createdAt());
    String started = KubeJson.timestamp(row.startedAt() == null ? row.createdAt() : row.startedAt());
    String readyAt = row.ready() ? KubeJson.timestamp(row.readySince()) : started;
    List<PodCondition> conditions = new ArrayList<>();
    conditions.add(condition("PodScheduled", true, created));
    conditions.add(condition("Initialized", row.startedAt() != null, started));
    conditions.add(condition("ContainersReady", row.ready(), readyAt));
    conditions.add(condition("Ready", row.ready(), readyAt));
    status.setConditions(conditions);
    if (row.podIp() != null) {
      status.setPodIP(row.podIp());
      status.setPodIPs(List.of(new PodIP(row.podIp())));
      status.setHostIP("127.0.0.1");
    }
    if (row.containerStatuses() != null) {
      // Reported by a driver that runs real containers.
      status.setContainerStatuses(List.of(KubeJson.read(row.containerStatuses(), ContainerStatus[].class)));
      pod.setStatus(status);
      return pod;
    }
    List<ContainerStatus> containers = new ArrayList<>();
    for (var c : pod.getSpec().getContainers()) {
      ContainerStatusBuilder cs = new ContainerStatusBuilder()
          .withName(c.getName()).withImage(c.getImage()).withReady(row.ready()).withRestartCount(0)
          .withStarted(running);
      if (running) {
        cs.withNewState().withNewRunning(started).endState();
      } else if (PodSnapshot.FAILED.equals(row.phase())) {
        cs.withNewState().withNewTerminated().withExitCode(1).withReason("Error").endTerminated().endState();
      } else {
        cs.withNewState().withNewWaiting().withReason("ContainerCreating").endWaiting().endState();
      }
      containers.add(cs.build());
    }
    status.setContainerStatuses(containers);
    pod.setStatus(status);
    return pod;
  }

  private static PodCondition condition(String type, boolean value, String since) {
    return new PodConditionBuilder().withType(type).withStatus(value ? "True" : "False")
        .withLastTransitionTime(since).build();
  }

  public static PersistentVolumeClaim toObject(PvcRow row) {
    PersistentVolumeClaim claim = KubeJson.read(row.object(), PersistentVolumeClaim.class);
    claim.setApiVersion("v1");
    claim.setKind("PersistentVolumeClaim");
    claim.getMetadata().setUid(row.uid());
    claim.getMetadata().setResourceVersion(Long.toString(row.resourceVersion()));
    claim.getMetadata().setCreationTimestamp(KubeJson.timestamp(row.createdAt()));
    claim.getMetadata().setDeletionTimestamp(KubeJson.timestamp(row.deletionTimestamp()));
    return claim;
  }

}
