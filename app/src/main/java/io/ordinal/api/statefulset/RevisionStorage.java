package io.ordinal.api.statefulset;

import io.fabric8.kubernetes.api.model.apps.ControllerRevision;
import io.ordinal.api.discovery.ApiResources;
import io.ordinal.api.registry.Deletion;
import io.ordinal.api.registry.Resource;
import io.ordinal.api.registry.Storage;
import io.ordinal.api.registry.Strategy;
import io.ordinal.model.SetKey;
import io.ordinal.store.RevisionStore;
import io.ordinal.store.StatefulSetStore;
import io.ordinal.store.StoreException;
import io.ordinal.temporal.SetSignals;
import java.util.Optional;

/**
 * ControllerRevisions: made by their sets' controllers, deleted by a user. A deleted revision's set
 * is woken in the same transaction, so that its controller makes its update revision again if it
 * still needs it.
 */
public final class RevisionStorage implements Storage<ControllerRevision> {
  public static final Resource<ControllerRevision> RESOURCE =
      new Resource<>(ApiResources.CONTROLLER_REVISIONS, ControllerRevision.class);

  private final RevisionStore revisions;

  public RevisionStorage(RevisionStore revisions) {
    this.revisions = revisions;
  }

  @Override
  public Optional<ControllerRevision> get(String namespace, String name) {
    return revisions.get(namespace, name);
  }

  @Override
  public ControllerRevision create(ControllerRevision revision) {
    throw new UnsupportedOperationException("revisions are made by their sets' controllers");
  }

  @Override
  public ControllerRevision update(ControllerRevision revision, long expectedVersion) {
    throw new UnsupportedOperationException("revisions are not written through the API");
  }

  @Override
  public ControllerRevision delete(ControllerRevision current, Deletion options) {
    String namespace = current.getMetadata().getNamespace();
    String name = current.getMetadata().getName();
    if (revisions.find(namespace, name).isEmpty()) {
      throw new StoreException(StoreException.Reason.NOT_FOUND, name);
    }
    revisions.delete(namespace, name);
    return current;
  }

  /** What a user may do to a revision: delete it, which wakes its set in the same transaction. */
  public static Strategy<ControllerRevision> strategy(StatefulSetStore sets, SetSignals signals) {
    return Strategy.deleteOnly(RESOURCE, deleted -> {
      String namespace = deleted.getMetadata().getNamespace();
      deleted.getMetadata().getOwnerReferences().stream().findFirst()
          .flatMap(owner -> sets.get(namespace, owner.getName()))
          .ifPresent(set -> signals.queueSpecChange(new SetKey(namespace, set.getMetadata().getName()),
              set.getMetadata().getGeneration()));
    }, deleted -> { });
  }
}
