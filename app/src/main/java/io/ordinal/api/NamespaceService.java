package io.ordinal.api;

import io.fabric8.kubernetes.api.model.Namespace;
import io.micronaut.transaction.TransactionOperations;
import io.ordinal.api.core.NamespaceStorage;
import io.ordinal.api.core.NamespaceStrategy;
import io.ordinal.api.registry.GenericStore;
import io.ordinal.api.registry.NamespaceLifecycle;
import io.ordinal.auth.Authorization;
import io.ordinal.store.NamespaceContents;
import io.ordinal.store.NamespaceStore;
import io.ordinal.store.StatefulSetStore;
import jakarta.inject.Singleton;
import java.sql.Connection;
import java.util.List;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * Namespaces, on the generic store ({@link NamespaceStrategy}): implicit for every valid name, stored
 * once created or labelled, so that their labels persist; deleting one deletes all it holds.
 */
@Singleton
public class NamespaceService {
  private final NamespaceStore store;
  private final StatefulSetStore sets;
  private final GenericStore<Namespace> namespaces;

  public NamespaceService(NamespaceStore store, StatefulSetStore sets, NamespaceContents contents, NamespaceDeleter deleter,
      TransactionOperations<Connection> tx, NamespaceLifecycle lifecycle, Authorization authorization) {
    this.store = store;
    this.sets = sets;
    this.namespaces = new GenericStore<>(new NamespaceStrategy(store, contents, deleter::delete), new NamespaceStorage(store, sets),
        tx, lifecycle, authorization);
  }

  /** The store of namespaces, which the generic routes write through. */
  public GenericStore<Namespace> store() {
    return namespaces;
  }

  /** default, those created through the API, and those that hold something. */
  public List<Namespace> list() {
    SortedSet<String> names = new TreeSet<>(List.of("default"));
    names.addAll(sets.namespacesInUse());
    store.listStored().forEach(n -> names.add(n.getMetadata().getName()));
    return names.stream().map(store::get).toList();
  }
}
