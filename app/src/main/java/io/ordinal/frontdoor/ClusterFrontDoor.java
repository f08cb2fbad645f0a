package io.ordinal.frontdoor;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.fabric8.kubernetes.api.model.ManagedFieldsEntry;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.ControllerRevision;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.MixedOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.micronaut.context.annotation.Requires;
import io.micronaut.context.annotation.Value;
import io.micronaut.context.event.StartupEvent;
import io.micronaut.runtime.event.annotation.EventListener;
import io.ordinal.api.RolloutService;
import io.ordinal.api.StatefulSetService;
import io.ordinal.api.registry.Deletion;
import io.ordinal.api.registry.WriteOptions;
import io.ordinal.api.statefulset.RolloutStatus;
import io.ordinal.api.statefulset.StatefulSetDefaults;
import io.ordinal.api.statefulset.StatefulSetValidation;
import io.ordinal.apimachinery.ApiException;
import io.ordinal.apimachinery.ChangeFeed;
import io.ordinal.apimachinery.FieldError;
import io.ordinal.cluster.ClusterObjects;
import io.ordinal.cluster.KubernetesDriver;
import io.ordinal.cluster.WorkQueue;
import io.ordinal.driver.DriverRegistry;
import io.ordinal.kube.GoJson;
import io.ordinal.kube.GoTypes;
import io.ordinal.kube.LabelSelectors;
import io.ordinal.kube.Labels;
import io.ordinal.kube.MemberOverrides;
import io.ordinal.request.User;
import io.ordinal.store.ControllerRevisionRow;
import io.ordinal.store.EventRecorder;
import io.ordinal.store.KubeJson;
import io.ordinal.store.PodStore;
import io.ordinal.store.RevisionStore;
import io.ordinal.store.StatefulSetStore.Propagation;
import io.ordinal.store.StatefulSetStore;
import io.ordinal.store.WatchLog;
import io.ordinal.workflow.AdoptionPlan;
import jakarta.annotation.PreDestroy;
import jakarta.inject.Singleton;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.stream.Stream;
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
 *
 * <p>With {@code ordinal.kubernetes.statefulset-controller} (for a cluster whose controller manager
 * runs without its own, {@code --controllers=*,-statefulset-controller}) the cluster's apps/v1
 * StatefulSets are Ordinal's too, in the same way, so kubectl's rollout verbs, Helm and every tool
 * work on the built-in kind: a set that already runs is taken over with its pods, claims and
 * revisions as they are ({@link RunningPods}), nothing restarted; new pods are owned by the apps/v1
 * object; Ordinal's revisions are mirrored as the object's ControllerRevisions (what {@code kubectl
 * rollout history/undo} read); its status is upstream's fields only. When both objects of one name
 * exist, the one mirrored already (else the older) is run and the other told so.
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
  private static final String STATEFUL_SET_STATUS = "k8s.io/api/apps/v1.StatefulSetStatus";
  private static final String REVISION_MISMATCH = "RevisionMismatch";
  private static final String TAKE_OVER = "take-over";
  private static final String UPSTREAM_MANAGER = "kube-controller-manager";
  private static final WriteOptions WRITE = new WriteOptions(false, FIELD_MANAGER, false, User.ANONYMOUS);

  private final KubernetesClient client;
  private final StatefulSetService service;
  private final StatefulSetStore store;
  private final RolloutService rollouts;
  private final ChangeFeed changes;
  private final RunningPods running;
  private final RevisionStore revisions;
  private final DriverRegistry drivers;
  private final EventRecorder events;
  private final OperationSteps steps;
  /** Whether Ordinal is the cluster's StatefulSet controller (runs its apps/v1 objects). */
  private final boolean builtin;
  private final WorkQueue queue;
  /** The watched kinds' objects by apiVersion: apps.ordinal.io/v1, and apps/v1 when {@link #builtin}. */
  private final Map<String, SharedIndexInformer<GenericKubernetesResource>> informers = new ConcurrentHashMap<>();
  private volatile SharedIndexInformer<ControllerRevision> clusterRevisions;
  private volatile boolean watching;
  /** The upstream status write each apps/v1 object (by uid) was last warned of. */
  private final Map<String, String> conflictsSaid = new ConcurrentHashMap<>();

  public ClusterFrontDoor(KubernetesClient client, StatefulSetService service, StatefulSetStore store,
      RolloutService rollouts, ChangeFeed changes, RunningPods running, RevisionStore revisions, DriverRegistry drivers,
      EventRecorder events, OperationSteps steps, @Value("${ordinal.kubernetes.statefulset-controller:false}") boolean builtin) {
    this.client = client;
    this.service = service;
    this.store = store;
    this.rollouts = rollouts;
    this.changes = changes;
    this.running = running;
    this.revisions = revisions;
    this.drivers = drivers;
    this.events = events;
    this.steps = steps;
    this.builtin = builtin;
    this.queue = new WorkQueue("cluster-statefulsets", 2, this::reconcile);
  }

  @EventListener
  void start(StartupEvent event) {
    Thread.ofPlatform().daemon().name("cluster-front-door").start(this::open);
  }

  /** Installs the CRD (if allowed; else it must be installed already) and starts watching it (and apps/v1). */
  private void open() {
    installDefinition();
    watch(ClusterObjects.API_VERSION);
    if (builtin) {
      watch(ClusterObjects.BUILTIN_API_VERSION);
      clusterRevisions = retried("apps/v1 ControllerRevisions", () -> client.apps().controllerRevisions().inAnyNamespace()
          .inform(new Queuing<>(this::queueOwner), RESYNC_MS));
    }
    watching = true;
    changes.subscribe(this);
    // Sets mirrored from the cluster whose object went while Ordinal was away.
    store.list(null).stream().filter(set -> ClusterObjects.clusterUid(set).isPresent())
        .forEach(queue::add);
    log.info("cluster front door: watching {}", informers.keySet());
  }

  private void watch(String apiVersion) {
    informers.put(apiVersion, retried(apiVersion + " StatefulSets", () -> objects(apiVersion).inAnyNamespace()
        .inform(new Queuing<>(queue::add), RESYNC_MS)));
  }

  /** An informer's handler that passes every object it hears of (added, changed, deleted) on. */
  private record Queuing<T>(Consumer<T> to) implements ResourceEventHandler<T> {
    @Override
    public void onAdd(T object) {
      to.accept(object);
    }

    @Override
    public void onUpdate(T before, T object) {
      to.accept(object);
    }

    @Override
    public void onDelete(T object, boolean finalStateUnknown) {
      to.accept(object);
    }
  }

  /** A ControllerRevision an apps/v1 StatefulSet controls queues that set (Ordinal mirrors its history there). */
  private void queueOwner(ControllerRevision revision) {
    PodStore.controllerOf(revision.getMetadata().getOwnerReferences())
        .filter(owner -> ClusterObjects.BUILTIN_API_VERSION.equals(owner.getApiVersion()) && ClusterObjects.KIND.equals(owner.getKind()))
        .ifPresent(owner -> queue.add(revision.getMetadata().getNamespace(), owner.getName()));
  }

  private <T> SharedIndexInformer<T> retried(String what, Supplier<SharedIndexInformer<T>> start) {
    while (true) {
      try {
        return start.get();
      } catch (KubernetesClientException e) {
        log.warn("cluster front door: cannot watch {} yet ({}); retrying in 5 s", what, e.getMessage());
        sleep(5_000);
      }
    }
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
      } else if (builtin && "controllerrevisions".equals(change.resource())) {
        // Its set's history changed (a new revision, a number moved by an undo, one pruned): mirrored to the cluster.
        PodStore.controllerOf(change.object().getMetadata().getOwnerReferences())
            .ifPresent(owner -> queue.add(change.namespace(), owner.getName()));
      }
    }
  }

  @Override
  public void caughtUp(long resourceVersion) {}

  @PreDestroy
  void close() {
    changes.unsubscribe(this);
    queue.close();
    informers.values().forEach(SharedIndexInformer::close);
    if (clusterRevisions != null) {
      clusterRevisions.close();
    }
  }

  private MixedOperation<GenericKubernetesResource, GenericKubernetesResourceList, Resource<GenericKubernetesResource>> objects(
      String apiVersion) {
    return client.genericKubernetesResources(apiVersion, ClusterObjects.KIND);
  }

  private static boolean isBuiltin(GenericKubernetesResource object) {
    return ClusterObjects.BUILTIN_API_VERSION.equals(object.getApiVersion());
  }


  /** Brings Ordinal's set to the cluster object of that name, then the object's status to Ordinal's set. */
  void reconcile(String namespace, String name) {
    if (!watching) {
      throw new IllegalStateException("not watching the cluster's StatefulSets yet");
    }
    String key = namespace + "/" + name; // the informers' key
    Optional<StatefulSet> mirrored = store.get(namespace, name);
    if (!builtin && mirrored.filter(ClusterObjects::mirrorsBuiltin).isPresent()) {
      return; // Ordinal is no longer the cluster's StatefulSet controller: ClusterHandBack lets it go
    }
    List<GenericKubernetesResource> objects = informers.values().stream()
        .map(informer -> informer.getStore().getByKey(key)).filter(Objects::nonNull)
        .sorted(Comparator.comparing((GenericKubernetesResource o) -> o.getMetadata().getCreationTimestamp())
            .thenComparing(o -> isBuiltin(o) ? 1 : 0))
        .toList();
    if (mirrored.isPresent() && ClusterObjects.clusterUid(mirrored.get()).isEmpty()) {
      objects.forEach(object -> writeStatus(object, null, condition(object, ACCEPTED, false, "NameTaken", "a StatefulSet "
          + key + " made through Ordinal's own API exists; Ordinal keeps it and does not run this one")));
      return;
    }
    Optional<String> mirroredUid = mirrored.flatMap(ClusterObjects::clusterUid);
    GenericKubernetesResource object = mirroredUid.isPresent()
        ? objects.stream().filter(o -> o.getMetadata().getUid().equals(mirroredUid.get())).findFirst().orElse(null)
        : objects.stream().findFirst().orElse(null);
    if (object == null) {
      // The object went, or another of that name took its place: its set goes (and a successor is mirrored once it has).
      mirrored.ifPresent(set -> delete(set, propagationOfGone(set)));
      return;
    }
    objects.stream().filter(other -> other != object).forEach(other -> writeStatus(other, null, condition(other,
        ACCEPTED, false, "NameTaken", "the " + object.getApiVersion() + " StatefulSet " + key + " has this name too; "
            + "Ordinal runs that one")));
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
      if (e.status().getCode() != 422 && e.status().getCode() != 400 && !REVISION_MISMATCH.equals(e.status().getReason())) {
        throw e;
      }
      accepted = condition(object, ACCEPTED, false, e.status().getReason(), e.status().getMessage());
    }
    if (isBuiltin(object) && mirrored.isPresent()) {
      mirrorRevisions(object, mirrored.get());
      warnOfAnotherController(object, mirrored.get());
    }
    writeStatus(object, mirrored.orElse(null), accepted);
  }

  private void delete(StatefulSet set, Propagation propagation) {
    if (set.getMetadata().getDeletionTimestamp() == null) {
      service.delete(set.getMetadata().getNamespace(), set.getMetadata().getName(),
          new Deletion(propagation, false, set.getMetadata().getUid(), null));
    }
  }

  /**
   * How the cluster deleted the object {@code set} mirrors, when it is gone before Ordinal saw it go
   * (Ordinal was down, or its watch behind): orphaning, if the garbage collector took the object's
   * owner reference from its pods (it does that before the object goes); else in the background (its
   * pods still name the object, and the collector deletes them).
   */
  private Propagation propagationOfGone(StatefulSet set) {
    String uid = ClusterObjects.clusterUid(set).orElseThrow();
    List<Pod> pods = client.pods().inNamespace(set.getMetadata().getNamespace())
        .withLabelSelector(set.getSpec().getSelector()).list().getItems().stream()
        .filter(pod -> RunningPods.ordinal(pod, set.getMetadata().getName()) >= 0).toList();
    boolean owned = pods.stream().anyMatch(pod -> Objects.requireNonNullElse(pod.getMetadata().getOwnerReferences(),
        List.<OwnerReference>of()).stream().anyMatch(ref -> uid.equals(ref.getUid())));
    return !pods.isEmpty() && !owned ? Propagation.ORPHAN : Propagation.BACKGROUND;
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
      throw ApiException.invalid(group(object), ClusterObjects.KIND, object.getMetadata().getName(), driverErrors);
    }
    StatefulSet desired = toStatefulSet(object);
    if (mirrored.isEmpty()) {
      if (isBuiltin(object)) {
        takeOver(object, desired);
      }
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
    // Member overrides are in an annotation, which changes no generation: Ordinal changed them if the
    // object's are still those it mirrored.
    boolean oursOverridesDiffer = !Objects.equals(MemberOverrides.canonical(desired.getMetadata()),
        MemberOverrides.canonical(current.getMetadata()))
        && Objects.equals(Labels.annotation(desired.getMetadata(), ClusterObjects.CLUSTER_OVERRIDES_ANNOTATION),
            Labels.annotation(current.getMetadata(), ClusterObjects.CLUSTER_OVERRIDES_ANNOTATION));
    if ((!sameSpec || oursOverridesDiffer)
        && String.valueOf(object.getMetadata().getGeneration()).equals(mirroredGeneration)) {
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
    for (String key : List.of(Labels.CHANGE_CAUSE_ANNOTATION, MemberOverrides.ANNOTATION)) {
      String value = Labels.annotation(changed.getMetadata(), key);
      if (value == null) {
        annotations.remove(key);
      } else {
        annotations.put(key, value);
      }
    }
    try {
      if (isBuiltin(object)) { // Ordinal's own spec fields (a rolling update's paused) mean nothing to upstream's types
        tree.set("spec", GoJson.decodeEncode(tree.get("spec"), GoTypes.STATEFUL_SET_SPEC));
      }
      objects(object.getApiVersion()).inNamespace(object.getMetadata().getNamespace())
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

  /**
   * Before Ordinal first runs an apps/v1 set, what it already has is recorded as it runs: the pods it
   * controls (and orphans of its name its selector matches, as upstream's controller adopts them),
   * their claims, its revisions; they are marked as Ordinal's, and the set made next claims them, so
   * nothing is restarted. Refused (nothing recorded) for a spec Ordinal would refuse, and for a
   * template whose revision Ordinal would name otherwise than the controller before it did (its pods
   * would all be rolled).
   */
  private void takeOver(GenericKubernetesResource object, StatefulSet desired) {
    String namespace = object.getMetadata().getNamespace();
    String name = object.getMetadata().getName();
    StatefulSet asCreated = StatefulSetDefaults.apply(KubeJson.copy(desired, StatefulSet.class));
    asCreated.getMetadata().setGeneration(1L);
    List<FieldError> errors = StatefulSetValidation.validateCreate(asCreated, drivers.policy());
    if (!errors.isEmpty()) {
      throw ApiException.invalid(group(object), ClusterObjects.KIND, name, errors);
    }
    StatefulSet upstream = KubeJson.JSON.convertValue(object, StatefulSet.class);
    List<Pod> pods = running.controlledBy(namespace, object.getMetadata().getUid());
    List<Pod> orphans = client.pods().inNamespace(namespace).list().getItems().stream()
        .filter(pod -> PodStore.controllerOf(pod.getMetadata().getOwnerReferences()).isEmpty()
            && pod.getMetadata().getDeletionTimestamp() == null
            && LabelSelectors.matches(upstream.getSpec().getSelector(), Labels.labels(pod.getMetadata())))
        .toList();
    var status = upstream.getStatus();
    String ours = RevisionStore.revisionName(name, upstream.getSpec().getTemplate(), 0);
    if (!pods.isEmpty() && status != null && status.getUpdateRevision() != null
        && Objects.equals(status.getObservedGeneration(), object.getMetadata().getGeneration())
        && !ours.equals(status.getUpdateRevision())) {
      throw ApiException.of(409, REVISION_MISMATCH, "Ordinal names this template's revision " + ours
          + ", the controller before it named it " + status.getUpdateRevision() + ": every pod would be rolled, so "
          + "Ordinal does not take it over (its pods run on, without a controller)");
    }
    List<AdoptionPlan.Member> members = RunningPods.members(name,
        Stream.concat(pods.stream(), orphans.stream()).toList());
    steps.begin(TAKE_OVER, namespace, name, "record");
    running.record(namespace, name, object.getMetadata().getUid(), upstream.getSpec().getVolumeClaimTemplates(), members);
    steps.begin(TAKE_OVER, namespace, name, "mark");
    running.mark(namespace, name, members, ClusterObjects.controllerReference(ClusterObjects.BUILTIN_API_VERSION, name,
        object.getMetadata().getUid()));
    if (!members.isEmpty()) {
      log.info("cluster front door: took over apps/v1 StatefulSet {}/{} with its {} running pods", namespace, name,
          members.size());
    }
    steps.begin(TAKE_OVER, namespace, name, "create");
  }

  /**
   * Ordinal's history of an apps/v1 set as the object's ControllerRevisions in the cluster (upstream's
   * form: the template's labels and the hash label, the revision number, the data), which {@code kubectl
   * rollout history} and {@code undo} read and upstream's controller takes back as its own: each
   * revision made, each number moved, each one pruned.
   */
  private void mirrorRevisions(GenericKubernetesResource object, StatefulSet set) {
    String namespace = object.getMetadata().getNamespace();
    String uid = object.getMetadata().getUid();
    Map<String, ControllerRevision> inCluster = new LinkedHashMap<>();
    clusterRevisions.getStore().list().stream()
        .filter(r -> namespace.equals(r.getMetadata().getNamespace()) && OperationSteps.controlledBy(r, uid))
        .forEach(r -> inCluster.put(r.getMetadata().getName(), r));
    var cluster = client.apps().controllerRevisions().inNamespace(namespace);
    OwnerReference owner = ClusterObjects.controllerReference(ClusterObjects.BUILTIN_API_VERSION,
        object.getMetadata().getName(), uid);
    for (ControllerRevisionRow row : revisions.history(namespace, set.getMetadata().getName())) {
      ControllerRevision there = inCluster.remove(row.name());
      if (there == null) {
        ControllerRevision revision = revisions.get(namespace, row.name())
            .map(r -> ClusterObjects.revisionForCluster(r, row, owner)).orElse(null);
        if (revision != null) {
          try {
            cluster.resource(revision).create();
          } catch (KubernetesClientException e) {
            if (e.getCode() != 409) {
              throw e;
            }
            // One of that name, not this object's (left by a release): it is taken as this one's.
            cluster.withName(row.name()).edit(r -> {
              r.getMetadata().setOwnerReferences(revision.getMetadata().getOwnerReferences());
              r.setRevision(row.revision());
              return r;
            });
          }
        }
      } else if (there.getRevision() != row.revision()) {
        cluster.withName(row.name()).edit(r -> {
          r.setRevision(row.revision());
          return r;
        });
      }
    }
    inCluster.values().forEach(pruned -> cluster.resource(pruned).delete());
  }

  /**
   * kube-controller-manager wrote the object's status after Ordinal took it over: its StatefulSet
   * controller is on too, and two controllers of one set fight over its pods. Said once per write, as a
   * Warning event on the set (and in the log); Ordinal cannot stop the other one.
   */
  private void warnOfAnotherController(GenericKubernetesResource object, StatefulSet set) {
    statusWrittenByUpstream(object, KubeJson.instant(set.getMetadata().getCreationTimestamp())).ifPresent(time -> {
      if (!time.equals(conflictsSaid.put(object.getMetadata().getUid(), time))) {
        events.record(set.getMetadata().getNamespace(), ClusterObjects.KIND, set.getMetadata().getName(),
            set.getMetadata().getUid(), EventRecorder.WARNING, "ControllerConflict", UPSTREAM_MANAGER + " wrote this "
                + "StatefulSet's status at " + time + ", after Ordinal took it over: its StatefulSet controller runs too. "
                + "Start it with --controllers=*,-statefulset-controller, or start Ordinal without "
                + "ORDINAL_KUBERNETES_STATEFULSET_CONTROLLER to hand the set back.");
      }
    });
  }

  /** When upstream's controller last wrote the object's status, if that was after {@code since} (its time: seconds). Pure. */
  static Optional<String> statusWrittenByUpstream(GenericKubernetesResource object, Instant since) {
    return Optional.ofNullable(object.getMetadata().getManagedFields()).orElse(List.of()).stream()
        .filter(entry -> UPSTREAM_MANAGER.equals(entry.getManager()) && "status".equals(entry.getSubresource())
            && entry.getTime() != null && KubeJson.instant(entry.getTime()).isAfter(since.plusSeconds(1)))
        .map(ManagedFieldsEntry::getTime).findFirst();
  }

  private static String group(GenericKubernetesResource object) {
    return isBuiltin(object) ? "apps" : ClusterObjects.GROUP;
  }

  /** A cluster's set may name no driver but the kubernetes one (see {@link #write}). */
  static List<FieldError> driverErrors(ObjectMeta meta) {
    String driver = Labels.annotation(meta, Labels.DRIVER_ANNOTATION);
    return driver == null || driver.equals(KubernetesDriver.NAME) ? List.of()
        : List.of(FieldError.notSupported("metadata.annotations[" + Labels.DRIVER_ANNOTATION + "]", driver,
            KubernetesDriver.NAME));
  }

  /** A short digest of member overrides ({@link MemberOverrides#canonical}; "" for none). */
  private static String digest(String overrides) {
    if (overrides == null) {
      return "";
    }
    try {
      byte[] sum = java.security.MessageDigest.getInstance("SHA-256").digest(overrides.getBytes(StandardCharsets.UTF_8));
      return java.util.HexFormat.of().formatHex(sum, 0, 8);
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
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
    annotations.put(ClusterObjects.CLUSTER_OVERRIDES_ANNOTATION, digest(MemberOverrides.canonical(from)));
    if (isBuiltin(object)) {
      annotations.put(ClusterObjects.CLUSTER_API_VERSION_ANNOTATION, ClusterObjects.BUILTIN_API_VERSION);
    }
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
    ObjectNode status = set != null ? KubeJson.JSON.valueToTree(set.getStatus())
        : isBuiltin(object) && before.isObject() ? before.deepCopy() // not Ordinal's: the status it has stands
        : KubeJson.JSON.createObjectNode();
    status.remove("conditions");
    ArrayNode conditions = status.putArray("conditions");
    if (set != null) {
      status.remove("observedGeneration");
      boolean caughtUp = Objects.equals(set.getStatus().getObservedGeneration(), set.getMetadata().getGeneration());
      if (isBuiltin(object) && !caughtUp) {
        return; // the status the object has (upstream's, at a take-over) stands until Ordinal's speaks of this spec
      }
      String sourceGeneration = Labels.annotation(set.getMetadata(), ClusterObjects.CLUSTER_GENERATION_ANNOTATION);
      if (caughtUp && sourceGeneration != null) {
        status.put("observedGeneration", Long.parseLong(sourceGeneration));
      } else if (before.has("observedGeneration")) {
        status.set("observedGeneration", before.get("observedGeneration"));
      }
      if (set.getSpec().getSelector() != null && !isBuiltin(object)) {
        status.put("selector", LabelSelectors.format(set.getSpec().getSelector()));
      }
      KubeJson.JSON.<ArrayNode>valueToTree(Optional.ofNullable(set.getStatus().getConditions()).orElse(List.of()))
          .forEach(conditions::add);
      if (caughtUp && !isBuiltin(object)) { // kubectl rollout status decides it for apps/v1 from upstream's fields
        RolloutStatus rollout = rollouts.status(set);
        conditions.add(condition(object, ROLLOUT_COMPLETE, rollout.done(), rollout.phase(), rollout.message()));
      }
    }
    if (!isBuiltin(object) || "False".equals(accepted.path("status").asText())) {
      conditions.add(accepted); // upstream's controller writes no conditions: an apps/v1 object gets only a refusal
    }
    keepTransitionTimes(conditions, before.path("conditions"));
    if (isBuiltin(object)) { // upstream's fields, as its Go type writes them
      if (conditions.isEmpty()) {
        status.remove("conditions");
      }
      JsonNode collisions = status.path("collisionCount");
      if (before.has("collisionCount") && (!collisions.isInt() || collisions.asInt() < before.get("collisionCount").asInt())) {
        status.set("collisionCount", before.get("collisionCount")); // never decremented (the API refuses it)
      }
      status = GoJson.decodeEncode(status, STATEFUL_SET_STATUS);
    }
    if (status.equals(before)) {
      return;
    }
    tree.set("status", status);
    GenericKubernetesResource updated = KubeJson.JSON.convertValue(tree, GenericKubernetesResource.class);
    try {
      objects(object.getApiVersion()).inNamespace(object.getMetadata().getNamespace()).resource(updated).updateStatus();
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
