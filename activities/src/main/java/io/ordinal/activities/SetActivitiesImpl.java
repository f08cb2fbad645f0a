package io.ordinal.activities;

import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetStatus;
import io.ordinal.driver.DriverRegistry;
import io.ordinal.driver.PodDriver;
import io.ordinal.kube.ClaimOwners;
import io.ordinal.kube.ClaimSizes;
import io.ordinal.kube.Labels;
import io.ordinal.kube.LeaderLabel;
import io.ordinal.kube.MaxUnavailable;
import io.ordinal.kube.MemberHookSpec;
import io.ordinal.kube.MemberOverrides;
import io.ordinal.kube.ParallelConcurrency;
import io.ordinal.kube.PodFactory;
import io.ordinal.pods.PodUpdatePolicy;
import io.ordinal.kube.ReservedOrdinals;
import io.ordinal.kube.RolloutControls;
import io.ordinal.kube.StatefulSetFields;
import io.ordinal.model.InPlaceUpdates;
import io.ordinal.model.OrdinalRange;
import io.ordinal.model.PodSnapshot;
import io.ordinal.model.SetKey;
import io.ordinal.model.SetSnapshot;
import io.ordinal.model.SetStatus;
import io.ordinal.pods.MemberTemplates;
import io.ordinal.pods.PodLifecycle;
import io.ordinal.store.ControllerRevisionRow;
import io.ordinal.store.EventRecorder;
import io.ordinal.store.KubeJson;
import io.ordinal.store.MemberStore;
import io.ordinal.store.PodRow;
import io.ordinal.store.PodStore;
import io.ordinal.store.PvcRow;
import io.ordinal.store.Repositories;
import io.ordinal.store.RevisionStore;
import io.ordinal.store.SetChangeReader;
import io.ordinal.store.StatefulSetStore;
import io.ordinal.store.StoreException;
import io.ordinal.workflow.KnownSet;
import io.ordinal.workflow.Observation;
import io.ordinal.workflow.SetActivities;
import io.ordinal.workflow.SetChanges;
import io.temporal.failure.ApplicationFailure;
import jakarta.inject.Singleton;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

@Singleton
public class SetActivitiesImpl implements SetActivities {
  private final StatefulSetStore sets;
  private final RevisionStore revisions;
  private final PodStore pods;
  private final EventRecorder events;
  private final DriverRegistry drivers;
  private final Repositories.Pvcs pvcs;
  private final PodLifecycle lifecycle;
  private final MemberStore members;
  private final SetChangeReader changes;
  private final StatusPublisher statuses;

  /** Removes the set's ownerReferences from its claims, as the garbage collector does for an orphaning delete. */
  private void releaseClaims(StatefulSet set, List<PvcRow> claims) {
    for (PvcRow row : claims) {
      PersistentVolumeClaim claim = KubeJson.read(row.object(), PersistentVolumeClaim.class);
      List<OwnerReference> refs = claim.getMetadata().getOwnerReferences();
      if (refs != null && ClaimOwners.ownedBySet(refs, set)) {
        List<OwnerReference> kept = refs.stream().filter(ref -> !set.getMetadata().getUid().equals(ref.getUid())).toList();
        claim.getMetadata().setOwnerReferences(kept.isEmpty() ? null : kept);
        pvcs.updateObject(row.id(), row.uid(), KubeJson.write(claim));
      }
    }
  }

  public SetActivitiesImpl(StatefulSetStore sets, RevisionStore revisions, PodStore pods, EventRecorder events,
      DriverRegistry drivers, Repositories.Pvcs pvcs, PodLifecycle lifecycle, MemberStore members, SetChangeReader changes, StatusPublisher statuses) {
    this.statuses = statuses;
    this.members = members;
    this.changes = changes;
    this.pvcs = pvcs;
    this.lifecycle = lifecycle;
    this.sets = sets;
    this.revisions = revisions;
    this.pods = pods;
    this.events = events;
    this.drivers = drivers;
  }

  @Override
  public Observation observe(SetKey key) {
    // The complete reading the incremental steps start from, merged as they merge it: one way to observe.
    return new KnownSet(key).apply(observeChanges(new ChangesRequest(key, 0, null, 0, false, true)), Instant.now().toEpochMilli());
  }

  @Override
  public SetChanges observeChanges(ChangesRequest request) {
    SetKey key = request.set();
    Optional<StatefulSet> found = sets.get(key.namespace(), key.name());
    if (found.isEmpty()) {
      return SetChanges.absent(key);
    }
    StatefulSet set = found.get();
    var spec = set.getSpec();
    var meta = set.getMetadata();
    List<ControllerRevisionRow> history = revisions.history(key.namespace(), key.name());
    Optional<RevisionStore.Ensured> update = RevisionStore.lookup(set, history);
    if (update.isEmpty()) {
      return SetChanges.missingRevision(key);
    }
    boolean deleting = meta.getDeletionTimestamp() != null;
    // Another set under the name, a new spec or a deletion can change what every pod is to it: read them all.
    boolean sameSet = meta.getUid().equals(request.uid()) && meta.getGeneration() == request.generation()
        && deleting == request.deleting();
    SetChangeReader.Reading reading = changes.since(key.namespace(), key.name(), sameSet ? request.since() : 0,
        request.complete());
    // A set deleted with its pods orphaned has none left to act on.
    PodStore.Claimed claimed = StatefulSetStore.orphansPods(set) ? new PodStore.Claimed(List.of(), List.of())
        : pods.claim(reading.pods(), PodFactory.ownerReference(set), spec.getSelector(), deleting);
    List<PodRow> rows = claimed.owned();
    Set<Integer> staleOrdinals = staleClaims(set, rows, reading.claims());
    Optional<LeaderLabel> leader = LeaderLabel.of(meta);
    boolean rolling = StatefulSetFields.ROLLING_UPDATE.equals(spec.getUpdateStrategy().getType());
    StatefulSetStatus stored = set.getStatus();
    var rollingUpdate = rolling ? spec.getUpdateStrategy().getRollingUpdate() : null;
    int partition = rollingUpdate != null ? rollingUpdate.getPartition() : 0;
    int partitionOrdinal = StatefulSetFields.ordinalStart(set) + partition;
    Map<String, ControllerRevisionRow> byName = history.stream()
        .collect(Collectors.toMap(ControllerRevisionRow::name, r -> r, (a, b) -> b));
    List<PodSnapshot> observed = rows.stream()
        .map(row -> atTarget(PodStore.snapshot(row, staleOrdinals.contains(row.ordinal())), byName,
            rolling && row.ordinal() < partitionOrdinal && stored.getCurrentRevision() != null
                ? stored.getCurrentRevision() : update.get().name())
            .asLeader(leader.isPresent() && leader.get().matches(PodStore.labels(row)))).toList();
    int maxUnavailable = MaxUnavailable.resolve(rollingUpdate == null ? null : rollingUpdate.getMaxUnavailable(),
        spec.getReplicas());
    SetSnapshot snapshot = new SetSnapshot(key, true, deleting, meta.getGeneration(), spec.getReplicas(),
        StatefulSetFields.PARALLEL.equals(spec.getPodManagementPolicy()), spec.getMinReadySeconds(),
        rolling, partition, maxUnavailable, stored.getCurrentRevision(), update.get().name(), observed,
        RolloutControls.of(set, update.get().rolledBack()), StatefulSetFields.ordinalStart(set),
        claimsToDelete(withForeignClaimsDeleted(set, pvcs.findDeletionCandidates(key.namespace(), key.name()))),
        null, null, null, claimed.foreignOrdinals(), ReservedOrdinals.of(meta),
        ParallelConcurrency.resolve(meta, spec.getReplicas()), inPlaceUpdates(set, history, update.get().name(),
            new OrdinalRange(StatefulSetFields.ordinalStart(set), spec.getReplicas(), ReservedOrdinals.of(meta))));
    Optional<MemberHookSpec> hooks = MemberHookSpec.of(meta);
    if (hooks.isPresent()) {
      snapshot = snapshot.withMembership(hooks.get().timings(), members.ordinals(key.namespace(), key.name()),
          Labels.annotation(meta, Labels.HELD_HOOK_ANNOTATION));
    }
    return new SetChanges(snapshot, reading.complete() || StatefulSetStore.orphansPods(set), reading.goneOrdinals(),
        reading.version(), meta.getUid(), storedCounts(stored), stored.getCurrentRevision(),
        update.get().collisionCount(), history.stream().map(ControllerRevisionRow::name).toList(),
        spec.getRevisionHistoryLimit(), false, drivers.nodeOf(set).orElse(null), hooks.isPresent(),
        reading.changedOrdinals() == null ? null : List.copyOf(reading.changedOrdinals()));
  }

  /**
   * A pod as the planner is to see it: at its ordinal's {@code target} revision if that revision's
   * template for it, member override included, is the one it runs. A new revision that changes one
   * range's override so leaves every other pod where it is: only the range rolls. Without member
   * overrides two revisions never share a template, and every pod is at its own.
   */
  private static PodSnapshot atTarget(PodSnapshot pod, Map<String, ControllerRevisionRow> byName, String target) {
    ControllerRevisionRow from = byName.get(pod.revision());
    ControllerRevisionRow to = byName.get(target);
    if (pod.revision().equals(target) || from == null || to == null
        || from.memberOverrides() == null && to.memberOverrides() == null) {
      return pod;
    }
    return MemberTemplates.same(from, to, pod.ordinal()) ? pod.atRevision(target) : pod;
  }

  /**
   * The set's pod update policy, and the revisions of its history from which its driver can update a
   * pod in place to {@code updateRevision} (their templates differ only in containers' images and
   * resources, for every ordinal of {@code range}: with member overrides a pod's template is its
   * ordinal's). Revisions never change, so each pair is worked out once.
   */
  private InPlaceUpdates inPlaceUpdates(StatefulSet set, List<ControllerRevisionRow> history, String updateRevision,
      OrdinalRange range) {
    String policy = PodUpdatePolicy.of(set.getMetadata());
    boolean driverCan = drivers.find(drivers.nameFor(set)).map(PodDriver::updatesInPlace).orElse(false);
    Optional<ControllerRevisionRow> to = history.stream().filter(r -> r.name().equals(updateRevision)).findFirst();
    if (InPlaceUpdates.RECREATE.equals(policy) || !driverCan || to.isEmpty()) {
      return new InPlaceUpdates(policy, List.of());
    }
    List<String> from = history.stream().filter(r -> !r.name().equals(updateRevision))
        .filter(r -> inPlaceFor(r, to.get(), range))
        .map(ControllerRevisionRow::name).toList();
    if (inPlacePairs.size() > 10_000) {
      inPlacePairs.clear(); // a bound, never reached by the revisions a set keeps
    }
    return new InPlaceUpdates(policy, from);
  }

  /**
   * Whether every pod of {@code range} can go in place from one revision to the other: one check for
   * each pair of member overrides the two revisions give an ordinal of the range.
   */
  private boolean inPlaceFor(ControllerRevisionRow from, ControllerRevisionRow to, OrdinalRange range) {
    Map<String, Integer> ordinalOfPair = MemberOverrides.representatives(MemberOverrides.parse(from.memberOverrides()),
        MemberOverrides.parse(to.memberOverrides()), range.start(), Math.max(range.start() + 1L, range.end()));
    return ordinalOfPair.entrySet().stream().allMatch(pair -> inPlacePairs.computeIfAbsent(
        from.uid() + ">" + to.uid() + "#" + pair.getKey(), key -> PodUpdatePolicy.notInPlace(
            MemberTemplates.of(from, pair.getValue()), MemberTemplates.of(to, pair.getValue())).isEmpty()));
  }

  /** Whether a pod can go in place from one revision to another (by their uids and overrides): revisions never change. */
  private final Map<String, Boolean> inPlacePairs = new ConcurrentHashMap<>();

  /**
   * The stored status as the workflow compares it; null before a first one. A count it lacks reads
   * -1, so that a status computed from the pods differs from it and is written whole.
   */
  private static SetStatus storedCounts(StatefulSetStatus stored) {
    if (stored.getObservedGeneration() == null) {
      return null;
    }
    return new SetStatus(stored.getObservedGeneration(), orUnset(stored.getReplicas()), orUnset(stored.getReadyReplicas()),
        orUnset(stored.getAvailableReplicas()), orUnset(stored.getCurrentReplicas()), orUnset(stored.getUpdatedReplicas()),
        stored.getCurrentRevision(), stored.getUpdateRevision(), orUnset(stored.getCollisionCount()));
  }

  private static int orUnset(Integer count) {
    return count == null ? -1 : count;
  }

  /**
   * The ordinals whose pods' claims are not what the set asks for: owners by the retention policy,
   * size by a volumeClaimTemplate that grew. A claim whose JSON has no owners under Retain/Retain
   * (the default) and already names its template's storage is up to date unread.
   */
  private static Set<Integer> staleClaims(StatefulSet set, List<PodRow> rows, List<PvcRow> claims) {
    var policy = set.getSpec().getPersistentVolumeClaimRetentionPolicy();
    boolean retainAll = policy == null || (!StatefulSetFields.DELETE.equals(policy.getWhenDeleted())
        && !StatefulSetFields.DELETE.equals(policy.getWhenScaled()));
    Map<Integer, PodRow> live = new HashMap<>();
    rows.stream().filter(row -> !row.terminating()).forEach(row -> live.put(row.ordinal(), row));
    Set<Integer> stale = new HashSet<>();
    for (PvcRow row : claims) {
      PodRow pod = live.get(row.ordinal());
      if (pod == null || row.terminating()) {
        continue;
      }
      Optional<PersistentVolumeClaim> template = ClaimSizes.template(set, row.name(), row.ordinal());
      // The claim's JSON already names its template's storage: no expansion due, known without parsing it.
      boolean sizeSeen = template.flatMap(ClaimSizes::storage)
          .map(storage -> row.object().contains("\"storage\":\"" + storage + "\"")).orElse(true);
      if (retainAll && sizeSeen && !row.object().contains("\"ownerReferences\"")) {
        continue;
      }
      PersistentVolumeClaim claim = KubeJson.read(row.object(), PersistentVolumeClaim.class);
      boolean owners = ClaimOwners.upToDate(claim.getMetadata().getOwnerReferences(), set,
          ClaimOwners.podOwner(pod.name(), pod.uid()), StatefulSetFields.inOrdinalRange(set, row.ordinal()));
      boolean size = template.flatMap(t -> ClaimSizes.grown(claim, t)).isEmpty();
      if (!owners || !size) {
        stale.add(row.ordinal());
      }
    }
    return stale;
  }

  /**
   * The set's claims, and the claims of other sets its template (or a member override) mounts by
   * claimName that a user deleted: those wait for their last pod, which may be one of this set's
   * (pvc-protection), and go when this set's pods stop using them.
   */
  private List<PvcRow> withForeignClaimsDeleted(StatefulSet set, List<PvcRow> own) {
    Set<String> claimNames = new LinkedHashSet<>();
    var volumes = set.getSpec().getTemplate().getSpec() == null ? null : set.getSpec().getTemplate().getSpec().getVolumes();
    for (var volume : volumes == null ? List.<io.fabric8.kubernetes.api.model.Volume>of() : volumes) {
      if (volume.getPersistentVolumeClaim() != null && volume.getPersistentVolumeClaim().getClaimName() != null) {
        claimNames.add(volume.getPersistentVolumeClaim().getClaimName());
      }
    }
    for (var override : MemberOverrides.parse(MemberOverrides.canonical(set.getMetadata()))) {
      override.template().at("/spec/volumes").forEach(volume -> {
        if (volume.at("/persistentVolumeClaim/claimName").isTextual()) {
          claimNames.add(volume.at("/persistentVolumeClaim/claimName").asText());
        }
      });
    }
    List<PvcRow> all = new ArrayList<>(own);
    for (String claimName : claimNames) {
      pvcs.findById(StatefulSetStore.id(set.getMetadata().getNamespace(), claimName))
          .filter(claim -> claim.terminating() && all.stream().noneMatch(c -> c.id().equals(claim.id())))
          .ifPresent(all::add);
    }
    return all;
  }

  /**
   * Claims that must go now: deleted by a user, or owned by a pod (whenScaled: Delete), and used by no
   * pod any more. The pods are read again: a set deleted with its pods orphaned observes none.
   */
  private List<String> claimsToDelete(List<PvcRow> claims) {
    List<String> due = new ArrayList<>();
    for (PvcRow claim : claims) {
      boolean podOwned = claim.object().contains("\"ownerReferences\"") && !ClaimOwners.podOwnerUids(
          KubeJson.read(claim.object(), PersistentVolumeClaim.class).getMetadata().getOwnerReferences()).isEmpty();
      if ((claim.terminating() || podOwned) && !lifecycle.inUse(claim)) {
        due.add(claim.name());
      }
    }
    return due;
  }

  @Override
  public void ensureRevision(SetKey key) {
    sets.get(key.namespace(), key.name()).ifPresent(revisions::ensure);
  }

  @Override
  public void pruneHistory(HistoryPruning request) {
    SetKey key = request.set();
    sets.get(key.namespace(), key.name()).ifPresent(set -> {
      // The labels of the set's own pods too: an operation that began before PodSnapshot.labelledRevision
      // existed still knows pods by readings without it, and a member-override revision a label names
      // is where that pod's template comes from.
      Set<String> live = new HashSet<>(request.liveRevisions());
      pods.ofSet(key.namespace(), key.name()).stream()
          .filter(row -> PodStore.controlledBy(row, set.getMetadata().getUid()))
          .forEach(row -> live.add(row.revision()));
      revisions.prune(key.namespace(), key.name(), set.getSpec().getRevisionHistoryLimit(), live);
    });
  }

  @Override
  public void publishStatus(StatusPublication request) {
    statuses.publish(request);
  }

  @Override
  public SetSnapshot refresh(SetKey key) {
    Observation seen = observe(key);
    while (seen.revisionMissing()) {
      ensureRevision(key);
      seen = observe(key);
    }
    if (seen.historyOverLimit()) {
      pruneHistory(new HistoryPruning(key, Observation.liveRevisions(seen.set())));
    }
    if (seen.statusChanged()) {
      publishStatus(new StatusPublication(key, seen.status()));
    }
    return seen.set();
  }

  @Override
  public void setProgressing(ProgressingCondition condition) {
    SetConditions.set(sets, events, condition.set(), SetConditions.PROGRESSING, condition.progressing(),
        condition.reason(), condition.message());
  }

  @Override
  public boolean rollBack(Rollback request) {
    SetKey key = request.set();
    for (int attempt = 1; ; attempt++) {
      Optional<StatefulSet> found = sets.get(key.namespace(), key.name());
      if (found.isEmpty() || found.get().getMetadata().getDeletionTimestamp() != null) {
        return false;
      }
      StatefulSet set = found.get();
      String asked = revisions.ensure(set).name();
      if (!asked.equals(request.failedRevision())) {
        return false; // the spec moved on since the rollout failed: that newer intent wins
      }
      var target = revisions.find(key.namespace(), request.toRevision())
          .orElseThrow(() -> ApplicationFailure.newNonRetryableFailure(
              "no ControllerRevision " + request.toRevision(), "MissingRevision"));
      try {
        sets.update(RevisionStore.revertedTo(set, target), Long.parseLong(set.getMetadata().getResourceVersion()));
      } catch (StoreException e) {
        if (e.reason() == StoreException.Reason.CONFLICT && attempt < 5) {
          continue; // a concurrent write (a status update): decide again on the newer object
        }
        throw e;
      }
      events.record(key.namespace(), "StatefulSet", key.name(), set.getMetadata().getUid(), EventRecorder.WARNING,
          "RollingBack", request.reason() + "; rolling back to revision " + target.revision()
              + " (" + request.toRevision() + ")");
      return true;
    }
  }

  @Override
  public void holdForFailedHook(HookFailure failure) {
    SetKey key = failure.set();
    String held = failure.hook() + " hook of " + failure.podName() + " failed";
    for (int attempt = 1; ; attempt++) {
      Optional<StatefulSet> found = sets.get(key.namespace(), key.name());
      if (found.isEmpty() || found.get().getMetadata().getDeletionTimestamp() != null
          || held.equals(Labels.annotation(found.get().getMetadata(), Labels.HELD_HOOK_ANNOTATION))) {
        return;
      }
      StatefulSet set = found.get();
      Map<String, String> annotations = new HashMap<>(Labels.annotations(set.getMetadata()));
      annotations.put(Labels.HELD_HOOK_ANNOTATION, held);
      set.getMetadata().setAnnotations(annotations);
      try {
        sets.update(set, Long.parseLong(set.getMetadata().getResourceVersion()));
      } catch (StoreException e) {
        if (e.reason() == StoreException.Reason.CONFLICT && attempt < 5) {
          continue;
        }
        throw e;
      }
      SetConditions.set(sets, events, key, SetConditions.MEMBERSHIP_HOOK, false, "MemberHookFailed",
          held + ": " + failure.message() + "; membership changes are held until the set is resumed (kubectl ordinal resume)");
      return;
    }
  }

  @Override
  public void claimOperation(OperationClaim claim) {
    sets.setActiveOperation(claim.set().namespace(), claim.set().name(), claim.workflowId());
  }

  @Override
  public Boolean finishDeletion(SetKey key) {
    Optional<StatefulSet> found = sets.get(key.namespace(), key.name());
    if (found.isEmpty() || found.get().getMetadata().getDeletionTimestamp() == null) {
      return true;
    }
    StatefulSet set = found.get();
    List<PvcRow> claims = pvcs.findByNamespaceAndSetNameOrderByName(key.namespace(), key.name());
    if (StatefulSetStore.orphansPods(set)) {
      pods.release(key.namespace(), key.name(), set.getMetadata().getUid());
      releaseClaims(set, claims); // orphaned dependents keep nothing that would take them with the set
      sets.remove(key.namespace(), key.name()); // the pods keep their addresses
      return true;
    }
    // Pods it released, or another controller's, of its names stay (a set being deleted claims none).
    List<PodRow> left = pods.ofSet(key.namespace(), key.name());
    if (left.stream().anyMatch(row -> PodStore.controlledBy(row, set.getMetadata().getUid()))) {
      return false;
    }
    // whenDeleted: Delete: the claims the set owns go with it, before it (a retry finishes them).
    for (PvcRow claim : claims) {
      if (ClaimOwners.ownedBySet(KubeJson.read(claim.object(), PersistentVolumeClaim.class)
          .getMetadata().getOwnerReferences(), set)) {
        lifecycle.deleteClaim(key, claim.name(), "StatefulSet deleted, persistentVolumeClaimRetentionPolicy.whenDeleted is Delete");
      }
    }
    sets.remove(key.namespace(), key.name());
    members.forget(key.namespace(), key.name());
    if (left.isEmpty()) {
      drivers.setRemoved(key.namespace(), key.name()); // pods it released keep their addresses
    }
    return true;
  }
}
