package io.ordinal.store;

import io.micronaut.core.annotation.Nullable;
import io.micronaut.data.annotation.Id;
import io.micronaut.data.annotation.MappedEntity;
import java.time.Instant;

@MappedEntity("persistent_volume_claims")
public record PvcRow(
    @Id String id,
    String namespace,
    String name,
    String setName,
    int ordinal,
    String uid,
    String object,
    Instant createdAt,
    long resourceVersion,
    @Nullable Instant deletionTimestamp) {

  public boolean terminating() {
    return deletionTimestamp != null;
  }
}
