package io.ordinal.api.registry;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.ordinal.apimachinery.FieldError;
import java.util.List;
import java.util.function.Consumer;

/**
 * What is particular to a kind (upstream's RESTCreateStrategy, RESTUpdateStrategy and
 * RESTDeleteStrategy): the generic store calls these in upstream's order. Create: prepareForCreate,
 * validate, admit, store, afterCreate. Update: prepareForUpdate, validateUpdate, admit, store,
 * afterUpdate, then afterUpdateCommitted. The after- hooks run in the write's transaction (the outbox signal
 * to a controller commits with the change); none of them runs in a dry run.
 */
public interface Strategy<T extends HasMetadata> {
  Resource<T> resource();

  /** Clears what a client may not set on create (status) and applies the defaults. */
  default void prepareForCreate(T object) {}

  /** Takes back from {@code old} what this write may not change (the status on the main resource, all but the status on /status). */
  default void prepareForUpdate(T object, T old) {}

  List<FieldError> validate(T object);

  List<FieldError> validateUpdate(T object, T old);

  /** Policy after validation (Pod Security, RBAC escalation): throws 403. {@code old} is null on create. */
  default void admit(T object, T old, WriteOptions options) {}

  /** Whether clients may create objects of this kind (pods and claims are made by their sets: 405). */
  default boolean allowCreate() {
    return true;
  }

  /** Whether an update without metadata.resourceVersion applies to whatever is stored (retried on conflict). */
  default boolean allowUnconditionalUpdate() {
    return true;
  }

  /** Refuses a delete this kind does not allow now (throws); nothing by default. */
  default void checkDelete(T current) {}

  /** The subresource this strategy writes ({@code status}), null for the main resource: managedFields record it. */
  default String subresource() {
    return null;
  }

  default void afterCreate(T stored) {}

  default void afterUpdate(T stored, T old) {}

  default void afterDelete(T deleted) {}

  /** After an update committed, outside its transaction (what may wait for a controller). */
  default void afterUpdateCommitted(T stored, T old) {}

  /** After a delete committed, outside its transaction (what may take long: a namespace's contents). */
  default void afterDeleteCommitted(T deleted) {}

  /**
   * The strategy of a kind whose objects a controller makes and a user may only delete (claims,
   * revisions): no create, nothing to validate (no update reaches it), and what a deletion wakes.
   */
  static <T extends HasMetadata> Strategy<T> deleteOnly(Resource<T> resource, Consumer<T> afterDelete,
      Consumer<T> afterDeleteCommitted) {
    return new Strategy<>() {
      @Override
      public Resource<T> resource() {
        return resource;
      }

      @Override
      public boolean allowCreate() {
        return false;
      }

      @Override
      public List<FieldError> validate(T object) {
        return List.of();
      }

      @Override
      public List<FieldError> validateUpdate(T object, T old) {
        return List.of();
      }

      @Override
      public void afterDelete(T deleted) {
        afterDelete.accept(deleted);
      }

      @Override
      public void afterDeleteCommitted(T deleted) {
        afterDeleteCommitted.accept(deleted);
      }
    };
  }
}
