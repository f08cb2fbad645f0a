package io.ordinal.api;

import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.micronaut.context.event.StartupEvent;
import io.micronaut.runtime.event.annotation.EventListener;
import io.ordinal.api.registry.Deletion;
import io.ordinal.apimachinery.ApiException;
import io.ordinal.auth.rbac.Rbac;
import io.ordinal.model.SetKey;
import io.ordinal.pods.PodLifecycle;
import io.ordinal.store.NamespaceContents;
import io.ordinal.store.NamespaceStore;
import io.ordinal.store.PodRow;
import io.ordinal.store.PodStore;
import io.ordinal.store.StatefulSetStore;
import jakarta.annotation.PreDestroy;
import jakarta.inject.Singleton;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The namespace controller (upstream's pkg/controller/namespace/deletion): empties a Terminating
 * namespace, then deletes it, so that nothing of it (a RoleBinding above all) is there for whoever
 * creates a namespace of that name next. Everything goes as a user's DELETE of it would: each set with
 * propagation Background (its controller deletes its pods, in its order, then the set and its
 * revisions), the pods no set controls, then, once no pod is left to use them, the claims with their
 * volumes; last, in one transaction, the namespace's row with what is rows only (events, roles, role
 * bindings, leftover revisions, addresses, members). Claims go whatever the sets' retention policies
 * say, as upstream's namespace deletion deletes every claim.
 *
 * <p>The namespace's row says that it is being deleted, so a restart carries on where a crash left it;
 * every step is idempotent, so instances sharing the database may work on one at the same time. A
 * namespace gets a first pass when it is deleted ({@link NamespaceService#delete}), then one every 2
 * seconds until it is gone.
 */
@Singleton
public class NamespaceDeleter {
  private static final Logger log = LoggerFactory.getLogger(NamespaceDeleter.class);
  private static final String BY_NAMESPACE = "namespace deleted";

  private final NamespaceStore namespaces;
  private final NamespaceContents contents;
  private final StatefulSetStore sets;
  private final StatefulSetService setService;
  private final PodStore pods;
  private final PodLifecycle lifecycle;
  private final Rbac rbac;
  private final ScheduledExecutorService worker = Executors.newSingleThreadScheduledExecutor(
      Thread.ofPlatform().daemon().name("namespace-deleter").factory());

  public NamespaceDeleter(NamespaceStore namespaces, NamespaceContents contents, StatefulSetStore sets,
      StatefulSetService setService, PodStore pods, PodLifecycle lifecycle, Rbac rbac) {
    this.namespaces = namespaces;
    this.contents = contents;
    this.sets = sets;
    this.setService = setService;
    this.pods = pods;
    this.lifecycle = lifecycle;
    this.rbac = rbac;
  }

  @EventListener
  void onStartup(StartupEvent event) {
    worker.scheduleWithFixedDelay(this::deleteAll, 2, 2, TimeUnit.SECONDS);
  }

  @PreDestroy
  void stop() {
    worker.shutdownNow();
  }

  private void deleteAll() {
    try {
      namespaces.listTerminating().forEach(this::delete);
    } catch (RuntimeException e) {
      log.warn("namespace deletion: {} (tried again in 2 s)", e.toString());
    }
  }

  /**
   * One pass over a Terminating namespace: starts what can start, and finishes the namespace when
   * nothing is left of it. True when it is gone.
   */
  public synchronized boolean delete(String namespace) {
    if (!namespaces.terminating(namespace)) {
      return true;
    }
    List<StatefulSet> setsLeft = sets.list(namespace);
    for (StatefulSet set : setsLeft) {
      if (set.getMetadata().getDeletionTimestamp() == null) {
        try {
          setService.delete(namespace, set.getMetadata().getName(), new Deletion(StatefulSetStore.Propagation.BACKGROUND, false, null, null));
        } catch (ApiException e) {
          log.debug("namespace {}: set {} not deleted now: {}", namespace, set.getMetadata().getName(), e.getMessage());
        }
      }
    }
    // A set's own pods are its controller's to delete; those it released, or orphaned, are ours.
    List<String> setUids = setsLeft.stream().map(set -> set.getMetadata().getUid()).toList();
    for (PodRow pod : pods.inNamespace(namespace)) {
      if (setUids.stream().noneMatch(uid -> PodStore.controlledBy(pod, uid))) {
        lifecycle.deletePod(new SetKey(namespace, pod.setName()), pod.name(), BY_NAMESPACE);
      }
    }
    Map<String, Long> remaining = contents.remaining(namespace);
    if (remaining.containsKey("statefulsets") || remaining.containsKey("pods")) {
      return false;
    }
    for (PersistentVolumeClaim claim : pods.listClaims(namespace)) {
      lifecycle.deleteClaimByUser(namespace, claim.getMetadata().getName());
    }
    if (!contents.finish(namespace)) {
      return false;
    }
    rbac.refresh(); // its role bindings grant nothing from now on
    log.info("namespace {} deleted with all it held", namespace);
    return true;
  }
}
