package io.ordinal.store;

import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.PodIP;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.ordinal.model.PodSnapshot;
import jakarta.inject.Singleton;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

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

  /** Sets an annotation on that incarnation ({@code uid}) of the pod. */
  public void annotate(PodRow row, String key, String value) {
    Pod pod = KubeJson.read(row.object(), Pod.class);
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
  public void release(String namespace, String setName) {
    for (PodRow row : ofSet(namespace, setName)) {
      Pod pod = KubeJson.read(row.object(), Pod.class);
      if (pod.getMetadata().getOwnerReferences() != null && !pod.getMetadata().getOwnerReferences().isEmpty()) {
        pod.getMetadata().setOwnerReferences(null);
        pods.updateObject(row.id(), row.uid(), KubeJson.write(pod));
      }
    }
  }

  /**
   * Makes {@code owner} the controller of those of its pods that have no owner: the pods a set of the
   * same name left running when it was deleted with propagationPolicy Orphan, as upstream's
   * controller adopts orphans. Owned pods are not read (their JSON names an owner).
   */
  public void adoptOrphans(List<PodRow> rows, OwnerReference owner) {
    for (PodRow row : rows) {
      if (row.object().contains("\"ownerReferences\"")) {
        continue;
      }
      Pod pod = KubeJson.read(row.object(), Pod.class);
      pod.getMetadata().setOwnerReferences(List.of(owner));
      pods.updateObject(row.id(), row.uid(), KubeJson.write(pod));
    }
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
