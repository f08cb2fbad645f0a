package io.ordinal.api.statefulset;

import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.ordinal.api.registry.Deletion;
import io.ordinal.api.registry.Storage;
import io.ordinal.store.StatefulSetStore;
import io.ordinal.store.StoreException;
import java.util.Optional;

/** StatefulSets in their table; {@link #status()} writes the status column only. */
public final class StatefulSetStorage implements Storage<StatefulSet> {
  private final StatefulSetStore store;

  public StatefulSetStorage(StatefulSetStore store) {
    this.store = store;
  }

  @Override
  public Optional<StatefulSet> get(String namespace, String name) {
    return store.getVisible(namespace, name);
  }

  /** A set deleted in the background is hidden from reads but holds its name until it is gone. */
  @Override
  public boolean exists(String namespace, String name) {
    return store.get(namespace, name).isPresent();
  }

  @Override
  public boolean deleting(String namespace, String name) {
    return store.get(namespace, name).map(set -> set.getMetadata().getDeletionTimestamp() != null).orElse(false);
  }

  @Override
  public StatefulSet create(StatefulSet set) {
    return store.create(set);
  }

  @Override
  public StatefulSet update(StatefulSet set, long expectedVersion) {
    return store.update(set, expectedVersion);
  }

  /** The set is marked deleting: its controller removes its pods as the propagation policy says, then the set. */
  @Override
  public StatefulSet delete(StatefulSet current, Deletion options) {
    return store.markDeleting(current.getMetadata().getNamespace(), current.getMetadata().getName(), options.propagation());
  }

  @Override
  public StatefulSet asCreated(StatefulSet set) {
    return StatefulSetStore.asCreated(set);
  }

  @Override
  public StatefulSet asUpdated(StatefulSet set, StatefulSet old) {
    return StatefulSetStore.asUpdated(set, old);
  }

  /** The same sets, but an update writes only their status. */
  public Storage<StatefulSet> status() {
    return new Storage<>() {
      @Override
      public Optional<StatefulSet> get(String namespace, String name) {
        return StatefulSetStorage.this.get(namespace, name);
      }

      @Override
      public StatefulSet create(StatefulSet set) {
        throw new UnsupportedOperationException("a status is not created");
      }

      @Override
      public StatefulSet update(StatefulSet set, long expectedVersion) {
        String namespace = set.getMetadata().getNamespace();
        String name = set.getMetadata().getName();
        if (!store.writeStatusIfVersion(namespace, name, set.getStatus(), expectedVersion)) {
          throw new StoreException(StoreException.Reason.CONFLICT, StatefulSetStore.conflictMessage(name));
        }
        return get(namespace, name).orElseThrow();
      }

      @Override
      public StatefulSet delete(StatefulSet current, Deletion options) {
        throw new UnsupportedOperationException("a status is not deleted");
      }
    };
  }
}
