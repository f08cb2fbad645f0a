package io.ordinal.pods;

import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.micronaut.transaction.TransactionOperations;
import io.ordinal.driver.DriverPod;
import io.ordinal.driver.DriverRegistry;
import io.ordinal.kube.Labels;
import io.ordinal.kube.PodFactory;
import io.ordinal.model.PodSnapshot;
import io.ordinal.model.SetKey;
import io.ordinal.podsecurity.PodSecurity;
import io.ordinal.podsecurity.PodSecurityAdmission;
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
import java.util.LinkedHashMap;
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
  private final StatefulSetStore sets;
  private final RevisionStore revisions;
  private final PodStore pods;
  private final Repositories.Pvcs pvcs;
  private final EventRecorder events;
  private final DriverRegistry drivers;
  private final TransactionOperations<Connection> tx;
  private final PodSecurityAdmission podSecurity;

  public PodLifecycle(StatefulSetStore sets, RevisionStore revisions, PodStore pods, Repositories.Pvcs pvcs,
      EventRecorder events, DriverRegistry drivers, TransactionOperations<Connection> tx,
      PodSecurityAdmission podSecurity) {
    this.podSecurity = podSecurity;
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
    Optional<StatefulSet> found = liveSet(key);
    if (found.isEmpty()) {
      return; // the set went away since the plan was made; the next plan sees it
    }
    StatefulSet set = found.get();
    PodTemplateSpec template = revisions.template(key.namespace(), revision)
        .orElseThrow(() -> ApplicationFailure.newFailure("no ControllerRevision " + revision, "MissingRevision"));
    ensureClaims(set, ordinal);
    PodRow created = insertPodIfAbsent(set, template, revision, ordinal);
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
      if (pvcs.existsById(id)) {
        continue;
      }
      String uid = UUID.randomUUID().toString();
      tx.executeWrite(status -> {
        pvcs.save(new PvcRow(id, namespace, claim.getMetadata().getName(), setName, ordinal, uid, KubeJson.write(claim),
            Instant.now(), Repositories.VERSION_ASSIGNED_BY_DATABASE));
        events.record(namespace, "StatefulSet", setName, set.getMetadata().getUid(), EventRecorder.NORMAL,
            "SuccessfulCreate", "create Claim " + claim.getMetadata().getName() + " Pod " + SetKey.podName(setName, ordinal)
                + " in StatefulSet " + setName + " success");
        return null;
      });
    }
  }

  /** Stores the pod in phase Pending unless a pod of that name exists (alive or terminating). */
  private PodRow insertPodIfAbsent(StatefulSet set, PodTemplateSpec template, String revision, int ordinal) {
    String namespace = set.getMetadata().getNamespace();
    Pod pod = PodFactory.pod(set, template, revision, ordinal);
    if (pods.exists(namespace, pod.getMetadata().getName())) {
      return null;
    }
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
    String driver = drivers.policy().effective(Labels.annotation(set.getMetadata(), Labels.DRIVER_ANNOTATION));
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
    drivers.get(row.driver()).stop(DriverPod.of(pods.find(key.namespace(), podName).orElse(row)));
  }

  private void markTerminating(SetKey key, PodRow row, String reason) {
    tx.executeWrite(status -> {
      if (pods.markTerminating(row, Instant.now())) {
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
