package io.ordinal.activities;

import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.micronaut.transaction.TransactionOperations;
import io.ordinal.driver.DriverRegistry;
import io.ordinal.kube.Labels;
import io.ordinal.kube.PodFactory;
import io.ordinal.model.PodSnapshot;
import io.ordinal.model.SetKey;
import io.ordinal.store.EventRecorder;
import io.ordinal.store.KubeJson;
import io.ordinal.store.PodRow;
import io.ordinal.store.PodStore;
import io.ordinal.store.PvcRow;
import io.ordinal.store.Repositories;
import io.ordinal.store.RevisionStore;
import io.ordinal.store.StatefulSetStore;
import io.ordinal.workflow.PodActivities;
import io.temporal.failure.ApplicationFailure;
import jakarta.inject.Singleton;
import java.sql.Connection;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;

@Singleton
public class PodActivitiesImpl implements PodActivities {
  private final StatefulSetStore sets;
  private final RevisionStore revisions;
  private final PodStore pods;
  private final Repositories.Pvcs pvcs;
  private final Repositories.StatefulSets setRows;
  private final EventRecorder events;
  private final DriverRegistry drivers;
  private final TransactionOperations<Connection> tx;

  public PodActivitiesImpl(StatefulSetStore sets, RevisionStore revisions, PodStore pods, Repositories.Pvcs pvcs,
      Repositories.StatefulSets setRows, EventRecorder events, DriverRegistry drivers,
      TransactionOperations<Connection> tx) {
    this.sets = sets;
    this.revisions = revisions;
    this.pods = pods;
    this.pvcs = pvcs;
    this.setRows = setRows;
    this.events = events;
    this.drivers = drivers;
    this.tx = tx;
  }

  @Override
  public void createClaims(PodCreation request) {
    liveSet(request.set()).ifPresent(set -> ensureClaims(set, request.ordinal()));
  }

  @Override
  public void createPod(PodCreation request) {
    SetKey key = request.set();
    Optional<StatefulSet> found = liveSet(key);
    if (found.isEmpty()) {
      return; // the set went away since the plan was made; the next plan sees it
    }
    StatefulSet set = found.get();
    PodTemplateSpec template = revisions.template(key.namespace(), request.revision())
        .orElseThrow(() -> ApplicationFailure.newFailure("no ControllerRevision " + request.revision(), "MissingRevision"));
    ensureClaims(set, request.ordinal());
    PodRow created = insertPodIfAbsent(set, template, request.revision(), request.ordinal());
    if (created != null) {
      drivers.get(created.driver()).start(created);
    }
  }

  private Optional<StatefulSet> liveSet(SetKey key) {
    return sets.get(key.namespace(), key.name()).filter(set -> set.getMetadata().getDeletionTimestamp() == null);
  }

  private void ensureClaims(StatefulSet set, int ordinal) {
    String namespace = set.getMetadata().getNamespace();
    String setName = set.getMetadata().getName();
    for (PersistentVolumeClaim claim : PodFactory.claims(set, ordinal)) {
      String id = namespace + "/" + claim.getMetadata().getName();
      if (pvcs.existsById(id)) {
        continue;
      }
      String uid = UUID.randomUUID().toString();
      tx.executeWrite(status -> {
        pvcs.save(new PvcRow(id, namespace, claim.getMetadata().getName(), setName, ordinal, uid, KubeJson.write(claim),
            Instant.now(), setRows.nextResourceVersion()));
        events.record(namespace, "StatefulSet", setName, set.getMetadata().getUid(), EventRecorder.NORMAL,
            "SuccessfulCreate", "create Claim " + claim.getMetadata().getName() + " Pod " + setName + "-" + ordinal
                + " in StatefulSet " + setName + " success");
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
    var annotations = set.getMetadata().getAnnotations();
    String driver = drivers.policy().effective(annotations == null ? null : annotations.get(Labels.DRIVER_ANNOTATION));
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
  public void deletePod(PodDeletion request) {
    SetKey key = request.set();
    Optional<PodRow> found = pods.find(key.namespace(), request.podName());
    if (found.isEmpty()) {
      return;
    }
    PodRow row = found.get();
    if (!row.terminating()) {
      markTerminating(key, row, request.reason());
    }
    drivers.get(row.driver()).stop(pods.find(key.namespace(), request.podName()).orElse(row));
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
}
