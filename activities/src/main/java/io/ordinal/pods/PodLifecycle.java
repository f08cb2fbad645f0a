package io.ordinal.pods;

import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.micronaut.transaction.TransactionOperations;
import io.ordinal.driver.DriverPod;
import io.ordinal.driver.DriverRegistry;
import io.ordinal.kube.ClaimOwners;
import io.ordinal.kube.ClaimSizes;
import io.ordinal.kube.Labels;
import io.ordinal.kube.MemberHookSpec;
import io.ordinal.kube.PodFactory;
import io.ordinal.kube.StatefulSetFields;
import io.ordinal.model.PodSnapshot;
import io.ordinal.model.SetKey;
import io.ordinal.node.ThisNode;
import io.ordinal.podsecurity.PodSecurity;
import io.ordinal.podsecurity.PodSecurityAdmission;
import io.ordinal.store.ControllerRevisionRow;
import io.ordinal.store.EventRecorder;
import io.ordinal.store.KubeJson;
import io.ordinal.store.MemberStore;
import io.ordinal.store.PodRow;
import io.ordinal.store.PodStore;
import io.ordinal.store.PvcRow;
import io.ordinal.store.Repositories;
import io.ordinal.store.RevisionStore;
import io.ordinal.store.StatefulSetStore;
import io.temporal.failure.ApplicationFailure;
import jakarta.inject.Singleton;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * Creates and deletes a set's pods and claims: create if absent by deterministic name, delete if
 * present, each with its event, then hands the pod to its driver. Used by the pod activities and by
 * the API (a pod deleted by a user).
 */
@Singleton
public class PodLifecycle {
  /** Upstream's finalizer on every claim: it stays while a pod uses it. */
  public static final String PVC_PROTECTION = "kubernetes.io/pvc-protection";
  private final StatefulSetStore sets;
  private final RevisionStore revisions;
  private final PodStore pods;
  private final Repositories.Pvcs pvcs;
  private final EventRecorder events;
  private final DriverRegistry drivers;
  private final TransactionOperations<Connection> tx;
  private final PodSecurityAdmission podSecurity;
  private final MemberStore members;
  private final ThisNode node;

  public PodLifecycle(StatefulSetStore sets, RevisionStore revisions, PodStore pods, Repositories.Pvcs pvcs,
      EventRecorder events, DriverRegistry drivers, TransactionOperations<Connection> tx,
      PodSecurityAdmission podSecurity, MemberStore members, ThisNode node) {
    this.node = node;
    this.podSecurity = podSecurity;
    this.members = members;
    this.sets = sets;
    this.revisions = revisions;
    this.pods = pods;
    this.pvcs = pvcs;
    this.events = events;
    this.drivers = drivers;
    this.tx = tx;
  }

  /** Ensures the claims of pod {@code ordinal} exist, unless the set is gone or being deleted. */
  public void createClaims(SetKey key, int ordinal) {
    liveSet(key).ifPresent(set -> ensureClaims(set, ordinal));
  }

  /** Ensures pod {@code ordinal} exists at {@code revision} (its claims first) and starts it on its driver. */
  public void createPod(SetKey key, int ordinal, String revision) {
    createPods(key, Map.of(ordinal, revision));
  }

  /**
   * Ensures each pod (ordinal → revision) exists at its revision, in the map's order, as {@link
   * #createPod} does: the set and each revision are read once for all of them. A pod's template is its
   * revision's for its ordinal (with the member override that covers it).
   */
  public void createPods(SetKey key, Map<Integer, String> revisionByOrdinal) {
    Optional<StatefulSet> found = liveSet(key);
    if (found.isEmpty()) {
      return; // the set went away since the plan was made; the next plan sees it
    }
    Map<String, ControllerRevisionRow> read = new HashMap<>();
    revisionByOrdinal.forEach((ordinal, revision) -> createPod(found.get(), ordinal, revision,
        MemberTemplates.of(read.computeIfAbsent(revision, r -> revision(key, r)), ordinal)));
  }

  private ControllerRevisionRow revision(SetKey key, String name) {
    return revisions.find(key.namespace(), name)
        .orElseThrow(() -> ApplicationFailure.newFailure("no ControllerRevision " + name, "MissingRevision"));
  }

  private void createPod(StatefulSet set, int ordinal, String revision, PodTemplateSpec template) {
    SetKey key = new SetKey(set.getMetadata().getNamespace(), set.getMetadata().getName());
    ensureClaims(set, ordinal);
    PodRow created = insertPodIfAbsent(set, template, revision, ordinal);
    if (created != null && MemberHookSpec.of(set.getMetadata()).isPresent()) {
      members.join(key.namespace(), key.name(), ordinal); // a pod's ordinal is a member (it founded or joined)
    }
    if (created != null) {
      drivers.get(created.driver()).start(DriverPod.of(created));
    }
  }

  private Optional<StatefulSet> liveSet(SetKey key) {
    return sets.get(key.namespace(), key.name()).filter(set -> set.getMetadata().getDeletionTimestamp() == null);
  }

  private void ensureClaims(StatefulSet set, int ordinal) {
    String namespace = set.getMetadata().getNamespace();
    String setName = set.getMetadata().getName();
    for (PersistentVolumeClaim claim : PodFactory.claims(set, ordinal)) {
      String id = StatefulSetStore.id(namespace, claim.getMetadata().getName());
      Optional<PvcRow> existing = pvcs.findById(id);
      if (existing.isPresent()) {
        expand(set, existing.get()); // a claim kept while its ordinal was away grows with its template
        continue;
      }
      // As upstream's createPersistentVolumeClaims: owners by the retention policy, and the
      // protection finalizer its admission plugin adds.
      claim.getMetadata().setOwnerReferences(ClaimOwners.desired(List.of(), set, null, true));
      claim.getMetadata().setFinalizers(List.of(PVC_PROTECTION));
      // Its volume is a directory on the set's node, as a local volume is on the node upstream names here.
      drivers.nodeOf(set).ifPresent(node -> {
        Map<String, String> annotations = new LinkedHashMap<>(Labels.annotations(claim.getMetadata()));
        annotations.put(Labels.SELECTED_NODE_ANNOTATION, node);
        claim.getMetadata().setAnnotations(annotations);
      });
      String uid = UUID.randomUUID().toString();
      tx.executeWrite(status -> {
        pvcs.save(new PvcRow(id, namespace, claim.getMetadata().getName(), setName, ordinal, uid, KubeJson.write(claim),
            Instant.now(), Repositories.VERSION_ASSIGNED_BY_DATABASE, null));
        events.record(namespace, "StatefulSet", setName, set.getMetadata().getUid(), EventRecorder.NORMAL,
            "SuccessfulCreate", "create Claim " + claim.getMetadata().getName() + " Pod " + SetKey.podName(setName, ordinal)
                + " in StatefulSet " + setName + " success");
        return null;
      });
    }
  }

  /**
   * Volume expansion: when the claim's template now asks for more storage than the claim has, the
   * claim's request and capacity become the template's, with an event on the claim.
   */
  private void expand(StatefulSet set, PvcRow row) {
    if (!row.terminating()) {
      PersistentVolumeClaim claim = KubeJson.read(row.object(), PersistentVolumeClaim.class);
      write(set, row, claim, grow(set, row, claim));
    }
  }

  /** What growing {@code claim} in place to its template's storage did: the size before and after; null if none. */
  private record Growth(Quantity from, Quantity to) {}

  private static Growth grow(StatefulSet set, PvcRow row, PersistentVolumeClaim claim) {
    Optional<Quantity> grown = ClaimSizes.template(set, row.name(), row.ordinal()).flatMap(t -> ClaimSizes.grown(claim, t));
    if (grown.isEmpty()) {
      return null;
    }
    Quantity before = ClaimSizes.storage(claim).orElse(null);
    claim.getSpec().getResources().getRequests().put("storage", grown.get());
    if (claim.getStatus() != null) {
      Map<String, Quantity> capacity = new LinkedHashMap<>(
          claim.getStatus().getCapacity() == null ? Map.of() : claim.getStatus().getCapacity());
      capacity.put("storage", grown.get());
      claim.getStatus().setCapacity(capacity);
    }
    return new Growth(before, grown.get());
  }

  /** Stores a changed claim; a growth is told on the claim, with the driver's word on enforcing it. */
  private void write(StatefulSet set, PvcRow row, PersistentVolumeClaim claim, Growth growth) {
    tx.executeWrite(status -> {
      if (pvcs.updateObject(row.id(), row.uid(), KubeJson.write(claim)) > 0 && growth != null) {
        events.record(row.namespace(), "PersistentVolumeClaim", row.name(), row.uid(), EventRecorder.NORMAL,
            "VolumeResizeSuccessful", "expanded from " + growth.from() + " to " + growth.to()
                + " (volumeClaimTemplate of StatefulSet " + set.getMetadata().getName() + ")");
      }
      return null;
    });
    if (growth != null) {
      reportUnenforcedSize(set, row.name(), row.uid());
    }
  }

  /** Says plainly, on the claim, when its driver cannot hold its volume to the requested size. */
  private void reportUnenforcedSize(StatefulSet set, String claimName, String claimUid) {
    drivers.find(drivers.nameFor(set)).flatMap(d -> d.volumeSizeNotEnforced(set.getMetadata().getNamespace(), claimName))
        .ifPresent(why -> events.record(set.getMetadata().getNamespace(), "PersistentVolumeClaim", claimName, claimUid,
            EventRecorder.WARNING, "VolumeSizeNotEnforced", why));
  }

  /**
   * Makes the claims of pod {@code ordinal} what the set asks for now: their size its template's
   * (expansion), their ownerReferences its retention policy's (upstream's
   * {@code UpdatePodClaimForRetentionPolicy}); a claim another controller owns keeps that owner, with
   * a ConflictingController event. Each claim is read and written once.
   */
  public void updateClaims(SetKey key, int ordinal, String podName) {
    Optional<StatefulSet> found = liveSet(key);
    Optional<PodRow> pod = pods.find(key.namespace(), podName).filter(row -> row.ordinal() == ordinal);
    if (found.isEmpty() || pod.isEmpty()) {
      return;
    }
    StatefulSet set = found.get();
    ClaimOwners.Owner owner = ClaimOwners.podOwner(podName, pod.get().uid());
    boolean inRange = StatefulSetFields.inOrdinalRange(set, ordinal);
    for (PvcRow row : pvcs.findByNamespaceAndSetNameOrderByName(key.namespace(), key.name())) {
      if (row.ordinal() != ordinal || row.terminating()) {
        continue;
      }
      PersistentVolumeClaim claim = KubeJson.read(row.object(), PersistentVolumeClaim.class);
      Growth growth = grow(set, row, claim);
      List<OwnerReference> current = claim.getMetadata().getOwnerReferences();
      List<OwnerReference> desired = ClaimOwners.desired(current, set, owner, inRange);
      if (desired != current) {
        claim.getMetadata().setOwnerReferences(desired.isEmpty() ? null : desired);
      }
      if (growth != null || desired != current) {
        write(set, row, claim, growth);
      }
      if (ClaimOwners.ownedByAnotherController(current, set, owner)) {
        events.record(key.namespace(), "StatefulSet", key.name(), set.getMetadata().getUid(), EventRecorder.WARNING,
            "ConflictingController", "PersistentVolumeClaim " + row.name()
                + " is owned by another controller; its retention policy is not applied");
      }
    }
  }

  /**
   * Deletes a claim and its volume, unless a pod uses it (then it stays, as upstream's
   * pvc-protection keeps it) or it is gone. The volume goes first: a crash in between leaves the
   * claim, and the retried step finishes; never a new claim over old data.
   */
  public void deleteClaim(SetKey key, String claimName, String reason) {
    Optional<PvcRow> found = pvcs.findById(StatefulSetStore.id(key.namespace(), claimName));
    if (found.isEmpty() || inUse(found.get())) {
      return;
    }
    PvcRow row = found.get();
    try {
      drivers.deleteVolume(row.namespace(), row.name());
    } catch (IOException e) {
      throw new UncheckedIOException("could not remove the volume of claim " + row.id(), e);
    }
    tx.executeWrite(status -> {
      if (pvcs.deleteByIdAndUid(row.id(), row.uid()) > 0) {
        String setUid = sets.uid(key.namespace(), key.name()).orElse(null);
        events.record(key.namespace(), "StatefulSet", key.name(), setUid, EventRecorder.NORMAL, "SuccessfulDelete",
            "delete Claim " + row.name() + " in StatefulSet " + key.name() + " successful (" + reason + ")");
      }
      return null;
    });
  }

  /**
   * A user's DELETE of a claim: marks it deleted, and deletes it at once unless a pod uses it; then
   * it goes when that pod does (the set's controller deletes it). Empty when there is no such claim.
   */
  public Optional<PersistentVolumeClaim> deleteClaimByUser(String namespace, String claimName) {
    Optional<PvcRow> found = pvcs.findById(StatefulSetStore.id(namespace, claimName));
    if (found.isEmpty()) {
      return Optional.empty();
    }
    PvcRow row = found.get();
    Instant now = Instant.now();
    if (!row.terminating()) {
      PersistentVolumeClaim claim = KubeJson.read(row.object(), PersistentVolumeClaim.class);
      claim.getMetadata().setDeletionTimestamp(KubeJson.timestamp(now));
      pvcs.markDeleting(row.id(), row.uid(), now, KubeJson.write(claim));
    }
    PvcRow marked = pvcs.findById(row.id()).orElse(row);
    PersistentVolumeClaim answer = PodStore.toObject(marked);
    // The volume is on the claim's node: another node's claim is finished there, by that node's
    // agent (it watches its claims) or by its set's controller, whose claim steps run there.
    String claimNode = Labels.annotation(answer.getMetadata(), Labels.SELECTED_NODE_ANNOTATION);
    if (claimNode == null || node.is(claimNode)) {
      deleteClaim(new SetKey(namespace, row.setName()), claimName, "deleted by a user");
    }
    return Optional.of(answer);
  }

  /**
   * Upstream's pvc-protection rule: a claim is in use while a pod that mounts it exists, even
   * terminating: its own set's pod, or any pod of the namespace naming it in a volume (claimName).
   */
  public boolean inUse(PvcRow claim) {
    String ownPod = SetKey.podName(claim.setName(), claim.ordinal());
    for (PodRow pod : pods.inNamespace(claim.namespace())) {
      if (pod.name().equals(ownPod) && pod.setName().equals(claim.setName()) && pod.ordinal() == claim.ordinal()
          || mounts(pod, claim.name())) {
        return true;
      }
    }
    return false;
  }

  private static boolean mounts(PodRow pod, String claimName) {
    if (!pod.object().contains(claimName)) {
      return false; // most pods of a namespace name no other set's claim: no need to parse them
    }
    var volumes = KubeJson.read(pod.object(), Pod.class).getSpec().getVolumes();
    return volumes != null && volumes.stream().anyMatch(v -> v.getPersistentVolumeClaim() != null
        && claimName.equals(v.getPersistentVolumeClaim().getClaimName()));
  }

  /** Stores the pod in phase Pending unless a pod of that name exists (alive or terminating). */
  private PodRow insertPodIfAbsent(StatefulSet set, PodTemplateSpec template, String revision, int ordinal) {
    String namespace = set.getMetadata().getNamespace();
    Pod pod = PodFactory.pod(set, template, revision, ordinal);
    if (pods.exists(namespace, pod.getMetadata().getName())) {
      return null;
    }
    drivers.nodeOf(set).ifPresent(pod.getSpec()::setNodeName); // bound to the set's node, as the scheduler binds
    // Pod Security again, now for the pod: the namespace's labels may have changed since the set was admitted.
    var decision = podSecurity.evaluate(namespace, pod.getMetadata(), pod.getSpec(), "spec");
    if (!decision.allowed()) {
      events.record(namespace, "StatefulSet", set.getMetadata().getName(), set.getMetadata().getUid(),
          EventRecorder.WARNING, "FailedCreate", "create Pod " + pod.getMetadata().getName() + " in StatefulSet "
              + set.getMetadata().getName() + " failed error: pods \"" + pod.getMetadata().getName()
              + "\" is forbidden: violates " + PodSecurity.describe(decision.enforce(), decision.forbidden()));
      return null;
    }
    Map<String, String> annotations = new LinkedHashMap<>(
        pod.getMetadata().getAnnotations() == null ? Map.of() : pod.getMetadata().getAnnotations());
    annotations.put(PodSecurityAdmission.DEFAULT_USER_ANNOTATION, podSecurity.defaultUser(namespace));
    pod.getMetadata().setAnnotations(annotations);
    String id = StatefulSetStore.id(namespace, pod.getMetadata().getName());
    String driver = drivers.nameFor(set);
    PodRow row = new PodRow(id, namespace, pod.getMetadata().getName(), set.getMetadata().getName(), ordinal,
        UUID.randomUUID().toString(), revision, driver, KubeJson.write(pod), PodSnapshot.PENDING, false, null, null,
        null, Instant.now(), Repositories.VERSION_ASSIGNED_BY_DATABASE, null, null, null);
    tx.executeWrite(status -> {
      pods.insert(row);
      events.record(namespace, "StatefulSet", set.getMetadata().getName(), set.getMetadata().getUid(),
          EventRecorder.NORMAL, "SuccessfulCreate",
          "create Pod " + row.name() + " in StatefulSet " + set.getMetadata().getName() + " successful");
      return null;
    });
    return row;
  }

  /**
   * The controller's update of a pod of its set to {@code revision} in place: the same pod with its
   * containers' images and resources the revision's, restarted by its driver. A no-op when the set
   * or the pod is gone, the pod is terminating or already at the revision, or the set no longer
   * controls it.
   */
  public void updatePodInPlace(SetKey key, String podName, String revision) {
    Optional<StatefulSet> set = liveSet(key);
    Optional<PodRow> found = pods.find(key.namespace(), podName)
        .filter(row -> set.isPresent() && PodStore.controlledBy(row, set.get().getMetadata().getUid()))
        .filter(row -> !row.terminating() && !row.revision().equals(revision));
    if (found.isEmpty()) {
      return;
    }
    PodRow row = found.get();
    PodTemplateSpec template = MemberTemplates.of(revision(key, revision), row.ordinal());
    Optional<PodTemplateSpec> running = revisions.find(key.namespace(), row.revision())
        .map(r -> MemberTemplates.of(r, row.ordinal()));
    if (running.isEmpty() || PodUpdatePolicy.notInPlace(running.get(), template).isPresent()) {
      return; // the pod is at another revision than the plan saw, one that cannot go in place: the next plan sees it
    }
    Pod before = KubeJson.read(row.object(), Pod.class);
    Pod updated = PodUpdatePolicy.updated(before, template, revision);
    String setUid = set.get().getMetadata().getUid();
    drivers.get(row.driver()).updateInPlace(DriverPod.of(row), updated, noted -> tx.executeWrite(status -> {
      // On the pod as stored now: the images, resources and revision label, and what the driver noted.
      Map<String, String> notes = new LinkedHashMap<>(Labels.annotations(noted.getMetadata()));
      notes.entrySet().removeIf(note -> note.getValue().equals(Labels.annotations(before.getMetadata()).get(note.getKey())));
      boolean stored = pods.updateInPlace(row, revision, current -> {
        Pod changed = PodUpdatePolicy.updated(current, template, revision);
        Map<String, String> annotations = new LinkedHashMap<>(Labels.annotations(changed.getMetadata()));
        annotations.putAll(notes);
        changed.getMetadata().setAnnotations(annotations);
        return changed;
      });
      if (stored) {
        events.record(key.namespace(), "StatefulSet", key.name(), setUid, EventRecorder.NORMAL, "SuccessfulUpdate",
            "update Pod " + podName + " in StatefulSet " + key.name() + " in place from revision " + row.revision()
                + " to " + revision + " successful");
      }
      return stored;
    }));
  }

  /**
   * The controller's deletion of a pod of its set: as {@link #deletePod}, unless the set no longer
   * controls the pod (released since the set's last observation, when its labels stopped matching).
   */
  public void deleteOwnedPod(SetKey key, String podName, String reason) {
    String setUid = sets.uid(key.namespace(), key.name()).orElse("");
    if (pods.find(key.namespace(), podName).filter(row -> PodStore.controlledBy(row, setUid)).isPresent()) {
      deletePod(key, podName, reason);
    }
  }

  /**
   * Starts the graceful deletion of a pod of set {@code key}, if it still exists and is not already
   * terminating; {@code reason} ends up in the event.
   */
  public void deletePod(SetKey key, String podName, String reason) {
    Optional<PodRow> found = pods.find(key.namespace(), podName);
    if (found.isEmpty()) {
      return;
    }
    PodRow row = found.get();
    if (!row.terminating()) {
      markTerminating(key, row, reason);
    }
    stopIfHere(pods.find(key.namespace(), podName).orElse(row));
  }

  /**
   * Has the pod's driver stop a pod marked for deletion, when this instance can: its driver is not
   * node-bound, or the pod is on this node (or on none, made before nodes). Another node's pod is
   * stopped by that node, which watches its pods ({@code NodeAgent}) and re-adopts them at start.
   */
  public void stopIfHere(PodRow row) {
    String podNode = ThisNode.of(row);
    if (!drivers.nodeBound(row.driver()) || podNode == null || node.is(podNode)) {
      drivers.get(row.driver()).stop(DriverPod.of(row));
    }
  }

  /** Why a pod goes, as Ordinal tells it to the pod (its termination reason), from the deletion's reason. */
  static String terminationReason(String reason) {
    if (reason.startsWith("scale down")) {
      return "ScaleDown";
    }
    if (reason.startsWith("update to revision")) {
      return "Update";
    }
    if (reason.endsWith(" is reserved")) {
      return "Reserved";
    }
    return reason.startsWith("set deleted") || reason.startsWith("namespace deleted") ? "Delete" : "Recreate";
  }

  private void markTerminating(SetKey key, PodRow row, String reason) {
    tx.executeWrite(status -> {
      if (pods.markTerminating(row, Instant.now())) {
        pods.annotate(row, Labels.TERMINATION_REASON_ANNOTATION, terminationReason(reason));
        String setUid = sets.uid(key.namespace(), key.name()).orElse(null);
        boolean failed = PodSnapshot.FAILED.equals(row.phase()) || PodSnapshot.SUCCEEDED.equals(row.phase());
        events.record(key.namespace(), "StatefulSet", key.name(), setUid,
            failed ? EventRecorder.WARNING : EventRecorder.NORMAL,
            failed ? "RecreatingFailedPod" : "SuccessfulDelete",
            failed
                ? "StatefulSet " + key + " is recreating failed Pod " + row.name()
                : "delete Pod " + row.name() + " in StatefulSet " + key.name() + " successful (" + reason + ")");
      }
      return null;
    });
  }
}
