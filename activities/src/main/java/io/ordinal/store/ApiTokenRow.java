package io.ordinal.store;

import io.micronaut.core.annotation.Nullable;
import io.micronaut.data.annotation.Id;
import io.micronaut.data.annotation.MappedEntity;
import java.time.Instant;

/** One bearer token of the API: who it authenticates, and the hash of its secret. */
@MappedEntity("api_tokens")
public record ApiTokenRow(@Id String id, String secretHash, String username, String uid, String groupsJson,
    String description, Instant createdAt, @Nullable Instant expiresAt, @Nullable Instant revokedAt) {}
