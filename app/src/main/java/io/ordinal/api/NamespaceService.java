package io.ordinal.api;

import io.ordinal.api.registry.NamespaceLifecycle;
import io.ordinal.api.registry.WriteOptions;
import io.ordinal.api.registry.Deletion;
import io.fabric8.kubernetes.api.model.Namespace;
import io.micronaut.transaction.TransactionOperations;
import io.ordinal.api.core.NamespaceStorage;
import io.ordinal.api.core.NamespaceStrategy;
import io.ordinal.api.registry.GenericStore;
import io.ordinal.api.registry.Update;
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

  /** default, those created through the API, and those that hold something. */
  public List<Namespace> list() {
    SortedSet<String> names = new TreeSet<>(List.of("default"));
    names.addAll(sets.namespacesInUse());
    store.listStored().forEach(n -> names.add(n.getMetadata().getName()));
    return names.stream().map(store::get).toList();
  }

  public Namespace get(String name) {
    return namespaces.get("", name);
  }

  /** 409 when it exists already: stored, default, or holding something. */
  public Namespace create(Namespace namespace, WriteOptions options) {
    return namespaces.create("", namespace, options);
  }

  /** PUT or PATCH: labels and annotations change; an implicit namespace gets its row. */
  public Namespace update(String name, Update<Namespace> update, WriteOptions options) {
    return namespaces.update("", name, update, options);
  }

  public GenericStore.Applied<Namespace> apply(String name, Namespace config, WriteOptions options) {
    return namespaces.apply("", name, config, options);
  }

  /**
   * Deletes a namespace as upstream does: Terminating at once (deletionTimestamp set, status.phase
   * Terminating, spec.finalizers still ["kubernetes"]), nothing new may be created in it
   * ({@link NamespaceLifecycle}), and the namespace controller ({@link NamespaceDeleter}) deletes all
   * it holds, then the namespace; an empty one is gone when this returns. Answers the namespace as it
   * was marked.
   */
  public Namespace delete(String name, Deletion options) {
    return namespaces.delete("", name, options);
  }
}
