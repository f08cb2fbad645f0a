package io.ordinal.kube;

import io.fabric8.kubernetes.api.model.apps.StatefulSetCondition;
import io.fabric8.kubernetes.api.model.apps.StatefulSetStatus;
import io.fabric8.kubernetes.api.model.apps.StatefulSetStatusBuilder;
import io.ordinal.model.SetStatus;
import java.util.List;

/** The apps/v1 form of a set's status (its arithmetic is {@link SetStatus#compute}). */
public final class StatusCalculator {

  private StatusCalculator() {}

  /** The apps/v1 status object: {@code status} with {@code conditions}. */
  public static StatefulSetStatus toObject(SetStatus status, List<StatefulSetCondition> conditions) {
    StatefulSetStatus object = new StatefulSetStatusBuilder()
        .withObservedGeneration(status.observedGeneration())
        .withReplicas(status.replicas())
        .withReadyReplicas(status.readyReplicas())
        .withAvailableReplicas(status.availableReplicas())
        .withCurrentReplicas(status.currentReplicas())
        .withUpdatedReplicas(status.updatedReplicas())
        .withCurrentRevision(status.currentRevision())
        .withUpdateRevision(status.updateRevision())
        .withCollisionCount(status.collisionCount())
        .build();
    object.setConditions(conditions);
    return object;
  }
}
