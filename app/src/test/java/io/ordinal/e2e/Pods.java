package io.ordinal.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;

/** Timestamps of a pod, in epoch milliseconds. */
final class Pods {
  private Pods() {}

  static long created(JsonNode pod) {
    return Instant.parse(pod.at("/metadata/creationTimestamp").asText()).toEpochMilli();
  }

  /** When its first container last started running. */
  static long started(JsonNode pod) {
    return Instant.parse(pod.at("/status/containerStatuses/0/state/running/startedAt").asText()).toEpochMilli();
  }

  static long readySince(JsonNode pod) {
    for (JsonNode condition : pod.at("/status/conditions")) {
      if (condition.path("type").asText().equals("Ready") && condition.path("status").asText().equals("True")) {
        return Instant.parse(condition.path("lastTransitionTime").asText()).toEpochMilli();
      }
    }
    throw new AssertionError(pod.at("/metadata/name") + " is not Ready");
  }
}
