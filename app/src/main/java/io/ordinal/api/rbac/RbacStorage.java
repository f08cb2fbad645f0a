package io.ordinal.api.rbac;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.ordinal.api.registry.Deletion;
import io.ordinal.api.registry.Storage;
import io.ordinal.auth.rbac.Rbac;
import io.ordinal.store.RbacStore.Kind;
import java.util.Optional;

/** One RBAC kind in its table, through {@link Rbac}, which renews the authorizer's policy after each write. */
public final class RbacStorage<T extends HasMetadata> implements Storage<T> {
  private final Kind kind;
  private final Class<T> type;
  private final Rbac rbac;

  public RbacStorage(Kind kind, Class<T> type, Rbac rbac) {
    this.kind = kind;
    this.type = type;
    this.rbac = rbac;
  }

  /** RbacStore keeps connections of its own (each write commits), and Rbac renews the policy after it. */
  @Override
  public boolean transactional() {
    return false;
  }

  @Override
  public Optional<T> get(String namespace, String name) {
    return rbac.find(kind, type, kind.namespaced ? namespace : "", name);
  }

  @Override
  public T create(T object) {
    return rbac.create(kind, object);
  }

  @Override
  public T update(T object, long expectedVersion) {
    return rbac.update(kind, object, expectedVersion);
  }

  @Override
  public T delete(T current, Deletion options) {
    String namespace = current.getMetadata().getNamespace();
    rbac.delete(kind, namespace == null ? "" : namespace, current.getMetadata().getName(),
        Long.parseLong(current.getMetadata().getResourceVersion()));
    return current;
  }
}
