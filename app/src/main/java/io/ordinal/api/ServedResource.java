package io.ordinal.api;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.micronaut.core.annotation.Nullable;
import io.ordinal.api.discovery.ApiResources;
import io.ordinal.api.registry.GenericStore;

/**
 * A described resource as the generic routes ({@link ResourceApi}) serve it, upstream's rest.Storage
 * behind {@code endpoints/installer.go}: its collection (list, watch, tables), how one object is read,
 * and, for a kind clients write, its generic store. Which verbs it answers is its description's.
 *
 * @param deleteAnswersStatus whether a DELETE answers a Status (RBAC objects) instead of the object
 */
public record ServedResource<T extends HasMetadata>(ApiResources.Resource description, Collection<T> collection,
    Reader<T> reader, @Nullable GenericStore<T> store, boolean deleteAnswersStatus) {

  /** Reads one object; throws 404 when there is none. */
  @FunctionalInterface
  public interface Reader<T> {
    T get(String namespace, String name);
  }

  /** A kind written through its generic store. */
  public static <T extends HasMetadata> ServedResource<T> written(GenericStore<T> store, Collection<T> collection) {
    return new ServedResource<>(store.resource().description(), collection, store::get, store, false);
  }

  /** A kind clients only read (events, endpoints). */
  public static <T extends HasMetadata> ServedResource<T> readOnly(ApiResources.Resource description,
      Collection<T> collection, Reader<T> reader) {
    return new ServedResource<>(description, collection, reader, null, false);
  }

  public boolean allows(String verb) {
    return description.verbs().contains(verb);
  }

  /** The store, for a verb the description lists; a described write without a store is a wiring mistake. */
  GenericStore<T> writer() {
    if (store == null) {
      throw new IllegalStateException(description.plural() + " lists a write verb but has no store");
    }
    return store;
  }
}
