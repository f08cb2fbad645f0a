package io.ordinal.model;

/**
 * A set's observed status, the counts and revisions of apps/v1 {@code StatefulSetStatus} without its
 * conditions (those are the rollouts' to set).
 */
public record SetStatus(
    long observedGeneration,
    int replicas,
    int readyReplicas,
    int availableReplicas,
    int currentReplicas,
    int updatedReplicas,
    String currentRevision,
    String updateRevision,
    int collisionCount) {}
