package io.ordinal.api.registry;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.ordinal.store.ObjectStore;
import io.ordinal.store.ObjectTable;
import java.time.Instant;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * A kind kept whole in a table of its own ({@link ObjectStore}): RBAC objects, ConfigMaps, Secrets,
 * Services, ServiceAccounts. Each write is its own statement, committed at once; {@code written} runs
 * after each (RBAC renews the authorizer's policy).
 */
public final class ObjectStorage<T extends HasMetadata> implements Storage<T> {
  private final ObjectStore store;
  private final ObjectTable table;
  private final Class<T> type;
  private final Consumer<ObjectTable> written;

  public ObjectStorage(ObjectStore store, ObjectTable table, Class<T> type, Consumer<ObjectTable> written) {
    this.store = store;
    this.table = table;
    this.type = type;
    this.written = written;
  }

  public ObjectStorage(ObjectStore store, ObjectTable table, Class<T> type) {
    this(store, table, type, t -> { });
  }

  /** The store keeps connections of its own (each write commits). */
  @Override
  public boolean transactional() {
    return false;
  }

  @Override
  public Optional<T> get(String namespace, String name) {
    return store.find(table, type, table.namespaced() ? namespace : "", name);
  }

  @Override
  public T create(T object) {
    T created = store.create(table, object, Instant.now());
    written.accept(table);
    return created;
  }

  @Override
  public T update(T object, long expectedVersion) {
    T updated = store.update(table, object, expectedVersion);
    written.accept(table);
    return updated;
  }

  @Override
  public T delete(T current, Deletion options) {
    String namespace = current.getMetadata().getNamespace();
    store.delete(table, namespace == null ? "" : namespace, current.getMetadata().getName(),
        Long.parseLong(current.getMetadata().getResourceVersion()));
    written.accept(table);
    return current;
  }
}
