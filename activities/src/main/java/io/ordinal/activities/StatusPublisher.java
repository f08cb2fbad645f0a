package io.ordinal.activities;

import io.ordinal.kube.StatusCalculator;
import io.ordinal.model.SetKey;
import io.ordinal.store.StatefulSetStore;
import io.ordinal.workflow.SetActivities.StatusPublication;
import jakarta.inject.Singleton;

/** Writes a status a workflow observed: its counts and revisions, the set's conditions kept. */
@Singleton
public class StatusPublisher {
  private final StatefulSetStore sets;

  public StatusPublisher(StatefulSetStore sets) {
    this.sets = sets;
  }

  /** A no-op for null (a step that carries no status) and for a set that is gone. */
  void publish(StatusPublication request) {
    if (request == null) {
      return;
    }
    SetKey key = request.set();
    sets.updateStatus(key.namespace(), key.name(), stored -> StatusCalculator.toObject(request.status(), stored.getConditions()));
  }
}
