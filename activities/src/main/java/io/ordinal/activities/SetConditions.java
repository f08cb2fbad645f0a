package io.ordinal.activities;

import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetCondition;
import io.fabric8.kubernetes.api.model.apps.StatefulSetStatus;
import io.ordinal.model.SetKey;
import io.ordinal.store.EventRecorder;
import io.ordinal.store.KubeJson;
import io.ordinal.store.StatefulSetStore;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** The conditions Ordinal keeps in a set's status beside upstream's fields. */
final class SetConditions {
  /** As a Deployment's: a rollout progressing, complete, or past its deadline. */
  static final String PROGRESSING = "Progressing";
  /** False while a failed membership hook holds membership changes. */
  static final String MEMBERSHIP_HOOK = "MembershipHook";

  private SetConditions() {}

  /** Sets a condition of the set's status, recording an event when it changes; a no-op when it already says the same. */
  static void set(StatefulSetStore sets, EventRecorder events, SetKey key, String type, boolean holds, String reason, String message) {
    Optional<StatefulSet> found = sets.get(key.namespace(), key.name());
    if (found.isEmpty()) {
      return;
    }
    StatefulSet set = found.get();
    StatefulSetStatus status = set.getStatus();
    List<StatefulSetCondition> conditions = new ArrayList<>(
        status.getConditions() == null ? List.of() : status.getConditions());
    String value = holds ? "True" : "False";
    StatefulSetCondition old = conditions.stream().filter(c -> type.equals(c.getType())).findFirst().orElse(null);
    if (old != null && value.equals(old.getStatus()) && reason.equals(old.getReason()) && message.equals(old.getMessage())) {
      return;
    }
    String now = KubeJson.timestamp(Instant.now());
    conditions.remove(old);
    conditions.add(new StatefulSetCondition(old != null && value.equals(old.getStatus()) ? old.getLastTransitionTime() : now,
        message, reason, value, type));
    status.setConditions(conditions);
    sets.writeStatus(key.namespace(), key.name(), status);
    events.record(key.namespace(), "StatefulSet", key.name(), set.getMetadata().getUid(),
        holds ? EventRecorder.NORMAL : EventRecorder.WARNING, reason, message);
  }

  /** The condition's status ("True", "False"), if the set has it. */
  static Optional<String> status(StatefulSet set, String type) {
    var conditions = set.getStatus() == null ? null : set.getStatus().getConditions();
    return conditions == null ? Optional.empty()
        : conditions.stream().filter(c -> type.equals(c.getType())).map(StatefulSetCondition::getStatus).findFirst();
  }
}
