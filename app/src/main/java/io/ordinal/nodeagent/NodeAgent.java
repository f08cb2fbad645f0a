package io.ordinal.nodeagent;

import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.micronaut.scheduling.annotation.Scheduled;
import io.ordinal.apimachinery.ChangeFeed;
import io.ordinal.driver.DriverRegistry;
import io.ordinal.kube.Labels;
import io.ordinal.model.SetKey;
import io.ordinal.node.ThisNode;
import io.ordinal.pods.PodLifecycle;
import io.ordinal.store.PodRow;
import io.ordinal.store.PodStore;
import io.ordinal.store.Repositories;
import io.ordinal.store.StatefulSetStore;
import io.ordinal.store.WatchLog.Change;
import jakarta.annotation.PreDestroy;
import jakarta.inject.Singleton;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This node's share of the kubelet's watch. A pod of this node marked for deletion through another
 * instance's API (which cannot stop a process here) is stopped here, once per pod; a claim of this
 * node deleted there has its volume removed here once no pod uses it. Pods the controller deletes
 * are stopped by their activity, which runs on this node already. A sweep at start and every 30 s
 * stops what a missed or failed notification left.
 */
@Singleton
public class NodeAgent implements ChangeFeed.Subscriber {
  private static final Logger log = LoggerFactory.getLogger(NodeAgent.class);

  private final ThisNode node;
  private final PodStore pods;
  private final Repositories.Pods podRows;
  private final Repositories.Pvcs claims;
  private final PodLifecycle lifecycle;
  private final DriverRegistry drivers;
  private final ChangeFeed feed;
  /** The feed's thread must not block: each stop runs on a thread of its own. */
  private final ExecutorService work = Executors.newVirtualThreadPerTaskExecutor();
  /**
   * Uids of the pods this agent asked to stop, until they are gone: a stop is asked once, not at each
   * later change of the terminating pod (one arriving after the driver let the pod go would start
   * supervising it again).
   */
  private final Set<String> stopping = ConcurrentHashMap.newKeySet();
  private volatile boolean started;

  public NodeAgent(ThisNode node, PodStore pods, Repositories.Pods podRows, Repositories.Pvcs claims,
      PodLifecycle lifecycle, DriverRegistry drivers, ChangeFeed feed) {
    this.node = node;
    this.pods = pods;
    this.podRows = podRows;
    this.claims = claims;
    this.lifecycle = lifecycle;
    this.drivers = drivers;
    this.feed = feed;
  }

  /** Starts watching once the drivers have re-adopted this node's pods, then sweeps what came meanwhile. */
  public void start() {
    feed.subscribe(this);
    started = true;
    sweep();
  }

  @Override
  public void changed(List<Change> changes) {
    for (Change change : changes) {
      if (change.object() instanceof Pod pod && pod.getSpec() != null && node.is(pod.getSpec().getNodeName())) {
        String uid = pod.getMetadata().getUid();
        if ("DELETED".equals(change.type())) {
          stopping.remove(uid);
        } else if (pod.getMetadata().getDeletionTimestamp() != null) {
          stopOnce(change.namespace(), change.name(), uid);
        }
      } else if (change.object() instanceof PersistentVolumeClaim claim && !"DELETED".equals(change.type())
          && claim.getMetadata().getDeletionTimestamp() != null
          && node.is(Labels.annotation(claim.getMetadata(), Labels.SELECTED_NODE_ANNOTATION))) {
        work.submit(() -> removeClaim(change.namespace(), change.name()));
      }
    }
  }

  /** This node's pods marked for deletion, stopped unless asked already. */
  @Scheduled(fixedDelay = "30s", initialDelay = "30s")
  void sweep() {
    if (!started) {
      return;
    }
    try {
      for (String driver : drivers.nodeBoundDrivers()) {
        for (PodRow row : podRows.findByDriver(driver)) {
          if (row.terminating() && node.is(ThisNode.of(row))) {
            stopOnce(row.namespace(), row.name(), row.uid());
          }
        }
      }
    } catch (RuntimeException e) {
      log.warn("node {}: sweep of its terminating pods failed (tried again in 30 s): {}", node.name(), e.toString());
    }
  }

  private void stopOnce(String namespace, String name, String uid) {
    if (stopping.add(uid)) {
      work.submit(() -> stop(namespace, name, uid));
    }
  }

  private void stop(String namespace, String name, String uid) {
    try {
      var row = pods.find(namespace, name).filter(found -> found.uid().equals(uid));
      if (row.isEmpty()) {
        stopping.remove(uid);
        return;
      }
      lifecycle.stopIfHere(row.get());
    } catch (RuntimeException e) {
      stopping.remove(uid); // the next sweep asks again
      log.warn("pod {}/{}: could not stop it on this node (tried again within 30 s): {}", namespace, name, e.toString());
    }
  }

  private void removeClaim(String namespace, String name) {
    try {
      claims.findById(StatefulSetStore.id(namespace, name)).filter(row -> row.terminating())
          .ifPresent(row -> lifecycle.deleteClaim(new SetKey(namespace, row.setName()), name, "deleted by a user"));
    } catch (RuntimeException e) {
      log.warn("claim {}/{}: could not remove its volume on this node: {}", namespace, name, e.toString());
    }
  }

  @Override
  public void caughtUp(long resourceVersion) {}

  @PreDestroy
  void close() {
    feed.unsubscribe(this);
    work.shutdownNow();
  }
}
