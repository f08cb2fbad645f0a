package io.ordinal.api.statefulset;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetStatusBuilder;
import org.junit.jupiter.api.Test;

class RolloutStatusTest {
  static StatefulSet set(int partition, long generation, long observed, int ready, int updated, String current, String update) {
    StatefulSet set = StatefulSetValidationTest.valid();
    StatefulSetDefaults.apply(set);
    set.getSpec().getUpdateStrategy().getRollingUpdate().setPartition(partition);
    set.getMetadata().setGeneration(generation);
    set.setStatus(new StatefulSetStatusBuilder().withObservedGeneration(observed).withReplicas(3).withReadyReplicas(ready)
        .withUpdatedReplicas(updated).withCurrentReplicas(3 - updated).withCurrentRevision(current).withUpdateRevision(update).build());
    return set;
  }

  @Test
  void messagesFollowKubectl() {
    assertEquals("Waiting for statefulset spec update to be observed...", RolloutStatus.of(set(0, 2, 1, 3, 0, "a", "a"), false).message());
    assertEquals("Waiting for 1 pods to be ready...", RolloutStatus.of(set(0, 2, 2, 2, 1, "a", "b"), false).message());
    assertEquals("waiting for statefulset rolling update to complete 1 pods at revision b...",
        RolloutStatus.of(set(0, 2, 2, 3, 1, "a", "b"), false).message());
    assertEquals("Waiting for partitioned roll out to finish: 0 out of 1 new pods have been updated...",
        RolloutStatus.of(set(2, 2, 2, 3, 0, "a", "b"), false).message());
    RolloutStatus partitioned = RolloutStatus.of(set(2, 2, 2, 3, 1, "a", "b"), false);
    assertEquals("partitioned roll out complete: 1 new pods have been updated...", partitioned.message());
    assertEquals("Complete", partitioned.phase());
    assertEquals("Progressing", RolloutStatus.of(set(0, 2, 2, 3, 1, "a", "b"), false).phase());
  }
}
