package io.ordinal.store;

import io.micronaut.core.annotation.Nullable;
import io.micronaut.data.annotation.Id;
import io.micronaut.data.annotation.MappedEntity;
import java.time.Instant;

/**
 * @param changeCause the set's {@code kubernetes.io/change-cause} when the revision was made (or brought back)
 * @param updatedAt when the revision last got its number, that is became the update revision
 * @param rolledBack an older revision brought back: the rollout to it is a rollback
 */
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
    long resourceVersion,
    @Nullable String changeCause,
    Instant updatedAt,
    boolean rolledBack,
    @Nullable String memberOverrides) {}
