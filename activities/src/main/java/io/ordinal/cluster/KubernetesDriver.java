package io.ordinal.cluster;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.micronaut.context.annotation.Requires;
import io.micronaut.context.annotation.Value;
import io.ordinal.driver.DriverPod;
import io.ordinal.driver.ExecRefusedException;
import io.ordinal.driver.PodDriver;
import io.ordinal.driver.PodEvents;
import io.ordinal.kube.Labels;
import io.ordinal.pods.PodUpdatePolicy;
import io.ordinal.model.InPlaceUpdates;
import io.ordinal.model.PodSnapshot;
import io.ordinal.store.KubeJson;
import io.ordinal.store.PodRow;
import io.ordinal.store.PvcRow;
import io.ordinal.store.Repositories;
import io.ordinal.store.StatefulSetStore;
import jakarta.annotation.PreDestroy;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Pods and claims as real objects in a Kubernetes cluster (the kubelet, scheduler and volume
 * provisioner there run them). Ordinal's store stays the record of what should exist: each pod row
 * is one incarnation, mirrored to a cluster pod of the same name that carries the row's uid in
 * {@link ClusterObjects#POD_UID_ANNOTATION}. One reconcile per pod name brings the cluster to the row
 * (create if absent, delete when the row is terminating) and the row to the cluster (phase,
 * readiness, IP, container statuses; the row goes when its pod is gone). An informer (a watch)
 * queues that reconcile on every change of a pod, so a pod turning Ready reaches its set's workflow
 * without polling. The cluster allows one pod per name, so no identity can ever run twice.
 */
@Singleton
@Requires(beans = KubernetesClient.class)
public class KubernetesDriver implements PodDriver {
  public static final String NAME = "kubernetes";
  private static final Logger log = LoggerFactory.getLogger(KubernetesDriver.class);
  /** The informer lists again this often, to heal anything a watch missed. */
  private static final long RESYNC_MS = TimeUnit.MINUTES.toMillis(10);

  private final KubernetesClient client;
  private final Repositories.Pods pods;
  private final Repositories.Pvcs pvcs;
  private final StatefulSetStore sets;
  private final PodEvents events;
  private final WorkQueue queue;
  private volatile SharedIndexInformer<Pod> informer;

  public KubernetesDriver(KubernetesClient client, Repositories.Pods pods, Repositories.Pvcs pvcs,
      StatefulSetStore sets, PodEvents events, @Value("${ordinal.kubernetes.workers:4}") int workers) {
    this.client = client;
    this.pods = pods;
    this.pvcs = pvcs;
    this.sets = sets;
    this.events = events;
    this.queue = new WorkQueue("kubernetes-pods", workers, this::reconcile);
  }

  @Override
  public String name() {
    return NAME;
  }

  /** The pods are the cluster's: any instance can create, watch and delete them. */
  @Override
  public boolean nodeBound() {
    return false;
  }

  @Override
  public void start(DriverPod pod) {
    queue.add(pod.namespace(), pod.name());
  }

  @Override
  public void stop(DriverPod pod) {
    queue.add(pod.namespace(), pod.name());
  }

  /**
   * Watches the cluster's pods, then reconciles every pod this driver runs. The service starts even
   * when the cluster cannot be reached: the watch is tried again every 5 s meanwhile (and pods wait).
   */
  @Override
  public void recover() {
    Thread.ofPlatform().daemon().name("kubernetes-driver-start").start(() -> {
      while (!watch()) {
        sleep(5_000);
      }
      List<PodRow> rows = pods.findByDriver(NAME);
      informer.getStore().list().forEach(this::queueIfOrdinals);
      rows.forEach(row -> queue.add(row.namespace(), row.name()));
      log.info("kubernetes driver: watching {} pods in the cluster; Ordinal runs {}", informer.getStore().list().size(),
          rows.size());
    });
  }

  /** Images by a patch of the pod, resources through its {@code resize} subresource: the kubelet applies both. */
  @Override
  public boolean updatesInPlace() {
    return true;
  }

  /**
   * Notes on the updated pod what the kubelet must show before it is Ready again ({@link InPlaceProgress}),
   * from the cluster's pod now; stores it; then its reconcile patches the cluster's pod.
   */
  @Override
  public boolean updateInPlace(DriverPod pod, Pod updated, Predicate<Pod> commit) {
    Pod actual = informer == null ? null : informer.getStore().getByKey(pod.namespace() + "/" + pod.name());
    if (actual == null || !pod.uid().equals(Labels.annotation(actual.getMetadata(), ClusterObjects.POD_UID_ANNOTATION))) {
      throw new IllegalStateException("pod " + pod.name() + " is not (yet) in the cluster's watch: it is updated in place"
          + " once it is");
    }
    InPlaceProgress.of(actual, updated).noteOn(updated);
    boolean committed = commit.test(updated);
    if (committed) {
      queue.add(pod.namespace(), pod.name());
    }
    return committed;
  }

  @Override
  public void checkExec(DriverPod pod, String container) {
    throw new ExecRefusedException("exec into pods of the kubernetes driver goes through the cluster: kubectl exec -n "
        + pod.namespace() + " " + pod.name() + " -c " + container);
  }

  /** A deleted claim goes from the cluster too, if Ordinal made it there. */
  @Override
  public void deleteVolume(String namespace, String claimName) {
    var claim = client.persistentVolumeClaims().inNamespace(namespace).withName(claimName);
    PersistentVolumeClaim found = claim.get();
    if (found != null && Labels.annotation(found.getMetadata(), ClusterObjects.CLAIM_UID_ANNOTATION) != null) {
      claim.delete();
    }
  }

  @PreDestroy
  synchronized void close() {
    queue.close();
    if (informer != null) {
      informer.close();
    }
  }

  /** Starts the informer (once), listing every pod of the cluster first; false if the cluster cannot be reached. */
  private synchronized boolean watch() {
    if (informer != null) {
      return true;
    }
    try {
      informer = client.pods().inAnyNamespace().inform(new ResourceEventHandler<>() {
        @Override
        public void onAdd(Pod pod) {
          queueIfOrdinals(pod);
        }

        @Override
        public void onUpdate(Pod before, Pod pod) {
          queueIfOrdinals(pod);
        }

        @Override
        public void onDelete(Pod pod, boolean finalStateUnknown) {
          queueIfOrdinals(pod);
        }
      }, RESYNC_MS);
      return true;
    } catch (KubernetesClientException e) {
      log.warn("kubernetes driver: cannot watch the cluster's pods ({}); trying again in 5 s", e.getMessage());
      return false;
    }
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Other pods of the cluster are not Ordinal's business (one in the way of Ordinal's is retried by its key). */
  private void queueIfOrdinals(Pod pod) {
    if (Labels.annotation(pod.getMetadata(), ClusterObjects.POD_UID_ANNOTATION) != null) {
      queue.add(pod);
    }
  }


  /** Brings the cluster's pod named {@code key} and Ordinal's row of that name to agree. */
  void reconcile(String namespace, String name) {
    String key = namespace + "/" + name; // the informer's key
    Optional<PodRow> found = pods.findById(StatefulSetStore.id(namespace, name)).filter(row -> NAME.equals(row.driver()));
    if (informer == null) {
      throw new IllegalStateException("not watching the cluster's pods yet");
    }
    Pod actual = informer.getStore().getByKey(key);
    String actualUid = actual == null ? null : Labels.annotation(actual.getMetadata(), ClusterObjects.POD_UID_ANNOTATION);
    if (found.isEmpty()) {
      if (actualUid != null && actual.getMetadata().getDeletionTimestamp() == null) {
        delete(actual); // an incarnation Ordinal no longer has (deleted while the service was away)
      }
      return;
    }
    PodRow row = found.get();
    if (actual == null) {
      if (row.terminating() || !PodSnapshot.PENDING.equals(row.phase())) {
        gone(row); // deleted as asked, or by someone else (evicted, kubectl delete): the set's controller decides
      } else {
        create(row);
      }
    } else if (!row.uid().equals(actualUid)) {
      if (actualUid == null) {
        String why = "a pod named " + name + " that Ordinal did not create exists in the cluster; it is left alone";
        report(row, why);
        throw new IllegalStateException(why); // looked at again, with back-off, until it is gone
      } else if (actual.getMetadata().getDeletionTimestamp() == null) {
        delete(actual); // an earlier incarnation still there: once it is gone, this one is created
      }
    } else {
      if (row.terminating() && actual.getMetadata().getDeletionTimestamp() == null) {
        delete(actual);
      } else if (!row.terminating() && !applyInPlace(row, actual)) {
        return;
      }
      mirror(row, actual);
    }
  }

  /**
   * Brings the cluster's pod to the row's images, revision label and resources when the row was
   * updated in place: a patch of the pod for the first two, of its {@code resize} subresource for the
   * last (the API server allows no other way). When the cluster refuses (no resize in this cluster,
   * a change it does not allow), the pod is replaced instead: false then.
   */
  private boolean applyInPlace(PodRow row, Pod actual) {
    Optional<Pod> updated = InPlaceProgress.updatedInPlace(row.object());
    if (updated.isEmpty()) {
      return true; // never updated in place: the cluster's pod is the row's
    }
    Pod wanted = updated.get();
    ObjectNode images = KubeJson.JSON.createObjectNode();
    ObjectNode resized = KubeJson.JSON.createObjectNode();
    for (Container container : wanted.getSpec().getContainers()) {
      Optional<Container> now = actual.getSpec().getContainers().stream()
          .filter(c -> c.getName().equals(container.getName())).findFirst();
      if (now.isPresent() && !Objects.equals(now.get().getImage(), container.getImage())) {
        images.with("spec").withArray("containers").addObject().put("name", container.getName())
            .put("image", container.getImage());
      }
      if (now.isPresent() && !PodUpdatePolicy.resourcesApplied(container.getResources(), now.get().getResources())) {
        // cpu and memory only, requests defaulted from limits: what the API server would hold the pod to.
        ObjectNode resources = resized.with("spec").withArray("containers").addObject().put("name", container.getName())
            .putObject("resources");
        resources.set("requests", KubeJson.JSON.valueToTree(PodUpdatePolicy.effective(container.getResources(), false, true)));
        resources.set("limits", KubeJson.JSON.valueToTree(PodUpdatePolicy.effective(container.getResources(), true, true)));
      }
    }
    if (!row.revision().equals(Labels.labels(actual.getMetadata()).get(Labels.REVISION_HASH))) {
      images.with("metadata").with("labels").put(Labels.REVISION_HASH, row.revision());
    }
    var pod = client.pods().inNamespace(row.namespace()).withName(row.name());
    try {
      if (!images.isEmpty()) {
        pod.patch(PatchContext.of(PatchType.STRATEGIC_MERGE), KubeJson.write(images));
      }
      if (!resized.isEmpty()) {
        pod.subresource("resize").patch(PatchContext.of(PatchType.STRATEGIC_MERGE), KubeJson.write(resized));
      }
      return true;
    } catch (KubernetesClientException e) {
      boolean inPlaceOnly = sets.get(row.namespace(), row.setName())
          .map(set -> InPlaceUpdates.ONLY.equals(PodUpdatePolicy.of(set.getMetadata()))).orElse(false);
      if (e.getCode() < 400 || e.getCode() >= 500 || e.getCode() == 401 || e.getCode() == 403 || e.getCode() == 409
          || e.getCode() == 429 || inPlaceOnly) {
        // Tried again with back-off: a server or permission problem is fixed there (the ClusterRole
        // needs patch on pods and pods/resize), and InPlaceOnly never replaces a pod.
        report(row, "the cluster did not take pod " + row.name() + "'s in-place update: " + e.getMessage());
        throw e;
      }
      String why = "the cluster refused to update pod " + row.name() + " in place (" + e.getMessage()
          + "); it is replaced instead";
      log.warn(why);
      report(row, why);
      if (pods.markTerminating(row.id(), row.uid(), Instant.now()) > 0) {
        events.podChanged(row.namespace(), row.setName(), row.name());
      }
      delete(actual);
      return false;
    }
  }

  /** Creates the row's claims (unless present: a claim of that name is used, as upstream does) and then its pod. */
  private void create(PodRow row) {
    Optional<StatefulSet> set = sets.get(row.namespace(), row.setName());
    for (PvcRow claim : pvcs.findByNamespaceAndSetNameAndOrdinalInListOrderByName(row.namespace(), row.setName(),
        List.of(row.ordinal()))) {
      if (!claim.terminating()) {
        createClaim(claim, set);
      }
    }
    Pod pod = ClusterObjects.forCluster(KubeJson.read(row.object(), Pod.class), Pod.class,
        ClusterObjects.POD_UID_ANNOTATION, row.uid(), set);
    pod.setStatus(null);
    try {
      client.pods().inNamespace(row.namespace()).resource(pod).create();
      log.debug("created pod {}/{} ({})", row.namespace(), row.name(), row.uid());
    } catch (KubernetesClientException e) {
      if (e.getCode() != 409) { // 409: created already, by an earlier try; the watch brings it
        report(row, "the cluster refused pod " + row.name() + ": " + e.getMessage());
        throw e;
      }
    }
  }

  /**
   * Creates the claim in the cluster; one there already is used (a create's 409 is the only read, so
   * the usual case is one round trip), unless it is being deleted: then the pod waits for it to go.
   */
  private void createClaim(PvcRow row, Optional<StatefulSet> set) {
    PersistentVolumeClaim claim = ClusterObjects.forCluster(KubeJson.read(row.object(), PersistentVolumeClaim.class),
        PersistentVolumeClaim.class, ClusterObjects.CLAIM_UID_ANNOTATION, row.uid(), set);
    claim.setStatus(null);
    try {
      client.persistentVolumeClaims().inNamespace(row.namespace()).resource(claim).create();
    } catch (KubernetesClientException e) {
      if (e.getCode() != 409) {
        throw e;
      }
      var existing = client.persistentVolumeClaims().inNamespace(row.namespace()).withName(row.name()).get();
      if (existing != null && existing.getMetadata().getDeletionTimestamp() != null) {
        throw new IllegalStateException("claim " + row.name() + " is being deleted in the cluster; its pod waits for it to go");
      }
    }
  }

  /** Deletes a pod of Ordinal's in the cluster, that very pod (uid precondition), with its own grace period. */
  private void delete(Pod pod) {
    try {
      client.pods().inNamespace(pod.getMetadata().getNamespace()).resource(pod).delete();
    } catch (KubernetesClientException e) {
      if (e.getCode() != 404 && e.getCode() != 409) {
        throw e;
      }
    }
  }

  private void gone(PodRow row) {
    if (pods.deleteByIdAndUid(row.id(), row.uid()) > 0) {
      events.podChanged(row.namespace(), row.setName(), row.name());
    }
  }

  /** Copies what the cluster says of the pod into its row; the set's workflow hears of any change. */
  private void mirror(PodRow row, Pod actual) {
    PodStatus status = actual.getStatus() == null ? new PodStatus() : actual.getStatus();
    String phase = status.getPhase() == null ? PodSnapshot.PENDING : status.getPhase();
    Optional<PodCondition> ready = condition(status, "Ready");
    // A pod updated in place is Ready again once the kubelet has restarted or resized what changed.
    boolean isReady = ready.map(c -> "True".equals(c.getStatus())).orElse(false)
        && InPlaceProgress.caughtUp(row.object(), actual);
    Instant readySince = isReady ? ready.map(PodCondition::getLastTransitionTime).map(KubeJson::instant)
        .orElse(Instant.now()) : null;
    if (isReady && row.ready() && row.readySince() != null) {
      readySince = row.readySince(); // the first time it was seen Ready stands
    } else if (isReady) {
      readySince = InPlaceProgress.readySince(row.object(), readySince);
    }
    Instant startedAt = status.getStartTime() == null ? null : KubeJson.instant(status.getStartTime());
    String message = status.getMessage() != null ? status.getMessage() : status.getReason();
    String containerStatuses = status.getContainerStatuses() == null || status.getContainerStatuses().isEmpty()
        ? null : KubeJson.write(status.getContainerStatuses());
    boolean changed = !phase.equals(row.phase()) || isReady != row.ready() || !Objects.equals(readySince, row.readySince())
        || !Objects.equals(startedAt, row.startedAt()) || !Objects.equals(message, row.message())
        || !Objects.equals(status.getPodIP(), row.podIp()) || !Objects.equals(containerStatuses, row.containerStatuses());
    boolean matters = PodSnapshot.statusMatters(row.phase(), row.ready(), phase, isReady)
        || isReady && !Objects.equals(readySince, row.readySince());
    if (changed && pods.updateRuntimeStatusAt(row.id(), row.uid(), row.revision(), phase, isReady, readySince, startedAt,
        message, status.getPodIP(), containerStatuses) > 0 && matters) {
      events.podChanged(row.namespace(), row.setName(), row.name());
    }
  }

  private static Optional<PodCondition> condition(PodStatus status, String type) {
    return status.getConditions() == null ? Optional.empty()
        : status.getConditions().stream().filter(c -> type.equals(c.getType())).findFirst();
  }

  private void report(PodRow row, String message) {
    if (!message.equals(row.message())) {
      pods.updateRuntimeStatusAt(row.id(), row.uid(), row.revision(), row.phase(), row.ready(), row.readySince(),
          row.startedAt(), message, row.podIp(), row.containerStatuses());
    }
  }
}
