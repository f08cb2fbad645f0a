package io.ordinal.store;

import io.micronaut.core.annotation.Nullable;
import io.micronaut.data.annotation.Id;
import io.micronaut.data.annotation.MappedEntity;
import java.time.Instant;

/** A pod: its object (metadata and spec) plus the status columns its driver maintains. */
@MappedEntity("pods")
public record PodRow(
    @Id String id,
    String namespace,
    String name,
    String setName,
    int ordinal,
    String uid,
    String revision,
    String driver,
    String object,
    String phase,
    boolean ready,
    @Nullable Instant readySince,
    @Nullable Instant startedAt,
    @Nullable Instant deletionTimestamp,
    Instant createdAt,
    long resourceVersion,
    @Nullable String message,
    @Nullable String podIp,
    @Nullable String containerStatuses) {

  public boolean terminating() {
    return deletionTimestamp != null;
  }
}
