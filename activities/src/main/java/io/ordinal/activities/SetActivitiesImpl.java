package io.ordinal.activities;

import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetCondition;
import io.fabric8.kubernetes.api.model.apps.StatefulSetStatus;
import io.micronaut.transaction.TransactionOperations;
import io.ordinal.driver.DriverRegistry;
import io.ordinal.driver.local.AddressBook;
import io.ordinal.kube.Labels;
import io.ordinal.kube.MaxUnavailable;
import io.ordinal.kube.PodFactory;
import io.ordinal.kube.RolloutControls;
import io.ordinal.kube.StatefulSetFields;
import io.ordinal.kube.StatusCalculator;
import io.ordinal.model.PodSnapshot;
import io.ordinal.model.RolloutControl;
import io.ordinal.model.SetKey;
import io.ordinal.model.SetSnapshot;
import io.ordinal.store.EventRecorder;
import io.ordinal.store.KubeJson;
import io.ordinal.store.PodRow;
import io.ordinal.store.PodStore;
import io.ordinal.store.PvcRow;
import io.ordinal.store.Repositories;
import io.ordinal.store.RevisionStore;
import io.ordinal.store.StatefulSetStore;
import io.temporal.failure.ApplicationFailure;
import jakarta.inject.Singleton;
import java.sql.Connection;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

@Singleton
public class SetActivitiesImpl implements io.ordinal.workflow.SetActivities {
  private static final String PROGRESSING = "Progressing";
  private final StatefulSetStore sets;
  private final RevisionStore revisions;
  private final PodStore pods;
  private final Repositories.Pvcs pvcs;
  private final Repositories.StatefulSets setRows;
  private final EventRecorder events;
  private final DriverRegistry drivers;
  private final TransactionOperations<Connection> tx;
  private final AddressBook addresses;

  public SetActivitiesImpl(StatefulSetStore sets, RevisionStore revisions, PodStore pods, Repositories.Pvcs pvcs,
      Repositories.StatefulSets setRows, EventRecorder events, DriverRegistry drivers,
      TransactionOperations<Connection> tx, AddressBook addresses) {
    this.tx = tx;
    this.addresses = addresses;
    this.sets = sets;
    this.revisions = revisions;
    this.pods = pods;
    this.pvcs = pvcs;
    this.setRows = setRows;
    this.events = events;
    this.drivers = drivers;
  }

  @Override
  public SetSnapshot refresh(SetKey key) {
    Optional<StatefulSet> found = sets.get(key.namespace(), key.name());
    if (found.isEmpty()) {
      return SetSnapshot.absent(key);
    }
    StatefulSet set = found.get();
    var spec = set.getSpec();
    StatefulSetStatus previous = set.getStatus();
    RevisionStore.Ensured update = revisions.ensure(set);
    List<PodSnapshot> observed = pods.ofSet(key.namespace(), key.name()).stream().map(PodStore::snapshot).toList();
    boolean rolling = StatefulSetFields.ROLLING_UPDATE.equals(spec.getUpdateStrategy().getType());
    StatefulSetStatus status = StatusCalculator.compute(set.getMetadata().getGeneration(), spec.getMinReadySeconds(),
        rolling, previous.getCurrentRevision(), update.name(), update.collisionCount(), observed,
        Instant.now().toEpochMilli());
    status.setConditions(previous.getConditions()); // conditions are the rollouts' to set
    // History is pruned before the status is published, so an observed generation implies its pruning.
    Set<String> live = new HashSet<>(List.of(status.getCurrentRevision(), update.name()));
    observed.forEach(pod -> live.add(pod.revision()));
    revisions.prune(key.namespace(), key.name(), spec.getRevisionHistoryLimit(), live);
    sets.writeStatus(key.namespace(), key.name(), status);
    var rollingUpdate = rolling ? spec.getUpdateStrategy().getRollingUpdate() : null;
    int partition = rollingUpdate != null ? rollingUpdate.getPartition() : 0;
    int maxUnavailable = MaxUnavailable.resolve(rollingUpdate == null ? null : rollingUpdate.getMaxUnavailable(),
        spec.getReplicas());
    return new SetSnapshot(key, true, set.getMetadata().getDeletionTimestamp() != null,
        set.getMetadata().getGeneration(), spec.getReplicas(),
        StatefulSetFields.PARALLEL.equals(spec.getPodManagementPolicy()), spec.getMinReadySeconds(),
        rolling, partition, maxUnavailable, status.getCurrentRevision(), update.name(), observed,
        RolloutControls.of(set, update.rolledBack()));
  }

  @Override
  public void setProgressing(SetKey key, boolean progressing, String reason, String message) {
    Optional<StatefulSet> found = sets.get(key.namespace(), key.name());
    if (found.isEmpty()) {
      return;
    }
    StatefulSet set = found.get();
    StatefulSetStatus status = set.getStatus();
    List<StatefulSetCondition> conditions = new java.util.ArrayList<>(
        status.getConditions() == null ? List.of() : status.getConditions());
    String value = progressing ? "True" : "False";
    StatefulSetCondition old = conditions.stream().filter(c -> PROGRESSING.equals(c.getType())).findFirst().orElse(null);
    if (old != null && value.equals(old.getStatus()) && reason.equals(old.getReason()) && message.equals(old.getMessage())) {
      return;
    }
    String now = KubeJson.timestamp(Instant.now());
    conditions.remove(old);
    conditions.add(new StatefulSetCondition(old != null && value.equals(old.getStatus()) ? old.getLastTransitionTime() : now,
        message, reason, value, PROGRESSING));
    status.setConditions(conditions);
    sets.writeStatus(key.namespace(), key.name(), status);
    events.record(key.namespace(), "StatefulSet", key.name(), set.getMetadata().getUid(),
        progressing ? EventRecorder.NORMAL : EventRecorder.WARNING, reason, message);
  }

  @Override
  public boolean rollBack(SetKey key, String failedRevision, String revision, String reason) {
    for (int attempt = 1; ; attempt++) {
      Optional<StatefulSet> found = sets.get(key.namespace(), key.name());
      if (found.isEmpty() || found.get().getMetadata().getDeletionTimestamp() != null) {
        return false;
      }
      StatefulSet set = found.get();
      String asked = revisions.ensure(set).name();
      if (!asked.equals(failedRevision)) {
        return false; // the spec moved on since the rollout failed: that newer intent wins
      }
      var target = revisions.find(key.namespace(), revision)
          .orElseThrow(() -> ApplicationFailure.newNonRetryableFailure("no ControllerRevision " + revision, "MissingRevision"));
      try {
        sets.update(RevisionStore.revertedTo(set, target), Long.parseLong(set.getMetadata().getResourceVersion()));
      } catch (io.ordinal.store.StoreException e) {
        if (e.reason() == io.ordinal.store.StoreException.Reason.CONFLICT && attempt < 5) {
          continue; // a concurrent write (a status update): decide again on the newer object
        }
        throw e;
      }
      events.record(key.namespace(), "StatefulSet", key.name(), set.getMetadata().getUid(), EventRecorder.WARNING,
          "RollingBack", reason + "; rolling back to revision " + target.revision() + " (" + revision + ")");
      return true;
    }
  }

  private static String annotation(StatefulSet set, String key) {
    var annotations = set.getMetadata().getAnnotations();
    return annotations == null ? null : annotations.get(key);
  }

  @Override
  public void claimOperation(SetKey key, String operationWorkflowId) {
    sets.setActiveOperation(key.namespace(), key.name(), operationWorkflowId);
  }

  @Override
  public void createPod(SetKey key, int ordinal, String revision) {
    Optional<StatefulSet> found = sets.get(key.namespace(), key.name());
    if (found.isEmpty() || found.get().getMetadata().getDeletionTimestamp() != null) {
      return; // the set went away since the plan was made; the next plan sees it
    }
    StatefulSet set = found.get();
    PodTemplateSpec template = revisions.template(key.namespace(), revision)
        .orElseThrow(() -> ApplicationFailure.newFailure("no ControllerRevision " + revision, "MissingRevision"));
    ensureClaims(set, ordinal);
    PodRow created = insertPodIfAbsent(set, template, revision, ordinal);
    if (created != null) {
      drivers.get(created.driver()).start(created);
    }
  }

  private void ensureClaims(StatefulSet set, int ordinal) {
    String podName = set.getMetadata().getName() + "-" + ordinal;
    for (PersistentVolumeClaim claim : PodFactory.claims(set, ordinal)) {
      String id = set.getMetadata().getNamespace() + "/" + claim.getMetadata().getName();
      if (pvcs.existsById(id)) {
        continue;
      }
      String uid = UUID.randomUUID().toString();
      tx.executeWrite(status -> {
        pvcs.save(new PvcRow(id, set.getMetadata().getNamespace(), claim.getMetadata().getName(),
          set.getMetadata().getName(), ordinal, uid, KubeJson.write(claim), Instant.now(), setRows.nextResourceVersion()));
      events.record(set.getMetadata().getNamespace(), "StatefulSet", set.getMetadata().getName(),
          set.getMetadata().getUid(), EventRecorder.NORMAL, "SuccessfulCreate",
          "create Claim " + claim.getMetadata().getName() + " Pod " + podName + " in StatefulSet "
              + set.getMetadata().getName() + " success");
        return null;
      });
    }
  }

  /** Stores the pod in phase Pending unless a pod of that name exists (alive or terminating). */
  private PodRow insertPodIfAbsent(StatefulSet set, PodTemplateSpec template, String revision, int ordinal) {
    String namespace = set.getMetadata().getNamespace();
    Pod pod = PodFactory.pod(set, template, revision, ordinal);
    String id = namespace + "/" + pod.getMetadata().getName();
    if (pods.rows().existsById(id)) {
      return null;
    }
    String driver = driverOf(set);
    PodRow row = new PodRow(id, namespace, pod.getMetadata().getName(), set.getMetadata().getName(), ordinal,
        UUID.randomUUID().toString(), revision, driver, KubeJson.write(pod), PodSnapshot.PENDING, false, null, null,
        null, Instant.now(), setRows.nextResourceVersion(), null, null, null);
    tx.executeWrite(status -> {
      pods.rows().save(row);
      events.record(namespace, "StatefulSet", set.getMetadata().getName(), set.getMetadata().getUid(),
          EventRecorder.NORMAL, "SuccessfulCreate",
          "create Pod " + row.name() + " in StatefulSet " + set.getMetadata().getName() + " successful");
      return null;
    });
    return row;
  }

  @Override
  public void deletePod(SetKey key, String podName, String reason) {
    Optional<PodRow> found = pods.find(key.namespace(), podName);
    if (found.isEmpty()) {
      return;
    }
    PodRow row = found.get();
    if (!row.terminating()) {
      markTerminating(key, row, reason);
    }
    drivers.get(row.driver()).stop(pods.find(key.namespace(), podName).orElse(row));
  }

  private void markTerminating(SetKey key, PodRow row, String reason) {
    tx.executeWrite(status -> {
    if (pods.rows().markTerminating(row.id(), row.uid(), Instant.now()) > 0) {
      String setUid = sets.get(key.namespace(), key.name()).map(s -> s.getMetadata().getUid()).orElse(null);
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

  @Override
  public void finishDeletion(SetKey key) {
    Optional<StatefulSet> found = sets.get(key.namespace(), key.name());
    if (found.isEmpty() || found.get().getMetadata().getDeletionTimestamp() == null) {
      return;
    }
    if (!pods.ofSet(key.namespace(), key.name()).isEmpty()) {
      throw ApplicationFailure.newFailure("StatefulSet " + key + " still has pods", "PodsRemain");
    }
    sets.remove(key.namespace(), key.name());
    addresses.release(key.namespace(), key.name());
  }

  private String driverOf(StatefulSet set) {
    String driver = annotation(set, Labels.DRIVER_ANNOTATION);
    return driver == null ? drivers.defaultDriver() : driver;
  }
}
