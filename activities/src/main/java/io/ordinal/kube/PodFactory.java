package io.ordinal.kube;

import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.ordinal.model.SetKey;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Builds the pod and PVCs of one ordinal, as upstream's {@code newVersionedStatefulSetPod},
 * {@code initIdentity} and {@code updateStorage} do. Pure; the caller deep-copies its inputs.
 */
public final class PodFactory {
  private PodFactory() {}

  public static String claimName(String claimTemplate, String setName, int ordinal) {
    return claimTemplate + "-" + setName + "-" + ordinal;
  }

  /** The pod of {@code ordinal} from {@code template}, the pod template stored in revision {@code revision}. */
  public static Pod pod(StatefulSet set, PodTemplateSpec template, String revision, int ordinal) {
    String setName = set.getMetadata().getName();
    String podName = SetKey.podName(setName, ordinal);
    ObjectMeta templateMeta = template.getMetadata() == null ? new ObjectMeta() : template.getMetadata();
    Map<String, String> labels = new LinkedHashMap<>(templateMeta.getLabels() == null ? Map.of() : templateMeta.getLabels());
    labels.put(Labels.POD_NAME, podName);
    labels.put(Labels.REVISION_HASH, revision);
    labels.put(Labels.POD_INDEX, Integer.toString(ordinal));

    ObjectMeta meta = new ObjectMeta();
    meta.setName(podName);
    meta.setNamespace(set.getMetadata().getNamespace());
    meta.setLabels(labels);
    meta.setAnnotations(templateMeta.getAnnotations());
    meta.setOwnerReferences(List.of(ownerReference(set)));

    PodSpec spec = template.getSpec();
    spec.setHostname(podName);
    if (set.getSpec().getServiceName() != null && !set.getSpec().getServiceName().isEmpty()) {
      spec.setSubdomain(set.getSpec().getServiceName());
    }
    // Each claim template replaces any template volume of the same name with the ordinal's PVC.
    List<Volume> volumes = new ArrayList<>();
    List<PersistentVolumeClaim> claims = StatefulSetFields.nullSafe(set.getSpec().getVolumeClaimTemplates());
    for (PersistentVolumeClaim claim : claims) {
      String name = claim.getMetadata().getName();
      volumes.add(new VolumeBuilder().withName(name)
          .withNewPersistentVolumeClaim(claimName(name, setName, ordinal), false).build());
    }
    for (Volume volume : StatefulSetFields.nullSafe(spec.getVolumes())) {
      if (claims.stream().noneMatch(c -> c.getMetadata().getName().equals(volume.getName()))) {
        volumes.add(volume);
      }
    }
    spec.setVolumes(volumes);

    Pod pod = new Pod();
    pod.setApiVersion("v1");
    pod.setKind("Pod");
    pod.setMetadata(meta);
    pod.setSpec(spec);
    return pod;
  }

  /** The PVCs of {@code ordinal}, one per volumeClaimTemplate, labelled with the set's selector labels. */
  public static List<PersistentVolumeClaim> claims(StatefulSet set, int ordinal) {
    String setName = set.getMetadata().getName();
    Map<String, String> selectorLabels = set.getSpec().getSelector() == null || set.getSpec().getSelector().getMatchLabels() == null
        ? Map.of() : set.getSpec().getSelector().getMatchLabels();
    List<PersistentVolumeClaim> result = new ArrayList<>();
    for (PersistentVolumeClaim template : StatefulSetFields.nullSafe(set.getSpec().getVolumeClaimTemplates())) {
      Map<String, String> labels = new LinkedHashMap<>(
          template.getMetadata().getLabels() == null ? Map.of() : template.getMetadata().getLabels());
      labels.putAll(selectorLabels);
      result.add(new PersistentVolumeClaimBuilder()
          .withNewMetadata()
            .withName(claimName(template.getMetadata().getName(), setName, ordinal))
            .withNamespace(set.getMetadata().getNamespace())
            .withLabels(labels)
            .withAnnotations(template.getMetadata().getAnnotations())
          .endMetadata()
          .withSpec(template.getSpec())
          .withNewStatus().withPhase("Bound").withAccessModes(template.getSpec().getAccessModes())
            .withCapacity(template.getSpec().getResources().getRequests()).endStatus()
          .build());
    }
    return result;
  }

  /** The reference a set's pods carry to it: their controller, which blocks the set's foreground deletion. */
  public static OwnerReference ownerReference(StatefulSet set) {
    return new OwnerReferenceBuilder()
        .withApiVersion("apps/v1")
        .withKind("StatefulSet")
        .withName(set.getMetadata().getName())
        .withUid(set.getMetadata().getUid())
        .withController(true)
        .withBlockOwnerDeletion(true)
        .build();
  }
}
