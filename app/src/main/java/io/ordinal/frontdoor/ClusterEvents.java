package io.ordinal.frontdoor;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventSource;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.micronaut.context.annotation.Requires;
import io.micronaut.context.event.StartupEvent;
import io.micronaut.runtime.event.annotation.EventListener;
import io.ordinal.apimachinery.ChangeFeed;
import io.ordinal.cluster.ClusterObjects;
import io.ordinal.store.KubeJson;
import io.ordinal.store.StatefulSetStore;
import io.ordinal.store.WatchLog;
import jakarta.annotation.PreDestroy;
import jakarta.inject.Singleton;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The events Ordinal records about a set mirrored from the cluster (SuccessfulCreate, SuccessfulDelete,
 * RecreatingFailedPod, its own rollout events) are events in the cluster too, on the
 * cluster object it mirrors ({@code apps.ordinal.io}, or apps/v1 where Ordinal is the cluster's
 * StatefulSet controller), so {@code kubectl describe} and {@code kubectl events} show them
 * where upstream's controller would put its own. Best effort, as events are upstream: one the
 * cluster refuses is logged, not retried.
 */
@Singleton
@Requires(beans = ClusterFrontDoor.class)
public class ClusterEvents implements ChangeFeed.Subscriber {
  private static final Logger log = LoggerFactory.getLogger(ClusterEvents.class);

  private final KubernetesClient client;
  private final StatefulSetStore sets;
  private final ChangeFeed changes;
  /** One thread: events reach the cluster in the order Ordinal recorded them. */
  private final ExecutorService sender = Executors.newSingleThreadExecutor(
      Thread.ofPlatform().daemon().name("cluster-events").factory());

  public ClusterEvents(KubernetesClient client, StatefulSetStore sets, ChangeFeed changes) {
    this.client = client;
    this.sets = sets;
    this.changes = changes;
  }

  @EventListener
  void start(StartupEvent event) {
    changes.subscribe(this);
  }

  @Override
  public void changed(List<WatchLog.Change> batch) {
    for (WatchLog.Change change : batch) {
      if ("events".equals(change.resource()) && !"DELETED".equals(change.type())
          && change.object() instanceof Event recorded && "StatefulSet".equals(recorded.getInvolvedObject().getKind())) {
        // MODIFIED: the event occurred again (count, lastTimestamp, message), as upstream's recorder patches it.
        boolean again = "MODIFIED".equals(change.type());
        sender.execute(() -> send(recorded, again));
      }
    }
  }

  @Override
  public void caughtUp(long resourceVersion) {}

  private void send(Event recorded, boolean again) {
    ObjectReference about = recorded.getInvolvedObject();
    sets.get(recorded.getMetadata().getNamespace(), about.getName()).filter(set -> ClusterObjects.clusterUid(set).isPresent())
        .ifPresent(set -> {
          String clusterUid = ClusterObjects.clusterUid(set).get();
          Event event = KubeJson.copy(recorded, Event.class);
          event.getMetadata().setUid(null);
          event.getMetadata().setResourceVersion(null);
          event.getMetadata().setCreationTimestamp(null);
          // A core/v1 event as upstream's controllers record them (an eventTime would make it an
          // events.k8s.io event, which wants an action and a reporting instance).
          event.setEventTime(null);
          event.setReportingComponent(null);
          event.setSource(new EventSource("ordinal", null));
          event.setInvolvedObject(new ObjectReference(ClusterObjects.clusterApiVersion(set), null, ClusterObjects.KIND,
              about.getName(), about.getNamespace(), null, clusterUid));
          try {
            if (again) {
              try {
                client.v1().events().inNamespace(about.getNamespace()).withName(event.getMetadata().getName())
                    .patch(PatchContext.of(PatchType.JSON_MERGE), KubeJson.JSON.writeValueAsString(Map.of(
                        "count", event.getCount(), "lastTimestamp", event.getLastTimestamp(), "message", event.getMessage())));
                return;
              } catch (KubernetesClientException e) {
                if (e.getCode() != 404) {
                  throw e;
                }
                // Not mirrored yet (made before this instance started, or its creation was lost): made whole.
              }
            }
            client.v1().events().inNamespace(about.getNamespace()).resource(event).create();
          } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
          } catch (KubernetesClientException e) {
            if (e.getCode() == 409) {
              return; // another instance of Ordinal mirrored it first: the event keeps its name in both places
            }
            log.warn("event {} on {}/{} not recorded in the cluster: {}", event.getReason(), about.getNamespace(),
                about.getName(), e.getMessage());
          }
        });
  }

  @PreDestroy
  void close() {
    changes.unsubscribe(this);
    sender.shutdownNow();
  }
}
