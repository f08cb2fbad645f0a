package io.ordinal.frontdoor;

import static io.ordinal.frontdoor.OperationSteps.controlledBy;
import static io.ordinal.frontdoor.OperationSteps.refused;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.DeletionPropagation;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.ControllerRevision;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.micronaut.context.annotation.Requires;
import io.ordinal.cluster.ClusterObjects;
import io.ordinal.cluster.KubernetesDriver;
import io.ordinal.kube.GoJson;
import io.ordinal.kube.GoTypes;
import io.ordinal.kube.Labels;
import io.ordinal.kube.MemberOverrides;
import io.ordinal.kube.ReservedOrdinals;
import io.ordinal.store.KubeJson;
import io.ordinal.store.PodRow;
import io.ordinal.store.PodStore;
import io.ordinal.store.RevisionStore;
import io.ordinal.store.StatefulSetStore;
import io.ordinal.workflow.AdoptionPlan;
import io.ordinal.workflow.ReleaseActivities;
import io.ordinal.workflow.ReleasePlan;
import jakarta.inject.Singleton;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Handing a set Ordinal runs in the cluster back to upstream's StatefulSet controller (the steps of
 * ReleaseWorkflow), the reverse of {@link ClusterAdoption}: its revisions are written as unowned
 * ControllerRevisions, the apps.ordinal.io object is deleted with its pods orphaned, the pods and
 * claims lose Ordinal's marks and records, and an apps/v1 object of the same spec takes them, as
 * upstream's controller adopts orphans. It names the template's revision as Ordinal did, so every pod
 * is current and none is replaced.
 */
@Singleton
@Requires(beans = KubernetesClient.class)
public class ClusterRelease implements ReleaseActivities {
  /** On the apps/v1 object: the uid of the apps.ordinal.io object it took over from. */
  static final String RELEASED_FROM_ANNOTATION = ClusterObjects.GROUP + "/released-from";
  /** Ordinal's own annotations, which the apps/v1 successor does not carry. */
  private static final List<String> ORDINALS = List.of(ClusterObjects.CLUSTER_UID_ANNOTATION,
      ClusterObjects.CLUSTER_GENERATION_ANNOTATION, ClusterObjects.CLUSTER_OVERRIDES_ANNOTATION,
      ClusterAdoption.ADOPTED_FROM_ANNOTATION, Labels.DRIVER_ANNOTATION,
      "kubectl.kubernetes.io/last-applied-configuration");

  private final KubernetesClient client;
  private final StatefulSetStore sets;
  private final PodStore podStore;
  private final RunningPods running;
  private final RevisionStore revisions;
  private final OperationSteps steps;

  public ClusterRelease(KubernetesClient client, StatefulSetStore sets, PodStore podStore, RunningPods running,
      RevisionStore revisions, OperationSteps steps) {
    this.steps = steps;
    this.client = client;
    this.sets = sets;
    this.podStore = podStore;
    this.running = running;
    this.revisions = revisions;
  }

  @Override
  public ReleasePlan planRelease(String namespace, String name) {
    steps.begin("release", namespace, name, "planRelease");
    StatefulSet set = sets.get(namespace, name).orElseThrow(() -> refused("Ordinal has no StatefulSet " + namespace
        + "/" + name));
    Optional<String> objectUid = ClusterObjects.clusterUid(set);
    if (objectUid.isEmpty()) {
      throw refused("StatefulSet " + namespace + "/" + name + " was made through Ordinal's own API, not from the "
          + "cluster's " + ClusterObjects.API_VERSION + " object: there is nothing to hand back");
    }
    if (client.apps().statefulSets().inNamespace(namespace).withName(name).get() != null) {
      throw refused("the cluster has an apps/v1 StatefulSet " + namespace + "/" + name + " already");
    }
    List<String> refusals = refusals(set);
    if (!refusals.isEmpty()) {
      throw refused("StatefulSet " + namespace + "/" + name + " cannot be handed back without restarting a pod: "
          + String.join("; ", refusals));
    }
    List<AdoptionPlan.Member> members = new ArrayList<>();
    for (PodRow row : podStore.ofSet(namespace, name)) {
      Pod pod = client.pods().inNamespace(namespace).withName(row.name()).get();
      if (pod == null || !row.uid().equals(Labels.annotation(pod.getMetadata(), ClusterObjects.POD_UID_ANNOTATION))) {
        throw refused("pod " + row.name() + " is not in the cluster as Ordinal runs it");
      }
      members.add(new AdoptionPlan.Member(row.name(), row.ordinal(), pod.getMetadata().getUid()));
    }
    return new ReleasePlan(namespace, name, objectUid.get(), set.getStatus().getUpdateRevision(), members,
        KubeJson.write(successor(set, objectUid.get())));
  }

  /** Why the set cannot be handed back as it runs, none if it can (as an adoption's, from Ordinal's side). */
  private List<String> refusals(StatefulSet set) {
    List<String> refusals = new ArrayList<>();
    var status = set.getStatus();
    int replicas = Objects.requireNonNullElse(set.getSpec().getReplicas(), 1);
    if (set.getMetadata().getDeletionTimestamp() != null) {
      refusals.add("it is being deleted");
    }
    if (!ReservedOrdinals.of(set.getMetadata()).isEmpty()) {
      refusals.add("it reserves ordinals (" + ReservedOrdinals.ANNOTATION + "), which upstream's controller does not"
          + " know: it would delete the pods above its range; remove the annotation first");
    }
    if (MemberOverrides.canonical(set.getMetadata()) != null) {
      refusals.add("it has member overrides (" + MemberOverrides.ANNOTATION + "), which upstream's controller does not"
          + " know: it would give every pod the set's template; remove the annotation and let the rollout finish first");
    }
    if (!Objects.equals(status.getObservedGeneration(), set.getMetadata().getGeneration())) {
      refusals.add("its controller has not observed generation " + set.getMetadata().getGeneration() + " yet");
    }
    if (!Objects.equals(status.getCurrentRevision(), status.getUpdateRevision())) {
      refusals.add("a rollout is in progress (from " + status.getCurrentRevision() + " to " + status.getUpdateRevision() + ")");
    }
    List<PodRow> rows = podStore.ofSet(set.getMetadata().getNamespace(), set.getMetadata().getName());
    int ready = Objects.requireNonNullElse(status.getReadyReplicas(), 0);
    if (rows.size() != replicas || ready != replicas) {
      refusals.add("not all " + replicas + " pods are there and Ready (" + rows.size() + " pods, " + ready + " Ready)");
    }
    for (PodRow row : rows) {
      if (!KubernetesDriver.NAME.equals(row.driver())) {
        refusals.add("pod " + row.name() + " runs on the " + row.driver() + " driver, not in the cluster");
      }
      if (!Objects.equals(row.revision(), status.getUpdateRevision())) {
        refusals.add("pod " + row.name() + " runs revision " + row.revision());
      }
      if (row.terminating() || !row.ready()) {
        refusals.add("pod " + row.name() + (row.terminating() ? " is being deleted" : " is not Ready"));
      }
    }
    return refusals;
  }

  /** The apps/v1 object that takes the set's place: its labels, annotations (but Ordinal's own) and spec as Go reads it. */
  static StatefulSet successor(StatefulSet set, String objectUid) {
    ObjectNode object = KubeJson.JSON.createObjectNode();
    object.put("apiVersion", "apps/v1");
    object.put("kind", "StatefulSet");
    ObjectNode meta = object.putObject("metadata");
    meta.put("name", set.getMetadata().getName());
    meta.put("namespace", set.getMetadata().getNamespace());
    if (set.getMetadata().getLabels() != null) {
      meta.set("labels", KubeJson.JSON.valueToTree(set.getMetadata().getLabels()));
    }
    Map<String, String> annotations = new LinkedHashMap<>(
        Objects.requireNonNullElse(set.getMetadata().getAnnotations(), Map.of()));
    ORDINALS.forEach(annotations::remove);
    annotations.put(RELEASED_FROM_ANNOTATION, objectUid);
    meta.set("annotations", KubeJson.JSON.valueToTree(annotations));
    // Ordinal's own spec fields (a rolling update's paused) mean nothing to upstream's types.
    object.set("spec", GoJson.decodeEncode(KubeJson.JSON.valueToTree(set.getSpec()), GoTypes.STATEFUL_SET_SPEC));
    return KubeJson.JSON.convertValue(object, StatefulSet.class);
  }

  @Override
  public void writeRevisions(ReleasePlan plan) {
    steps.begin("release", plan.namespace(), plan.name(), "writeRevisions");
    var cluster = client.apps().controllerRevisions().inNamespace(plan.namespace());
    for (ControllerRevision revision : revisions.list(plan.namespace())) {
      String owner = revision.getMetadata().getOwnerReferences() == null ? null
          : revision.getMetadata().getOwnerReferences().getFirst().getName();
      if (!plan.name().equals(owner) || cluster.withName(revision.getMetadata().getName()).get() != null) {
        continue;
      }
      String name = revision.getMetadata().getName();
      ControllerRevision unowned = ClusterObjects.revisionForCluster(revision, revisions.find(plan.namespace(), name)
          .orElseThrow(() -> new IllegalStateException("revision " + name + " went meanwhile")), null);
      try {
        cluster.resource(unowned).create();
      } catch (KubernetesClientException e) {
        if (e.getCode() != 409) {
          throw e;
        }
      }
    }
  }

  @Override
  public void orphanOrdinal(ReleasePlan plan) {
    steps.begin("release", plan.namespace(), plan.name(), "orphanOrdinal");
    var objects = client.genericKubernetesResources(ClusterObjects.API_VERSION, ClusterObjects.KIND)
        .inNamespace(plan.namespace());
    GenericKubernetesResource object = objects.withName(plan.name()).get();
    if (object != null && plan.objectUid().equals(object.getMetadata().getUid())
        && object.getMetadata().getDeletionTimestamp() == null) {
      StatefulSet set = sets.get(plan.namespace(), plan.name()).orElse(null);
      List<String> refusals = set == null ? List.of("Ordinal's set is gone") : refusals(set);
      if (!refusals.isEmpty() || !plan.revision().equals(set.getStatus().getUpdateRevision())) {
        throw refused("StatefulSet " + plan.namespace() + "/" + plan.name() + " changed since it was found ready to "
            + "hand back: " + String.join("; ", refusals));
      }
      objects.resource(object).withPropagationPolicy(DeletionPropagation.ORPHAN).delete();
    }
    OperationSteps.await(() -> {
      GenericKubernetesResource left = objects.withName(plan.name()).get();
      boolean objectGone = left == null || !plan.objectUid().equals(left.getMetadata().getUid());
      return objectGone && sets.get(plan.namespace(), plan.name()).isEmpty() ? Optional.<String>empty()
          : Optional.of("the " + ClusterObjects.API_VERSION + " StatefulSet " + plan.namespace() + "/" + plan.name()
              + " and Ordinal's set of it to be deleted");
    });
  }

  @Override
  public void detach(ReleasePlan plan) {
    steps.begin("release", plan.namespace(), plan.name(), "detach");
    running.forget(plan.namespace(), plan.name());
  }

  @Override
  public String createUpstream(ReleasePlan plan) {
    steps.begin("release", plan.namespace(), plan.name(), "createUpstream");
    var objects = client.apps().statefulSets().inNamespace(plan.namespace());
    StatefulSet existing = objects.withName(plan.name()).get();
    if (existing != null) {
      if (!plan.objectUid().equals(Labels.annotation(existing.getMetadata(), RELEASED_FROM_ANNOTATION))) {
        throw refused("an apps/v1 StatefulSet " + plan.namespace() + "/" + plan.name()
            + " that this release did not make exists; the pods wait, unowned, for it or another to adopt them");
      }
      return existing.getMetadata().getUid();
    }
    return objects.resource(KubeJson.read(plan.successor(), StatefulSet.class)).create().getMetadata().getUid();
  }

  @Override
  public void awaitUpstream(ReleasePlan plan, String uid) {
    steps.begin("release", plan.namespace(), plan.name(), "awaitUpstream");
    OperationSteps.await(() -> {
      StatefulSet set = client.apps().statefulSets().inNamespace(plan.namespace()).withName(plan.name()).get();
      if (set == null || set.getStatus() == null) {
        return Optional.of("the apps/v1 StatefulSet");
      }
      var status = set.getStatus();
      List<String> waiting = plan.pods().stream().filter(member -> {
        Pod pod = client.pods().inNamespace(plan.namespace()).withName(member.name()).get();
        return pod == null || !member.uid().equals(pod.getMetadata().getUid()) || !controlledBy(pod, uid);
      }).map(AdoptionPlan.Member::name).toList();
      if (waiting.isEmpty() && Objects.equals(status.getObservedGeneration(), set.getMetadata().getGeneration())
          && plan.revision().equals(status.getCurrentRevision()) && plan.revision().equals(status.getUpdateRevision())
          && Objects.equals(status.getReadyReplicas(), plan.pods().size())) {
        return Optional.empty();
      }
      return Optional.of(waiting.isEmpty() ? "its status to say it is current at " + plan.revision()
          : "upstream's controller to adopt " + waiting);
    });
  }


}
