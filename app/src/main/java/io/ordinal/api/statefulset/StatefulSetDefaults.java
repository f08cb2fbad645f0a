package io.ordinal.api.statefulset;

import static io.ordinal.kube.StatefulSetFields.ORDERED_READY;
import static io.ordinal.kube.StatefulSetFields.RETAIN;
import static io.ordinal.kube.StatefulSetFields.ROLLING_UPDATE;
import static io.ordinal.kube.StatefulSetFields.nullSafe;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.apps.RollingUpdateStatefulSetStrategy;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetPersistentVolumeClaimRetentionPolicy;
import io.fabric8.kubernetes.api.model.apps.StatefulSetSpec;
import io.fabric8.kubernetes.api.model.apps.StatefulSetUpdateStrategy;
import io.ordinal.kube.StatefulSetFields;
import java.util.List;
import java.util.stream.Stream;

/** Upstream's defaulting ({@code SetDefaults_StatefulSet} and the pod template defaults it relies on). */
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
    applyTemplateDefaults(spec.getTemplate());
    for (PersistentVolumeClaim claim : nullSafe(spec.getVolumeClaimTemplates())) {
      if (claim.getSpec() != null && claim.getSpec().getVolumeMode() == null) {
        claim.getSpec().setVolumeMode("Filesystem");
      }
    }
    return set;
  }

  private static void applyTemplateDefaults(PodTemplateSpec template) {
    if (template == null || template.getSpec() == null) {
      return;
    }
    PodSpec pod = template.getSpec();
    if (pod.getRestartPolicy() == null || pod.getRestartPolicy().isEmpty()) {
      pod.setRestartPolicy("Always");
    }
    if (pod.getTerminationGracePeriodSeconds() == null) {
      pod.setTerminationGracePeriodSeconds(30L);
    }
    if (pod.getDnsPolicy() == null) {
      pod.setDnsPolicy("ClusterFirst");
    }
    if (pod.getSchedulerName() == null) {
      pod.setSchedulerName("default-scheduler");
    }
    for (Container container : concat(pod.getInitContainers(), pod.getContainers())) {
      if (container.getTerminationMessagePath() == null) {
        container.setTerminationMessagePath("/dev/termination-log");
      }
      if (container.getTerminationMessagePolicy() == null) {
        container.setTerminationMessagePolicy("File");
      }
      if (container.getImagePullPolicy() == null && container.getImage() != null) {
        boolean latest = !container.getImage().contains(":") || container.getImage().endsWith(":latest");
        container.setImagePullPolicy(latest ? "Always" : "IfNotPresent");
      }
      for (ContainerPort port : nullSafe(container.getPorts())) {
        if (port.getProtocol() == null) {
          port.setProtocol("TCP");
        }
      }
    }
  }

  static List<Container> concat(List<Container> a, List<Container> b) {
    return Stream.concat(nullSafe(a).stream(), nullSafe(b).stream()).toList();
  }
}
