package io.ordinal.node;

import io.fabric8.kubernetes.api.model.Pod;
import io.ordinal.api.watch.ChangeFeed;
import io.ordinal.pods.PodLifecycle;
import io.ordinal.store.PodStore;
import io.ordinal.store.WatchLog.Change;
import jakarta.annotation.PreDestroy;
import jakarta.inject.Singleton;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This node's share of the kubelet's watch: a pod of this node marked for deletion through another
 * instance's API (which cannot stop a process here) is stopped here. Pods the controller deletes
 * are stopped by their activity, which runs on this node already; stopping twice is a no-op.
 * Deletions made while this node was down are stopped when its drivers re-adopt their pods.
 */
@Singleton
public class NodeAgent implements ChangeFeed.Subscriber {
  private static final Logger log = LoggerFactory.getLogger(NodeAgent.class);

  private final ThisNode node;
  private final PodStore pods;
  private final PodLifecycle lifecycle;
  private final ChangeFeed feed;
  /** The feed's thread must not block: each stop runs on a thread of its own. */
  private final ExecutorService stops = Executors.newVirtualThreadPerTaskExecutor();

  public NodeAgent(ThisNode node, PodStore pods, PodLifecycle lifecycle, ChangeFeed feed) {
    this.node = node;
    this.pods = pods;
    this.lifecycle = lifecycle;
    this.feed = feed;
  }

  /** Starts watching (once the drivers have re-adopted this node's pods). */
  public void start() {
    feed.subscribe(this);
  }

  @Override
  public void changed(List<Change> changes) {
    for (Change change : changes) {
      if ("pods".equals(change.resource()) && !"DELETED".equals(change.type())
          && change.object() instanceof Pod pod && pod.getMetadata().getDeletionTimestamp() != null
          && pod.getSpec() != null && node.is(pod.getSpec().getNodeName())) {
        String uid = pod.getMetadata().getUid();
        stops.submit(() -> stop(change.namespace(), change.name(), uid));
      }
    }
  }

  private void stop(String namespace, String name, String uid) {
    try {
      pods.find(namespace, name).filter(row -> row.uid().equals(uid)).ifPresent(lifecycle::stopIfHere);
    } catch (RuntimeException e) {
      log.warn("pod {}/{}: could not stop it on this node (its re-adoption at the next start will): {}",
          namespace, name, e.toString());
    }
  }

  @Override
  public void caughtUp(long resourceVersion) {}

  @PreDestroy
  void close() {
    feed.unsubscribe(this);
    stops.shutdownNow();
  }
}
