package io.ordinal.store;

import io.micronaut.core.annotation.Nullable;
import io.micronaut.data.annotation.Id;
import io.micronaut.data.annotation.MappedEntity;
import java.time.Instant;

@MappedEntity("statefulsets")
public record StatefulSetRow(
    @Id String id,
    String namespace,
    String name,
    String uid,
    long resourceVersion,
    long generation,
    Instant createdAt,
    @Nullable Instant deletionTimestamp,
    String object,
    @Nullable String status,
    @Nullable String activeOperation,
    boolean deletedInBackground) {}
