package io.ordinal.api.core;

import io.fabric8.kubernetes.api.model.Namespace;
import io.ordinal.api.registry.Deletion;
import io.ordinal.api.registry.Storage;
import io.ordinal.apimachinery.ObjectMetaValidation;
import io.ordinal.store.KubeJson;
import io.ordinal.store.NamespaceStore;
import io.ordinal.store.StatefulSetStore;
import io.ordinal.store.StoreException;
import java.time.Instant;
import java.util.Optional;

/**
 * Namespaces: every valid name reads as one (implicit, at version 0); one exists once created,
 * labelled, or holding something ({@code default} always does). An update of an implicit namespace
 * gives it its row; a delete marks it Terminating (the namespace controller empties it, then removes it).
 */
public final class NamespaceStorage implements Storage<Namespace> {
  private final NamespaceStore store;
  private final StatefulSetStore sets;

  public NamespaceStorage(NamespaceStore store, StatefulSetStore sets) {
    this.store = store;
    this.sets = sets;
  }

  @Override
  public Optional<Namespace> get(String ignored, String name) {
    if (name == null || !ObjectMetaValidation.validateNamespace(name).isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(store.get(name));
  }

  /** Created, default, or holding a set: what a create of the name collides with. */
  @Override
  public boolean exists(String ignored, String name) {
    return name.equals("default") || sets.namespacesInUse().contains(name) || store.find(name).isPresent();
  }

  @Override
  public Namespace create(Namespace namespace) {
    String name = namespace.getMetadata().getName();
    if (exists("", name) || !store.create(namespace)) {
      throw new StoreException(StoreException.Reason.ALREADY_EXISTS, name);
    }
    return store.get(name);
  }

  @Override
  public Namespace update(Namespace namespace, long expectedVersion) {
    if (!store.update(namespace, expectedVersion)) {
      throw new StoreException(StoreException.Reason.CONFLICT, namespace.getMetadata().getName());
    }
    return store.get(namespace.getMetadata().getName());
  }

  @Override
  public Namespace delete(Namespace current, Deletion options) {
    return store.markTerminating(current.getMetadata().getName());
  }

  @Override
  public Namespace asDeleted(Namespace current, Deletion options) {
    Namespace terminating = KubeJson.copy(current);
    terminating.getMetadata().setDeletionTimestamp(KubeJson.timestamp(Instant.now()));
    terminating.getStatus().setPhase("Terminating");
    return terminating;
  }
}
