package io.ordinal.store;

import io.micronaut.core.annotation.Nullable;
import io.micronaut.data.annotation.Id;
import io.micronaut.data.annotation.MappedEntity;
import java.time.Instant;

/**
 * A namespace created or labelled through the API, or deleted (then Terminating until all it held is
 * gone); {@code object} is the v1 Namespace as JSON.
 */
@MappedEntity("namespaces")
public record NamespaceRow(@Id String name, String uid, String object, Instant createdAt, long resourceVersion,
    @Nullable Instant deletionTimestamp) {

  public boolean terminating() {
    return deletionTimestamp != null;
  }
}
