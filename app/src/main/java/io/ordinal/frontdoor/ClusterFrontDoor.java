package io.ordinal.frontdoor;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.MixedOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.micronaut.context.annotation.Requires;
import io.micronaut.context.event.StartupEvent;
import io.micronaut.runtime.event.annotation.EventListener;
import io.ordinal.api.RolloutService;
import io.ordinal.api.StatefulSetService;
import io.ordinal.api.registry.Deletion;
import io.ordinal.api.registry.WriteOptions;
import io.ordinal.api.statefulset.RolloutStatus;
import io.ordinal.api.statefulset.StatefulSetDefaults;
import io.ordinal.apimachinery.ApiException;
import io.ordinal.apimachinery.ChangeFeed;
import io.ordinal.apimachinery.FieldError;
import io.ordinal.cluster.ClusterObjects;
import io.ordinal.cluster.KubernetesDriver;
import io.ordinal.cluster.WorkQueue;
import io.ordinal.kube.GoJson;
import io.ordinal.kube.GoTypes;
import io.ordinal.kube.LabelSelectors;
import io.ordinal.kube.Labels;
import io.ordinal.request.User;
import io.ordinal.store.KubeJson;
import io.ordinal.store.StatefulSetStore.Propagation;
import io.ordinal.store.StatefulSetStore;
import io.ordinal.store.WatchLog;
import jakarta.annotation.PreDestroy;
import jakarta.inject.Singleton;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The cluster's front door: every {@code apps.ordinal.io/v1} StatefulSet in the cluster is a set of
 * Ordinal's, fed to the same service as a write through Ordinal's own API (same validation, same
 * workflows), its pods run by the kubernetes driver (the only one it may name). The cluster object is
 * the source of its spec, labels and annotations; Ordinal's copy carries the object's uid and
 * generation ({@link ClusterObjects}). Status flows back to the object's status subresource, with the
 * generation it speaks of translated to the cluster's, and two conditions: Accepted (whether Ordinal
 * took the spec; a refused one says why, with upstream's field paths) and RolloutComplete (as
 * {@code kubectl rollout status} would decide; kubectl's rollout command itself knows only apps/v1).
 * One reconcile per set name, queued by the cluster's watch and by Ordinal's change feed.
 */
@Singleton
@Requires(beans = KubernetesClient.class)
@Requires(property = "ordinal.kubernetes.front-door", notEquals = "false")
public class ClusterFrontDoor implements ChangeFeed.Subscriber {
  private static final Logger log = LoggerFactory.getLogger(ClusterFrontDoor.class);
  static final String FIELD_MANAGER = "ordinal";
  static final String ACCEPTED = "Accepted";
  static final String ROLLOUT_COMPLETE = "RolloutComplete";
  private static final long RESYNC_MS = TimeUnit.MINUTES.toMillis(10);
  private static final WriteOptions WRITE = new WriteOptions(false, FIELD_MANAGER, false, User.ANONYMOUS);

  private final KubernetesClient client;
  private final StatefulSetService service;
  private final StatefulSetStore store;
  private final RolloutService rollouts;
  private final ChangeFeed changes;
  private final WorkQueue queue;
  private volatile SharedIndexInformer<GenericKubernetesResource> informer;

  public ClusterFrontDoor(KubernetesClient client, StatefulSetService service, StatefulSetStore store,
      RolloutService rollouts, ChangeFeed changes) {
    this.client = client;
    this.service = service;
    this.store = store;
    this.rollouts = rollouts;
    this.changes = changes;
    this.queue = new WorkQueue("cluster-statefulsets", 2, this::reconcile);
  }

  @EventListener
  void start(StartupEvent event) {
    Thread.ofPlatform().daemon().name("cluster-front-door").start(this::open);
  }

  /** Installs the CRD (if allowed; else it must be installed already) and starts watching it. */
  private void open() {
    installDefinition();
    while (informer == null) {
      try {
        informer = objects().inAnyNamespace().inform(new ResourceEventHandler<>() {
          @Override
          public void onAdd(GenericKubernetesResource object) {
            queue.add(object);
          }

          @Override
          public void onUpdate(GenericKubernetesResource before, GenericKubernetesResource object) {
            queue.add(object);
          }

          @Override
          public void onDelete(GenericKubernetesResource object, boolean finalStateUnknown) {
            queue.add(object);
          }
        }, RESYNC_MS);
      } catch (KubernetesClientException e) {
        log.warn("cluster front door: cannot watch {} yet ({}); retrying in 5 s", ClusterObjects.API_VERSION, e.getMessage());
        sleep(5_000);
      }
    }
    changes.subscribe(this);
    // Sets mirrored from the cluster whose object went while Ordinal was away.
    store.list(null).stream().filter(set -> ClusterObjects.clusterUid(set).isPresent())
        .forEach(queue::add);
    log.info("cluster front door: watching {}", ClusterObjects.API_VERSION);
  }

  private void installDefinition() {
    try (InputStream crd = getClass().getResourceAsStream("/kubernetes/crd.yaml")) {
      client.load(crd).forceConflicts().serverSideApply();
    } catch (KubernetesClientException e) {
      log.warn("cluster front door: could not install the CustomResourceDefinition statefulsets.{} ({}); "
          + "it must be installed already (deploy/kubernetes)", ClusterObjects.GROUP, e.getMessage());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void changed(List<WatchLog.Change> batch) {
    for (WatchLog.Change change : batch) {
      if ("statefulsets".equals(change.resource())
          && Labels.annotation(change.object().getMetadata(), ClusterObjects.CLUSTER_UID_ANNOTATION) != null) {
        queue.add(change.namespace(), change.name());
      }
    }
  }

  @Override
  public void caughtUp(long resourceVersion) {}

  @PreDestroy
  void close() {
    changes.unsubscribe(this);
    queue.close();
    if (informer != null) {
      informer.close();
    }
  }

  private MixedOperation<GenericKubernetesResource, GenericKubernetesResourceList, Resource<GenericKubernetesResource>> objects() {
    return client.genericKubernetesResources(ClusterObjects.API_VERSION, ClusterObjects.KIND);
  }


  /** Brings Ordinal's set to the cluster object of that name, then the object's status to Ordinal's set. */
  void reconcile(String namespace, String name) {
    String key = namespace + "/" + name; // the informer's key
    GenericKubernetesResource object = informer.getStore().getByKey(key);
    Optional<StatefulSet> mirrored = store.get(namespace, name);
    if (object == null) {
      mirrored.filter(set -> ClusterObjects.clusterUid(set).isPresent()).ifPresent(set -> delete(set, Propagation.BACKGROUND));
      return;
    }
    String uid = object.getMetadata().getUid();
    if (mirrored.isPresent() && ClusterObjects.clusterUid(mirrored.get()).isEmpty()) {
      writeStatus(object, null, condition(object, ACCEPTED, false, "NameTaken", "a StatefulSet " + key
          + " made through Ordinal's own API exists; Ordinal keeps it and does not run this one"));
      return;
    }
    if (mirrored.isPresent() && !ClusterObjects.clusterUid(mirrored.get()).get().equals(uid)) {
      delete(mirrored.get(), Propagation.BACKGROUND); // the set of an earlier object of this name
      return; // its removal comes back through the change feed, and this object is mirrored then
    }
    if (object.getMetadata().getDeletionTimestamp() != null) {
      mirrored.ifPresent(set -> delete(set, propagation(object.getMetadata())));
      return;
    }
    if (mirrored.isPresent() && mirrored.get().getMetadata().getDeletionTimestamp() != null) {
      return; // an earlier incarnation still going
    }
    ObjectNode accepted;
    try {
      StatefulSet written = write(object, mirrored);
      accepted = condition(object, ACCEPTED, true, "Mirrored", "Ordinal runs this StatefulSet");
      mirrored = Optional.of(written);
    } catch (ApiException e) {
      if (e.status().getCode() != 422 && e.status().getCode() != 400) {
        throw e;
      }
      accepted = condition(object, ACCEPTED, false, e.status().getReason(), e.status().getMessage());
    }
    writeStatus(object, mirrored.orElse(null), accepted);
  }

  private void delete(StatefulSet set, Propagation propagation) {
    if (set.getMetadata().getDeletionTimestamp() == null) {
      service.delete(set.getMetadata().getNamespace(), set.getMetadata().getName(),
          new Deletion(propagation, false, set.getMetadata().getUid(), null));
    }
  }

  /** How the cluster deletes the object, by the finalizer its garbage collector works under. */
  private static Propagation propagation(ObjectMeta meta) {
    List<String> finalizers = meta.getFinalizers() == null ? List.of() : meta.getFinalizers();
    return finalizers.contains("orphan") ? Propagation.ORPHAN
        : finalizers.contains("foregroundDeletion") ? Propagation.FOREGROUND : Propagation.BACKGROUND;
  }

  /**
   * Creates or updates Ordinal's set from the object, unless it says the same already. Its pods run
   * in the cluster, on the kubernetes driver, whatever the service's default: a cluster user who may
   * create these objects must not get processes on Ordinal's own machine (the local driver) with its
   * service account's rights.
   */
  private StatefulSet write(GenericKubernetesResource object, Optional<StatefulSet> mirrored) {
    List<FieldError> driverErrors = driverErrors(object.getMetadata());
    if (!driverErrors.isEmpty()) {
      throw ApiException.invalid(ClusterObjects.GROUP, ClusterObjects.KIND, object.getMetadata().getName(), driverErrors);
    }
    StatefulSet desired = toStatefulSet(object);
    if (mirrored.isEmpty()) {
      return service.create(desired.getMetadata().getNamespace(), desired, WRITE);
    }
    StatefulSet current = mirrored.get();
    String mirroredGeneration = Labels.annotation(current.getMetadata(), ClusterObjects.CLUSTER_GENERATION_ANNOTATION);
    if (mirroredGeneration != null && object.getMetadata().getGeneration() < Long.parseLong(mirroredGeneration)) {
      return current; // this informer is behind another instance's, which mirrored a newer generation
    }
    StatefulSet defaulted = KubeJson.copy(desired, StatefulSet.class);
    StatefulSetDefaults.apply(defaulted);
    boolean sameSpec = GoJson.same(KubeJson.JSON.valueToTree(defaulted.getSpec()),
        KubeJson.JSON.valueToTree(current.getSpec()), GoTypes.STATEFUL_SET_SPEC);
    if (sameSpec && Objects.equals(desired.getMetadata().getLabels(), current.getMetadata().getLabels())
        && Objects.equals(desired.getMetadata().getAnnotations(), current.getMetadata().getAnnotations())) {
      return current;
    }
    if (!sameSpec && String.valueOf(object.getMetadata().getGeneration()).equals(mirroredGeneration)) {
      follow(object, current);
      return current;
    }
    desired.getMetadata().setResourceVersion(null); // the cluster's object wins whatever Ordinal's copy is at
    return service.replace(current.getMetadata().getNamespace(), current.getMetadata().getName(), desired, WRITE);
  }

  /**
   * Ordinal changed the set's spec since it mirrored the object's generation (an automatic rollback,
   * a pause or undo through Ordinal's own API): the object takes that spec and change cause, as
   * {@code kubectl rollout undo} would have written them, instead of Ordinal's copy being put back to
   * the object's (which would roll a rolled-back set forward again). A newer generation of the object
   * wins over Ordinal's copy as before: the user's latest write is the intent.
   */
  private void follow(GenericKubernetesResource object, StatefulSet changed) {
    ObjectNode tree = KubeJson.JSON.valueToTree(object);
    tree.set("spec", KubeJson.JSON.valueToTree(changed.getSpec()));
    tree.remove("status");
    ObjectNode metadata = (ObjectNode) tree.get("metadata");
    ObjectNode annotations = metadata.has("annotations") ? (ObjectNode) metadata.get("annotations")
        : metadata.putObject("annotations");
    String cause = Labels.annotation(changed.getMetadata(), Labels.CHANGE_CAUSE_ANNOTATION);
    if (cause == null) {
      annotations.remove(Labels.CHANGE_CAUSE_ANNOTATION);
    } else {
      annotations.put(Labels.CHANGE_CAUSE_ANNOTATION, cause);
    }
    try {
      objects().inNamespace(object.getMetadata().getNamespace())
          .resource(KubeJson.JSON.convertValue(tree, GenericKubernetesResource.class)).update();
      log.info("cluster front door: {}/{} takes the spec Ordinal changed (generation {})",
          object.getMetadata().getNamespace(), object.getMetadata().getName(), object.getMetadata().getGeneration());
    } catch (KubernetesClientException e) {
      if (e.getCode() != 409) {
        throw e;
      }
      // The object changed meanwhile: the watch brings it, and its newer generation wins.
    }
  }

  /** A cluster's set may name no driver but the kubernetes one (see {@link #write}). */
  static List<FieldError> driverErrors(ObjectMeta meta) {
    String driver = Labels.annotation(meta, Labels.DRIVER_ANNOTATION);
    return driver == null || driver.equals(KubernetesDriver.NAME) ? List.of()
        : List.of(FieldError.notSupported("metadata.annotations[" + Labels.DRIVER_ANNOTATION + "]", driver,
            KubernetesDriver.NAME));
  }

  /** The object as an apps/v1 StatefulSet of Ordinal's: the same spec, labels and annotations. */
  static StatefulSet toStatefulSet(GenericKubernetesResource object) {
    ObjectNode tree = KubeJson.JSON.valueToTree(object);
    ObjectNode set = KubeJson.JSON.createObjectNode();
    set.put("apiVersion", "apps/v1");
    set.put("kind", "StatefulSet");
    ObjectMeta from = object.getMetadata();
    ObjectNode meta = set.putObject("metadata");
    meta.put("name", from.getName());
    meta.put("namespace", from.getNamespace());
    if (from.getLabels() != null) {
      meta.set("labels", KubeJson.JSON.valueToTree(from.getLabels()));
    }
    Map<String, String> annotations = new LinkedHashMap<>(from.getAnnotations() == null ? Map.of() : from.getAnnotations());
    annotations.remove("kubectl.kubernetes.io/last-applied-configuration"); // the cluster's business, and large
    annotations.put(Labels.DRIVER_ANNOTATION, KubernetesDriver.NAME);
    annotations.put(ClusterObjects.CLUSTER_UID_ANNOTATION, from.getUid());
    annotations.put(ClusterObjects.CLUSTER_GENERATION_ANNOTATION, String.valueOf(from.getGeneration()));
    meta.set("annotations", KubeJson.JSON.valueToTree(annotations));
    set.set("spec", tree.path("spec").deepCopy());
    return KubeJson.JSON.convertValue(set, StatefulSet.class);
  }

  /**
   * Writes the object's status from Ordinal's set ({@code null}: none yet), if it changed: the set's
   * status, its generation the cluster's, its selector as a string (the scale subresource's), and
   * the conditions.
   */
  private void writeStatus(GenericKubernetesResource object, StatefulSet set, ObjectNode accepted) {
    ObjectNode tree = KubeJson.JSON.valueToTree(object);
    JsonNode before = tree.path("status");
    ObjectNode status = set == null ? KubeJson.JSON.createObjectNode() : KubeJson.JSON.valueToTree(set.getStatus());
    status.remove("observedGeneration");
    status.remove("conditions");
    ArrayNode conditions = status.putArray("conditions");
    if (set != null) {
      boolean caughtUp = Objects.equals(set.getStatus().getObservedGeneration(), set.getMetadata().getGeneration());
      String sourceGeneration = Labels.annotation(set.getMetadata(), ClusterObjects.CLUSTER_GENERATION_ANNOTATION);
      if (caughtUp && sourceGeneration != null) {
        status.put("observedGeneration", Long.parseLong(sourceGeneration));
      } else if (before.has("observedGeneration")) {
        status.set("observedGeneration", before.get("observedGeneration"));
      }
      if (set.getSpec().getSelector() != null) {
        status.put("selector", LabelSelectors.format(set.getSpec().getSelector()));
      }
      KubeJson.JSON.<ArrayNode>valueToTree(Optional.ofNullable(set.getStatus().getConditions()).orElse(List.of()))
          .forEach(conditions::add);
      RolloutStatus rollout = rollouts.status(set);
      if (caughtUp) {
        conditions.add(condition(object, ROLLOUT_COMPLETE, rollout.done(), rollout.phase(), rollout.message()));
      }
    }
    conditions.add(accepted);
    keepTransitionTimes(conditions, before.path("conditions"));
    if (status.equals(before)) {
      return;
    }
    tree.set("status", status);
    GenericKubernetesResource updated = KubeJson.JSON.convertValue(tree, GenericKubernetesResource.class);
    try {
      objects().inNamespace(object.getMetadata().getNamespace()).resource(updated).updateStatus();
    } catch (KubernetesClientException e) {
      if (e.getCode() != 409) {
        throw e;
      }
      // The watch has not brought the newer object yet; when it does, it queues this set again.
    }
  }

  /** A condition of the object, stamped with the generation it speaks of (kubectl wait checks it). */
  private static ObjectNode condition(GenericKubernetesResource object, String type, boolean value, String reason,
      String message) {
    ObjectNode condition = KubeJson.JSON.createObjectNode();
    condition.put("type", type);
    condition.put("status", value ? "True" : "False");
    condition.put("observedGeneration", object.getMetadata().getGeneration());
    condition.put("lastTransitionTime", KubeJson.timestamp(Instant.now()));
    condition.put("reason", reason);
    condition.put("message", message);
    return condition;
  }

  /** A condition whose status did not change keeps the time it last changed (and the status no new write). */
  private static void keepTransitionTimes(ArrayNode conditions, JsonNode before) {
    for (JsonNode condition : conditions) {
      for (JsonNode old : before) {
        if (old.path("type").equals(condition.path("type")) && old.path("status").equals(condition.path("status"))
            && old.has("lastTransitionTime")) {
          ((ObjectNode) condition).set("lastTransitionTime", old.get("lastTransitionTime"));
        }
      }
    }
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
