package io.ordinal.store;

import io.micronaut.core.annotation.Nullable;
import io.micronaut.data.annotation.GeneratedValue;
import io.micronaut.data.annotation.Id;
import io.micronaut.data.annotation.MappedEntity;
import java.time.Instant;

@MappedEntity("events")
public record EventRow(
    @Id @GeneratedValue @Nullable Long id,
    String namespace,
    String name,
    String uid,
    String involvedKind,
    String involvedName,
    @Nullable String involvedUid,
    String reason,
    String message,
    String type,
    Instant eventTime,
    long resourceVersion,
    int count,
    Instant lastTime,
    boolean aggregate) {}
