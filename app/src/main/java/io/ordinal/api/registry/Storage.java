package io.ordinal.api.registry;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.ordinal.store.KubeJson;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;

/**
 * Where a kind's objects are kept: the generic store's only way to the database. Writes throw
 * {@link io.ordinal.store.StoreException} (not found, already exists, conflict); the store maps
 * them to the API's answers.
 */
public interface Storage<T extends HasMetadata> {
  /** The object as a client reads it, if it exists. */
  Optional<T> get(String namespace, String name);

  /** Whether a create of this name would collide (a dry run's check): by default, whether it reads. */
  default boolean exists(String namespace, String name) {
    return get(namespace, name).isPresent();
  }

  /** Stores a new object: uid, creationTimestamp and resourceVersion are the storage's. */
  T create(T object);

  /** Stores {@code object} over the stored one if that is still at {@code expectedVersion}. */
  T update(T object, long expectedVersion);

  /** Deletes {@code current} (or marks it deleting, when something must happen first); returns it as it is now. */
  T delete(T current, Deletion options);

  /**
   * Whether the storage's writes and the strategy's after- hooks run in one transaction. Not when a
   * write reaches outside the database (a pod's processes, a claim's volume) and orders its own steps
   * to survive a crash between them, nor when the storage keeps connections of its own.
   */
  default boolean transactional() {
    return true;
  }

  /** Whether an object of this name exists and is being deleted (a create's 409 says so). */
  default boolean deleting(String namespace, String name) {
    return get(namespace, name).map(object -> object.getMetadata().getDeletionTimestamp() != null).orElse(false);
  }

  /** What {@link #create} would return, without storing (a dry run). */
  default T asCreated(T object) {
    T created = KubeJson.copy(object);
    created.getMetadata().setUid(UUID.randomUUID().toString());
    created.getMetadata().setCreationTimestamp(KubeJson.timestamp(Instant.now()));
    created.getMetadata().setResourceVersion(null);
    created.getMetadata().setDeletionTimestamp(null);
    return created;
  }

  /** What {@link #update} would return over {@code old}, without storing (a dry run). */
  default T asUpdated(T object, T old) {
    T updated = KubeJson.copy(object);
    updated.getMetadata().setUid(old.getMetadata().getUid());
    updated.getMetadata().setCreationTimestamp(old.getMetadata().getCreationTimestamp());
    updated.getMetadata().setResourceVersion(old.getMetadata().getResourceVersion());
    updated.getMetadata().setDeletionTimestamp(old.getMetadata().getDeletionTimestamp());
    updated.getMetadata().setGeneration(old.getMetadata().getGeneration());
    return updated;
  }

  /** What {@link #delete} would return, without deleting (a dry run). */
  default T asDeleted(T current, Deletion options) {
    return current;
  }
}
