package io.ordinal.store;

import io.micronaut.data.annotation.Id;
import io.micronaut.data.annotation.MappedEntity;
import java.time.Instant;

@MappedEntity("controller_revisions")
public record ControllerRevisionRow(
    @Id String id,
    String namespace,
    String name,
    String setName,
    String uid,
    long revision,
    String template,
    Instant createdAt,
    long resourceVersion) {}
