package io.ordinal.store;

import io.micronaut.core.annotation.Nullable;
import io.micronaut.data.annotation.GeneratedValue;
import io.micronaut.data.annotation.Id;
import io.micronaut.data.annotation.MappedEntity;
import java.time.Instant;

/** A spec change its set's controller has not been told of yet (table {@code controller_outbox}). */
@MappedEntity("controller_outbox")
public record OutboxRow(
    @Id @GeneratedValue Long id,
    String namespace,
    String name,
    long generation,
    @Nullable String requestedBy,
    @Nullable Instant createdAt,
    @Nullable String traceparent) {}
