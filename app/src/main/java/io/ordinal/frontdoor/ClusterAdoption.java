package io.ordinal.frontdoor;

import static io.ordinal.frontdoor.OperationSteps.controlledBy;
import static io.ordinal.frontdoor.OperationSteps.refused;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.micronaut.context.annotation.Requires;
import io.ordinal.api.statefulset.StatefulSetDefaults;
import io.ordinal.api.statefulset.StatefulSetValidation;
import io.ordinal.cluster.ClusterObjects;
import io.ordinal.driver.DriverRegistry;
import io.ordinal.kube.MemberOverrides;
import io.ordinal.kube.LabelSelectors;
import io.ordinal.kube.Labels;
import io.ordinal.kube.ReservedOrdinals;
import io.ordinal.kube.StatefulSetFields;
import io.ordinal.store.ControllerRevisionRow;
import io.ordinal.store.KubeJson;
import io.ordinal.store.PodStore;
import io.ordinal.store.Repositories;
import io.ordinal.store.RevisionStore;
import io.ordinal.store.StatefulSetStore;
import io.ordinal.workflow.AdoptionActivities;
import io.ordinal.workflow.AdoptionPlan;
import jakarta.inject.Singleton;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Taking over a running apps/v1 StatefulSet of the cluster (the steps of AdoptionWorkflow): Ordinal
 * records its pods, claims and revisions as they are, the apps/v1 object is deleted with its pods
 * orphaned, an apps.ordinal.io object of the same spec takes its place, and the pods are handed to
 * it. No pod is deleted or created: the revision Ordinal names the template is the one upstream's
 * controller named, so every pod is current.
 */
@Singleton
@Requires(beans = KubernetesClient.class)
public class ClusterAdoption implements AdoptionActivities {
  /** On the apps.ordinal.io object: the uid of the apps/v1 object it took over. */
  static final String ADOPTED_FROM_ANNOTATION = ClusterObjects.GROUP + "/adopted-from";

  private final KubernetesClient client;
  private final StatefulSetStore sets;
  private final RunningPods running;
  private final Repositories.Pods pods;
  private final Repositories.Pvcs claims;
  private final Repositories.ControllerRevisions revisionRows;
  private final RevisionStore revisions;
  private final DriverRegistry drivers;
  private final OperationSteps steps;

  public ClusterAdoption(KubernetesClient client, StatefulSetStore sets, RunningPods running, Repositories.Pods pods,
      Repositories.Pvcs claims, Repositories.ControllerRevisions revisionRows, RevisionStore revisions, DriverRegistry drivers,
      OperationSteps steps) {
    this.steps = steps;
    this.client = client;
    this.sets = sets;
    this.running = running;
    this.pods = pods;
    this.claims = claims;
    this.revisionRows = revisionRows;
    this.revisions = revisions;
    this.drivers = drivers;
  }

  @Override
  public AdoptionPlan plan(String namespace, String name) {
    steps.begin("adoption", namespace, name, "plan");
    StatefulSet set = client.apps().statefulSets().inNamespace(namespace).withName(name).get();
    if (set == null) {
      throw refused("there is no apps/v1 StatefulSet " + namespace + "/" + name + " in the cluster");
    }
    if (sets.get(namespace, name).isPresent() || ordinalObject(namespace, name) != null) {
      throw refused("Ordinal has a StatefulSet " + namespace + "/" + name + " already");
    }
    List<Pod> owned = ownedPods(set);
    List<String> refusals = new ArrayList<>(refusals(set, owned,
        RevisionStore.revisionName(name, set.getSpec().getTemplate(), collisionCount(set))));
    // What the front door will write into Ordinal for the successor, checked now, before anything changes.
    GenericKubernetesResource successor = successor(set);
    GenericKubernetesResource asCreated = KubeJson.copy(successor, GenericKubernetesResource.class);
    asCreated.getMetadata().setUid(set.getMetadata().getUid());
    asCreated.getMetadata().setGeneration(1L);
    StatefulSet asOrdinals = StatefulSetDefaults.apply(ClusterFrontDoor.toStatefulSet(asCreated));
    Stream.concat(ClusterFrontDoor.driverErrors(successor.getMetadata()).stream(),
            StatefulSetValidation.validateCreate(asOrdinals, drivers.policy()).stream())
        .map(error -> "Ordinal does not accept it: " + error.describe()).forEach(refusals::add);
    if (!refusals.isEmpty()) {
      throw refused("StatefulSet " + namespace + "/" + name + " cannot be adopted without restarting a pod: "
          + String.join("; ", refusals));
    }
    return new AdoptionPlan(namespace, name, set.getMetadata().getUid(), set.getStatus().getUpdateRevision(),
        RunningPods.members(name, owned),
        KubeJson.write(successor));
  }

  /** The apps.ordinal.io object that takes {@code set}'s place: its labels, annotations and spec. */
  static GenericKubernetesResource successor(StatefulSet set) {
    ObjectNode object = KubeJson.JSON.createObjectNode();
    object.put("apiVersion", ClusterObjects.API_VERSION);
    object.put("kind", ClusterObjects.KIND);
    ObjectNode meta = object.putObject("metadata");
    meta.put("name", set.getMetadata().getName());
    meta.put("namespace", set.getMetadata().getNamespace());
    if (set.getMetadata().getLabels() != null) {
      meta.set("labels", KubeJson.JSON.valueToTree(set.getMetadata().getLabels()));
    }
    Map<String, String> annotations = new LinkedHashMap<>(
        Objects.requireNonNullElse(set.getMetadata().getAnnotations(), Map.of()));
    annotations.remove("kubectl.kubernetes.io/last-applied-configuration"); // of the apps/v1 object
    annotations.put(ADOPTED_FROM_ANNOTATION, set.getMetadata().getUid());
    meta.set("annotations", KubeJson.JSON.valueToTree(annotations));
    object.set("spec", KubeJson.JSON.valueToTree(set.getSpec()));
    return KubeJson.JSON.convertValue(object, GenericKubernetesResource.class);
  }

  /**
   * Why {@code set} cannot be taken over as it runs, none if it can: its controller has caught up,
   * no rollout or scale is in progress, every pod is Ready, current and matched by the selector, and
   * Ordinal names the template's revision as upstream did ({@code ordinalRevision}). Pure.
   */
  static List<String> refusals(StatefulSet set, List<Pod> owned, String ordinalRevision) {
    List<String> refusals = new ArrayList<>();
    var status = set.getStatus();
    long generation = Objects.requireNonNullElse(set.getMetadata().getGeneration(), 0L);
    int replicas = Objects.requireNonNullElse(set.getSpec().getReplicas(), 1);
    if (set.getMetadata().getDeletionTimestamp() != null) {
      refusals.add("it is being deleted");
    }
    if (MemberOverrides.canonical(set.getMetadata()) != null) {
      // Its pods were made by upstream's controller from the set's template alone: the overrides would roll them.
      refusals.add("it has member overrides (" + MemberOverrides.ANNOTATION + "), which its pods, made by upstream's"
          + " controller, do not have: remove the annotation, adopt the set, then add it (a rollout of those members)");
    }
    if (status == null || !Objects.equals(status.getObservedGeneration(), generation)) {
      refusals.add("its controller has not observed generation " + generation + " yet");
      return refusals;
    }
    if (!Objects.equals(status.getCurrentRevision(), status.getUpdateRevision())) {
      refusals.add("a rollout is in progress (from " + status.getCurrentRevision() + " to " + status.getUpdateRevision() + ")");
    }
    int ready = Objects.requireNonNullElse(status.getReadyReplicas(), 0);
    int updated = Objects.requireNonNullElse(status.getUpdatedReplicas(), 0);
    if (status.getReplicas() != replicas || ready != replicas || updated != replicas || owned.size() != replicas) {
      refusals.add("not all " + replicas + " pods are there, Ready and current (" + owned.size() + " pods, " + ready
          + " Ready, " + updated + " current)");
    }
    if (!Objects.equals(ordinalRevision, status.getUpdateRevision())) {
      refusals.add("Ordinal names its template's revision " + ordinalRevision + ", upstream's controller named it "
          + status.getUpdateRevision() + ": its pods would be rolled");
    }
    if (!ReservedOrdinals.of(set.getMetadata()).isEmpty()) {
      refusals.add("it reserves ordinals (" + ReservedOrdinals.ANNOTATION + "), which upstream's controller ignored:"
          + " Ordinal would delete and create pods at once; remove the annotation, adopt, then add it again");
    }
    int start = StatefulSetFields.ordinalStart(set);
    for (Pod pod : owned) {
      String podName = pod.getMetadata().getName();
      Map<String, String> labels = Objects.requireNonNullElse(pod.getMetadata().getLabels(), Map.of());
      if (!LabelSelectors.matches(set.getSpec().getSelector(), labels)) {
        refusals.add("pod " + podName + " does not match the selector");
      }
      if (!Objects.equals(labels.get(Labels.REVISION_HASH), status.getUpdateRevision())) {
        refusals.add("pod " + podName + " runs revision " + labels.get(Labels.REVISION_HASH));
      }
      if (pod.getMetadata().getDeletionTimestamp() != null) {
        refusals.add("pod " + podName + " is being deleted");
      }
      int ordinal = RunningPods.ordinal(pod, set.getMetadata().getName());
      if (ordinal < start || ordinal >= start + replicas) {
        refusals.add("pod " + podName + " is not one of the set's ordinals");
      }
      if (!RunningPods.ready(pod)) {
        refusals.add("pod " + podName + " is not Ready");
      }
    }
    return refusals;
  }

  @Override
  public void importRecords(AdoptionPlan plan) {
    steps.begin("adoption", plan.namespace(), plan.name(), "importRecords");
    StatefulSet set = current(plan).orElseThrow(() -> refused("StatefulSet " + plan.namespace() + "/" + plan.name()
        + " is gone or was replaced since it was found adoptable"));
    List<AdoptionPlan.Member> gone = running.record(plan.namespace(), plan.name(), plan.setUid(),
        set.getSpec().getVolumeClaimTemplates(), plan.pods());
    if (!gone.isEmpty()) {
      throw refused("pod " + gone.getFirst().name() + " was deleted or replaced since the set was found adoptable");
    }
  }

  @Override
  public void forgetRecords(AdoptionPlan plan) {
    steps.begin("adoption", plan.namespace(), plan.name(), "forgetRecords");
    if (sets.get(plan.namespace(), plan.name()).isPresent()) {
      return; // a set of Ordinal's took the records: they are its own now
    }
    for (AdoptionPlan.Member member : plan.pods()) {
      pods.deleteByIdAndUid(StatefulSetStore.id(plan.namespace(), member.name()), member.uid());
    }
    claims.findByNamespaceAndSetNameOrderByName(plan.namespace(), plan.name())
        .forEach(row -> claims.deleteByIdAndUid(row.id(), row.uid()));
    revisions.history(plan.namespace(), plan.name()).stream().map(ControllerRevisionRow::id)
        .forEach(revisionRows::deleteById);
  }

  @Override
  public void orphanUpstream(AdoptionPlan plan) {
    steps.begin("adoption", plan.namespace(), plan.name(), "orphanUpstream");
    var object = client.apps().statefulSets().inNamespace(plan.namespace()).withName(plan.name());
    StatefulSet set = object.get();
    if (set == null || !plan.setUid().equals(set.getMetadata().getUid())) {
      return; // gone: orphaned by an earlier attempt (or deleted by someone, its pods orphaned or going)
    }
    if (set.getMetadata().getDeletionTimestamp() == null) {
      List<String> refusals = refusals(set, ownedPods(set), plan.revision());
      if (!refusals.isEmpty()) {
        throw refused("StatefulSet " + plan.namespace() + "/" + plan.name() + " changed since it was found adoptable: "
            + String.join("; ", refusals));
      }
      client.apps().statefulSets().inNamespace(plan.namespace()).resource(set)
          .withPropagationPolicy(io.fabric8.kubernetes.api.model.DeletionPropagation.ORPHAN).delete();
    }
    OperationSteps.await(() -> Optional.ofNullable(object.get())
        .filter(left -> plan.setUid().equals(left.getMetadata().getUid()))
        .map(left -> "StatefulSet " + plan.namespace() + "/" + plan.name()
            + " to be deleted (the cluster's garbage collector orphans its pods first)"));
  }

  @Override
  public String createObject(AdoptionPlan plan) {
    steps.begin("adoption", plan.namespace(), plan.name(), "createObject");
    GenericKubernetesResource existing = ordinalObject(plan.namespace(), plan.name());
    if (existing != null) {
      if (!plan.setUid().equals(Labels.annotation(existing.getMetadata(), ADOPTED_FROM_ANNOTATION))) {
        throw refused("an " + ClusterObjects.API_VERSION + " StatefulSet " + plan.namespace() + "/" + plan.name()
            + " that this adoption did not make exists");
      }
      return existing.getMetadata().getUid();
    }
    GenericKubernetesResource successor = KubeJson.read(plan.successor(), GenericKubernetesResource.class);
    try {
      return client.genericKubernetesResources(ClusterObjects.API_VERSION, ClusterObjects.KIND)
          .inNamespace(plan.namespace()).resource(successor).create().getMetadata().getUid();
    } catch (KubernetesClientException e) {
      if (e.getCode() == 409) {
        throw new IllegalStateException("made meanwhile: looked at again", e); // the retry finds it
      }
      throw e;
    }
  }

  @Override
  public void moveOwnership(AdoptionPlan plan, String objectUid) {
    steps.begin("adoption", plan.namespace(), plan.name(), "moveOwnership");
    OwnerReference owner = ClusterObjects.controllerReference(ClusterObjects.API_VERSION, plan.name(), objectUid);
    running.mark(plan.namespace(), plan.name(), plan.pods(), owner);
  }

  @Override
  public void awaitControlled(AdoptionPlan plan) {
    steps.begin("adoption", plan.namespace(), plan.name(), "awaitControlled");
    OperationSteps.await(() -> {
      Optional<StatefulSet> set = sets.get(plan.namespace(), plan.name());
      if (set.isEmpty()) {
        refusedByTheFrontDoor(plan).ifPresent(why -> {
          throw refused("the " + ClusterObjects.API_VERSION + " StatefulSet " + plan.namespace() + "/" + plan.name()
              + " that took the pods over was refused (" + why + "): they run without a controller until it is "
              + "corrected, and then it takes them over as they are");
        });
        return Optional.of("Ordinal's StatefulSet to be made");
      }
      String uid = set.get().getMetadata().getUid();
      List<String> waiting = plan.pods().stream().filter(member -> pods.findById(StatefulSetStore.id(plan.namespace(),
              member.name())).filter(row -> row.uid().equals(member.uid()) && PodStore.controlledBy(row, uid)).isEmpty())
          .map(AdoptionPlan.Member::name).toList();
      var status = set.get().getStatus();
      if (waiting.isEmpty() && plan.revision().equals(status.getUpdateRevision())
          && Objects.equals(status.getObservedGeneration(), set.get().getMetadata().getGeneration())) {
        return Optional.empty();
      }
      return Optional.of(waiting.isEmpty() ? "its status" : "its controller to claim " + waiting);
    });
  }

  /** The message of the object's Accepted condition when it is False: the front door would not mirror it. */
  private Optional<String> refusedByTheFrontDoor(AdoptionPlan plan) {
    GenericKubernetesResource object = ordinalObject(plan.namespace(), plan.name());
    JsonNode conditions = object == null ? null : KubeJson.JSON.valueToTree(object).at("/status/conditions");
    if (conditions == null) {
      return Optional.empty();
    }
    for (JsonNode condition : conditions) {
      if (ClusterFrontDoor.ACCEPTED.equals(condition.path("type").asText()) && "False".equals(condition.path("status").asText())) {
        return Optional.of(condition.path("message").asText());
      }
    }
    return Optional.empty();
  }

  /** The pods the set controls (by its uid), as upstream's controller claims them. */
  private List<Pod> ownedPods(StatefulSet set) {
    return running.controlledBy(set.getMetadata().getNamespace(), set.getMetadata().getUid());
  }

  private Optional<StatefulSet> current(AdoptionPlan plan) {
    return Optional.ofNullable(client.apps().statefulSets().inNamespace(plan.namespace()).withName(plan.name()).get())
        .filter(set -> plan.setUid().equals(set.getMetadata().getUid()));
  }

  private GenericKubernetesResource ordinalObject(String namespace, String name) {
    try {
      return client.genericKubernetesResources(ClusterObjects.API_VERSION, ClusterObjects.KIND).inNamespace(namespace)
          .withName(name).get();
    } catch (KubernetesClientException e) {
      if (e.getCode() == 404) {
        return null; // the definition is not installed yet
      }
      throw e;
    }
  }


  private static int collisionCount(StatefulSet set) {
    return set.getStatus() == null || set.getStatus().getCollisionCount() == null ? 0 : set.getStatus().getCollisionCount();
  }

}
