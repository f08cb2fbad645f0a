package io.ordinal.api.core;

import io.fabric8.kubernetes.api.model.Pod;
import io.ordinal.api.registry.Deletion;
import io.ordinal.api.registry.Storage;
import io.ordinal.model.SetKey;
import io.ordinal.pods.PodLifecycle;
import io.ordinal.store.KubeJson;
import io.ordinal.store.PodRow;
import io.ordinal.store.PodStore;
import io.ordinal.store.StoreException;
import java.util.Optional;

/**
 * Pods in their table: an update writes the metadata a user may change (labels, annotations, owners,
 * managedFields); a delete is graceful, by the pod's lifecycle (its set makes it again, with the
 * same identity and storage).
 */
public final class PodStorage implements Storage<Pod> {
  private final PodStore pods;
  private final PodLifecycle lifecycle;

  public PodStorage(PodStore pods, PodLifecycle lifecycle) {
    this.pods = pods;
    this.lifecycle = lifecycle;
  }

  /** The driver's own steps (stopping processes, removing a volume) are ordered to survive a crash. */
  @Override
  public boolean transactional() {
    return false;
  }

  @Override
  public Optional<Pod> get(String namespace, String name) {
    return pods.find(namespace, name).map(PodStore::toObject);
  }

  @Override
  public Pod create(Pod pod) {
    throw new UnsupportedOperationException("pods are made by their sets");
  }

  @Override
  public Pod update(Pod pod, long expectedVersion) {
    String namespace = pod.getMetadata().getNamespace();
    String name = pod.getMetadata().getName();
    PodRow row = pods.find(namespace, name)
        .orElseThrow(() -> new StoreException(StoreException.Reason.NOT_FOUND, "pods \"" + name + "\" not found"));
    if (row.resourceVersion() != expectedVersion || !pods.updateMetadata(row, pod.getMetadata(), expectedVersion)) {
      throw new StoreException(StoreException.Reason.CONFLICT, "pods \"" + name + "\" changed");
    }
    return get(namespace, name).orElseThrow();
  }

  @Override
  public Pod asUpdated(Pod pod, Pod old) {
    Pod updated = KubeJson.copy(old);
    PodStore.copyWritableMetadata(pod.getMetadata(), updated.getMetadata());
    return updated;
  }

  @Override
  public Pod delete(Pod current, Deletion options) {
    String namespace = current.getMetadata().getNamespace();
    String name = current.getMetadata().getName();
    PodRow row = pods.find(namespace, name)
        .orElseThrow(() -> new StoreException(StoreException.Reason.NOT_FOUND, "pods \"" + name + "\" not found"));
    lifecycle.deletePod(new SetKey(namespace, row.setName()), name, "deleted through the API");
    return get(namespace, name).orElse(current);
  }
}
