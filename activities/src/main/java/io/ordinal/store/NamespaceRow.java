package io.ordinal.store;

import io.micronaut.data.annotation.Id;
import io.micronaut.data.annotation.MappedEntity;
import java.time.Instant;

/** A namespace created or labelled through the API; {@code object} is the v1 Namespace as JSON. */
@MappedEntity("namespaces")
public record NamespaceRow(@Id String name, String uid, String object, Instant createdAt, long resourceVersion) {}
