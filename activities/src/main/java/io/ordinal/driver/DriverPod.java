package io.ordinal.driver;

import io.fabric8.kubernetes.api.model.Pod;
import io.ordinal.store.KubeJson;
import io.ordinal.store.PodRow;
import io.ordinal.store.StatefulSetStore;
import java.time.Instant;

/**
 * A pod as its driver sees it: its identity (one incarnation: {@code uid}), its object (metadata and
 * spec), and the lifecycle it has had so far.
 */
public record DriverPod(String namespace, String name, String setName, int ordinal, String uid, Pod object,
    String phase, boolean ready, Instant createdAt, Instant startedAt, Instant deletionTimestamp) {

  public static DriverPod of(PodRow row) {
    return new DriverPod(row.namespace(), row.name(), row.setName(), row.ordinal(), row.uid(),
        KubeJson.read(row.object(), Pod.class), row.phase(), row.ready(), row.createdAt(), row.startedAt(),
        row.deletionTimestamp());
  }

  /** The id of the pod's row in the store. */
  public String id() {
    return StatefulSetStore.id(namespace, name);
  }

  public boolean terminating() {
    return deletionTimestamp != null;
  }
}
