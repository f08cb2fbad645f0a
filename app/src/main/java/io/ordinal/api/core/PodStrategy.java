package io.ordinal.api.core;

import io.fabric8.kubernetes.api.model.Pod;
import io.ordinal.api.discovery.ApiResources;
import io.ordinal.api.registry.Resource;
import io.ordinal.api.registry.Strategy;
import io.ordinal.api.statefulset.StatefulSetValidation;
import io.ordinal.apimachinery.FieldError;
import io.ordinal.store.PodStore;
import io.ordinal.temporal.SetSignals;
import java.util.List;

/**
 * Pods as a user may write them: sets create and delete them, a user changes their labels,
 * annotations and owners (kubectl label, annotate; releasing a pod from its set, or orphaning it) and
 * deletes them. The pod's set is woken after each write, so that it adopts or releases the pod, or
 * makes it again, at once.
 */
public final class PodStrategy implements Strategy<Pod> {
  public static final Resource<Pod> RESOURCE = new Resource<>(ApiResources.PODS, Pod.class);

  private final PodStore pods;
  private final SetSignals signals;

  public PodStrategy(PodStore pods, SetSignals signals) {
    this.pods = pods;
    this.signals = signals;
  }

  @Override
  public Resource<Pod> resource() {
    return RESOURCE;
  }

  /** Pods are made by their sets. */
  @Override
  public boolean allowCreate() {
    return false;
  }

  @Override
  public List<FieldError> validate(Pod pod) {
    return List.of();
  }

  /** Upstream's pod update validation: only what may change on a running pod changes. */
  @Override
  public List<FieldError> validateUpdate(Pod pod, Pod old) {
    return StatefulSetValidation.validatePodUpdate(pod, old);
  }

  @Override
  public void afterUpdateCommitted(Pod stored, Pod old) {
    wake(stored);
  }

  @Override
  public void afterDeleteCommitted(Pod deleted) {
    wake(deleted);
  }

  private void wake(Pod pod) {
    String namespace = pod.getMetadata().getNamespace();
    String name = pod.getMetadata().getName();
    pods.find(namespace, name).ifPresent(row -> signals.wake(namespace, row.setName(), name));
  }
}
