package io.ordinal.frontdoor;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micronaut.context.annotation.Requires;
import io.micronaut.context.event.StartupEvent;
import io.micronaut.runtime.event.annotation.EventListener;
import io.ordinal.api.StatefulSetService;
import io.ordinal.api.registry.Deletion;
import io.ordinal.cluster.ClusterObjects;
import io.ordinal.cluster.KubernetesDriver;
import io.ordinal.kube.Labels;
import io.ordinal.kube.ReservedOrdinals;
import io.ordinal.store.KubeJson;
import io.ordinal.store.PodRow;
import io.ordinal.store.PodStore;
import io.ordinal.store.Repositories;
import io.ordinal.store.RevisionStore;
import io.ordinal.store.StatefulSetStore.Propagation;
import io.ordinal.store.StatefulSetStore;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * When Ordinal starts without {@code ordinal.kubernetes.statefulset-controller} after it ran a
 * cluster's apps/v1 StatefulSets, it lets them go as they run, for upstream's controller (turned on
 * again) to take them: each of its sets of them is deleted with its pods orphaned in Ordinal only
 * (the apps/v1 object stays their owner in the cluster, and its ControllerRevisions, which Ordinal
 * kept as upstream writes them, stay its history), then the pods and claims lose Ordinal's marks and
 * Ordinal forgets them. Nothing in the cluster is deleted or created, so upstream's controller finds
 * every pod current. Idempotent: what a crash cut short is finished at the next start.
 */
@Singleton
@Requires(beans = KubernetesClient.class)
@Requires(property = "ordinal.kubernetes.statefulset-controller", notEquals = "true")
public class ClusterHandBack {
  private static final Logger log = LoggerFactory.getLogger(ClusterHandBack.class);
  private static final Duration WAIT = Duration.ofMinutes(5);
  private static final String HAND_BACK = "hand-back";
  /** On Ordinal's record of a pod (never in the cluster): the pod is being handed back. */
  private static final String HANDING_BACK_ANNOTATION = "ordinal.io/handing-back";

  private final StatefulSetService service;
  private final StatefulSetStore sets;
  private final PodStore podStore;
  private final Repositories.Pods pods;
  private final Repositories.ControllerRevisions revisionRows;
  private final RevisionStore revisions;
  private final RunningPods running;
  private final OperationSteps steps;

  public ClusterHandBack(StatefulSetService service, StatefulSetStore sets, PodStore podStore, Repositories.Pods pods,
      Repositories.ControllerRevisions revisionRows, RevisionStore revisions, RunningPods running, OperationSteps steps) {
    this.podStore = podStore;
    this.service = service;
    this.sets = sets;
    this.pods = pods;
    this.revisionRows = revisionRows;
    this.revisions = revisions;
    this.running = running;
    this.steps = steps;
  }

  @EventListener
  void start(StartupEvent event) {
    Thread.ofPlatform().daemon().name("cluster-hand-back").start(() -> {
      try {
        handBackAll();
      } catch (RuntimeException e) {
        log.error("handing the cluster's apps/v1 StatefulSets back failed; tried again at the next start", e);
      }
    });
  }

  void handBackAll() {
    Set<String> names = new LinkedHashSet<>();
    sets.list(null).stream().filter(ClusterObjects::mirrorsBuiltin)
        .forEach(set -> names.add(StatefulSetStore.id(set.getMetadata().getNamespace(), set.getMetadata().getName())));
    // Records left by a hand-back cut short after its set was gone (its pods' records carry its mark).
    for (PodRow row : pods.findByDriver(KubernetesDriver.NAME)) {
      if (Labels.annotation(KubeJson.read(row.object(), Pod.class).getMetadata(), HANDING_BACK_ANNOTATION) != null
          && sets.get(row.namespace(), row.setName()).isEmpty()) {
        names.add(StatefulSetStore.id(row.namespace(), row.setName()));
      }
    }
    for (String id : names) {
      String namespace = id.substring(0, id.indexOf('/'));
      handBack(namespace, id.substring(id.indexOf('/') + 1));
    }
  }

  private void handBack(String namespace, String name) {
    log.info("Ordinal is not the cluster's StatefulSet controller (ordinal.kubernetes.statefulset-controller): "
        + "handing apps/v1 StatefulSet {}/{} back, its pods running on", namespace, name);
    steps.begin(HAND_BACK, namespace, name, "markRecords");
    // Ordinal's records of the pods say it first: once the set is gone, nothing else tells them from an
    // adoption's records (made before its set), which must stay.
    for (PodRow row : podStore.ofSet(namespace, name)) {
      Pod recorded = KubeJson.read(row.object(), Pod.class);
      if (Labels.annotation(recorded.getMetadata(), HANDING_BACK_ANNOTATION) == null) {
        Map<String, String> annotations = new LinkedHashMap<>(Labels.annotations(recorded.getMetadata()));
        annotations.put(HANDING_BACK_ANNOTATION, "true");
        recorded.getMetadata().setAnnotations(annotations);
        pods.updateObject(row.id(), row.uid(), KubeJson.write(recorded));
      }
    }
    steps.begin(HAND_BACK, namespace, name, "orphan");
    Optional<StatefulSet> set = sets.get(namespace, name);
    if (set.isPresent() && !ReservedOrdinals.of(set.get().getMetadata()).isEmpty()) {
      // Every set must go back (Ordinal no longer runs them); upstream ignores the annotation.
      log.warn("apps/v1 StatefulSet {}/{} reserves ordinals ({}): upstream's controller, which ignores them, will"
          + " delete its pods above [start, start + replicas) and create the reserved ones", namespace, name,
          ReservedOrdinals.ANNOTATION);
    }
    if (set.isPresent() && set.get().getMetadata().getDeletionTimestamp() == null) {
      service.delete(namespace, name, new Deletion(Propagation.ORPHAN, false, set.get().getMetadata().getUid(), null));
    }
    Instant deadline = Instant.now().plus(WAIT);
    while (sets.get(namespace, name).isPresent()) {
      if (Instant.now().isAfter(deadline)) {
        log.warn("Ordinal's set {}/{} is still being deleted; its hand-back goes on at the next start", namespace, name);
        return;
      }
      sleep(500);
    }
    steps.begin(HAND_BACK, namespace, name, "forget");
    running.forget(namespace, name);
    revisions.history(namespace, name).forEach(row -> revisionRows.deleteById(row.id()));
    log.info("handed apps/v1 StatefulSet {}/{} back", namespace, name);
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
