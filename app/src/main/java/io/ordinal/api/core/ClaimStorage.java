package io.ordinal.api.core;

import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.ordinal.api.discovery.ApiResources;
import io.ordinal.api.registry.Deletion;
import io.ordinal.api.registry.Resource;
import io.ordinal.api.registry.Storage;
import io.ordinal.api.registry.Strategy;
import io.ordinal.pods.PodLifecycle;
import io.ordinal.store.PodStore;
import io.ordinal.store.StoreException;
import io.ordinal.temporal.SetSignals;
import java.util.Optional;

/**
 * PersistentVolumeClaims: made from their sets' templates, deleted by a user. A delete marks the
 * claim and removes it with its volume at once when no pod mounts it, else when the last such pod is
 * gone (upstream's pvc-protection); the claim's set is woken, so that a pod waiting for it gets a new
 * one from the template.
 */
public final class ClaimStorage implements Storage<PersistentVolumeClaim> {
  public static final Resource<PersistentVolumeClaim> RESOURCE =
      new Resource<>(ApiResources.CLAIMS, PersistentVolumeClaim.class);

  private final PodStore pods;
  private final PodLifecycle lifecycle;

  public ClaimStorage(PodStore pods, PodLifecycle lifecycle) {
    this.pods = pods;
    this.lifecycle = lifecycle;
  }

  /** The driver's own steps (stopping processes, removing a volume) are ordered to survive a crash. */
  @Override
  public boolean transactional() {
    return false;
  }

  @Override
  public Optional<PersistentVolumeClaim> get(String namespace, String name) {
    return pods.findClaim(namespace, name);
  }

  @Override
  public PersistentVolumeClaim create(PersistentVolumeClaim claim) {
    throw new UnsupportedOperationException("claims are made from their sets' templates");
  }

  @Override
  public PersistentVolumeClaim update(PersistentVolumeClaim claim, long expectedVersion) {
    throw new UnsupportedOperationException("claims are not written through the API");
  }

  @Override
  public PersistentVolumeClaim delete(PersistentVolumeClaim current, Deletion options) {
    String namespace = current.getMetadata().getNamespace();
    String name = current.getMetadata().getName();
    return lifecycle.deleteClaimByUser(namespace, name)
        .orElseThrow(() -> new StoreException(StoreException.Reason.NOT_FOUND, name));
  }

  /** What a user may do to a claim: delete it, which wakes its set once committed. */
  public static Strategy<PersistentVolumeClaim> strategy(PodStore pods, SetSignals signals) {
    return Strategy.deleteOnly(RESOURCE, deleted -> { }, deleted -> {
      String namespace = deleted.getMetadata().getNamespace();
      String name = deleted.getMetadata().getName();
      pods.claimRow(namespace, name).ifPresent(row -> signals.wake(namespace, row.setName(), name));
    });
  }
}
