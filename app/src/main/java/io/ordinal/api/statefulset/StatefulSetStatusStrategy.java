package io.ordinal.api.statefulset;

import io.ordinal.apimachinery.FieldError;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetStatus;
import io.ordinal.api.registry.Resource;
import io.ordinal.api.registry.Strategy;
import io.ordinal.store.KubeJson;
import java.util.List;

/**
 * The /status subresource (upstream's statefulSetStatusStrategy): only the status changes, the
 * metadata and spec of the body are ignored. The controller owns the status and publishes its own at
 * its next step, as upstream's does.
 */
public final class StatefulSetStatusStrategy implements Strategy<StatefulSet> {
  @Override
  public Resource<StatefulSet> resource() {
    return StatefulSetStrategy.RESOURCE;
  }

  @Override
  public String subresource() {
    return "status";
  }

  @Override
  public void prepareForUpdate(StatefulSet set, StatefulSet old) {
    StatefulSetStatus status = set.getStatus() == null ? new StatefulSetStatus() : set.getStatus();
    String sentVersion = set.getMetadata().getResourceVersion();
    set.setMetadata(KubeJson.copy(old.getMetadata()));
    set.getMetadata().setResourceVersion(sentVersion);
    set.setSpec(old.getSpec());
    set.setStatus(status);
  }

  @Override
  public List<FieldError> validate(StatefulSet set) {
    return List.of();
  }

  @Override
  public List<FieldError> validateUpdate(StatefulSet set, StatefulSet old) {
    return List.of();
  }
}
