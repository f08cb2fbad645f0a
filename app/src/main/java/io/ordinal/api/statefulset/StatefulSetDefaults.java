package io.ordinal.api.statefulset;

import static io.ordinal.kube.StatefulSetFields.ORDERED_READY;
import static io.ordinal.kube.StatefulSetFields.RETAIN;
import static io.ordinal.kube.StatefulSetFields.ROLLING_UPDATE;
import static io.ordinal.kube.StatefulSetFields.nullSafe;

import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.apps.RollingUpdateStatefulSetStrategy;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetPersistentVolumeClaimRetentionPolicy;
import io.fabric8.kubernetes.api.model.apps.StatefulSetSpec;
import io.fabric8.kubernetes.api.model.apps.StatefulSetUpdateStrategy;
import io.ordinal.kube.PodTemplateDefaults;

/**
 * Upstream's apps/v1 defaulting of a StatefulSet: {@code SetDefaults_StatefulSet} here, and for the pod
 * template and claim templates {@link PodTemplateDefaults}, which the revision hash depends on.
 */
public final class StatefulSetDefaults {

  private StatefulSetDefaults() {}

  /** Fills every unset field that upstream defaults. Mutates and returns {@code set}. */
  public static StatefulSet apply(StatefulSet set) {
    StatefulSetSpec spec = set.getSpec();
    if (spec == null) {
      return set; // validation reports the missing spec
    }
    if (spec.getReplicas() == null) {
      spec.setReplicas(1);
    }
    if (spec.getPodManagementPolicy() == null || spec.getPodManagementPolicy().isEmpty()) {
      spec.setPodManagementPolicy(ORDERED_READY);
    }
    if (spec.getUpdateStrategy() == null) {
      spec.setUpdateStrategy(new StatefulSetUpdateStrategy());
    }
    StatefulSetUpdateStrategy strategy = spec.getUpdateStrategy();
    if (strategy.getType() == null || strategy.getType().isEmpty()) {
      strategy.setType(ROLLING_UPDATE);
    }
    if (ROLLING_UPDATE.equals(strategy.getType())) {
      if (strategy.getRollingUpdate() == null) {
        strategy.setRollingUpdate(new RollingUpdateStatefulSetStrategy());
      }
      if (strategy.getRollingUpdate().getPartition() == null) {
        strategy.getRollingUpdate().setPartition(0);
      }
    }
    if (spec.getRevisionHistoryLimit() == null) {
      spec.setRevisionHistoryLimit(10);
    }
    if (spec.getMinReadySeconds() == null) {
      spec.setMinReadySeconds(0);
    }
    if (spec.getPersistentVolumeClaimRetentionPolicy() == null) {
      spec.setPersistentVolumeClaimRetentionPolicy(new StatefulSetPersistentVolumeClaimRetentionPolicy());
    }
    var retention = spec.getPersistentVolumeClaimRetentionPolicy();
    if (retention.getWhenDeleted() == null || retention.getWhenDeleted().isEmpty()) {
      retention.setWhenDeleted(RETAIN);
    }
    if (retention.getWhenScaled() == null || retention.getWhenScaled().isEmpty()) {
      retention.setWhenScaled(RETAIN);
    }
    PodTemplateDefaults.apply(spec.getTemplate());
    for (PersistentVolumeClaim claim : nullSafe(spec.getVolumeClaimTemplates())) {
      PodTemplateDefaults.applyClaim(claim);
    }
    return set;
  }
}
