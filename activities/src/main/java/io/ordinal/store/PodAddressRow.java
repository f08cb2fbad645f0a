package io.ordinal.store;

import io.micronaut.data.annotation.Id;
import io.micronaut.data.annotation.MappedEntity;

/** The stable loopback address of one pod identity. */
@MappedEntity("pod_addresses")
public record PodAddressRow(@Id String id, String namespace, String setName, String podName, String ip) {}
