package io.ordinal.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** RollingUpdate end to end on the sim driver (the start of #4). */
@E2eTest
class RolloutIT {
  static final Duration TIMEOUT = Duration.ofSeconds(90);
  static Api api;

  @Test
  void imageChangeUpdatesWeb2ThenWeb1ThenWeb0(@Namespace String ns) {
    api.createSet(ns, Manifests.web("web", 3, 0, Map.of("SIM_TERMINATION_DELAY_MS", "100")));
    String before = api.awaitConverged(ns, "web", 3, TIMEOUT).at("/status/currentRevision").asText();
    api.setImage(ns, "web", "k8s.gcr.io/nginx-slim:0.9");
    JsonNode done = api.awaitRolledOut(ns, 3, before);
    String after = done.at("/status/updateRevision").asText();
    assertEquals(after, done.at("/status/currentRevision").asText());
    assertEquals(List.of("-web-2", "+web-2", "-web-1", "+web-1", "-web-0", "+web-0"), api.podOperations(ns).subList(3, 9));
    for (JsonNode pod : api.pods(ns, "app=web")) {
      assertEquals(after, pod.at("/metadata/labels/controller-revision-hash").asText());
    }
    JsonNode rollout = api.get(Paths.set(ns, "web") + "/rollout/status").json();
    assertEquals("Complete", rollout.get("phase").asText());
    assertEquals("statefulset rolling update complete 3 pods at revision " + after + "...", rollout.get("message").asText());
  }

  /**
   * Issue #10's breach: with partition 1, web-1 and web-2 updated, web-0 deleted while it terminates
   * slowly. Without web-0 the two pods left are all updated and ready, but the spec asks for three:
   * the rollout is not complete, and web-0 comes back at the old revision (it is below the partition).
   */
  @Test
  void aPodDeletedBelowThePartitionComesBackAtTheOldRevision(@Namespace String ns) {
    api.createSet(ns, Manifests.web("web", 3, 0, Map.of("SIM_TERMINATION_DELAY_MS", "3000")));
    String before = api.awaitConverged(ns, "web", 3, TIMEOUT).at("/status/currentRevision").asText();
    api.patchSet(ns, "web", "{\"spec\":{\"updateStrategy\":{\"type\":\"RollingUpdate\",\"rollingUpdate\":{\"partition\":1}}}}");
    api.setImage(ns, "web", "k8s.gcr.io/nginx-slim:0.9");
    String after = api.await(Paths.set(ns, "web") + "/status", TIMEOUT, reply -> reply.json().at("/status/updatedReplicas").asInt() == 2
        && reply.json().at("/status/readyReplicas").asInt() == 3).at("/status/updateRevision").asText();
    String web0 = api.get(Paths.pod(ns, "web-0")).json().at("/metadata/uid").asText();

    assertEquals(200, api.delete(Paths.pod(ns, "web-0")).code());
    JsonNode back = api.await(Paths.pod(ns, "web-0"), TIMEOUT, reply -> reply.code() == 200
        && !reply.json().at("/metadata/uid").asText().equals(web0) && reply.json().at("/status/containerStatuses/0/ready").asBoolean());
    assertEquals(before, back.at("/metadata/labels/controller-revision-hash").asText(), "below the partition: the old revision");
    JsonNode status = api.get(Paths.set(ns, "web") + "/status").json().path("status");
    assertEquals(before, status.path("currentRevision").asText(), "the rollout is not complete: " + status);
    assertEquals(after, status.path("updateRevision").asText());
    assertEquals(2, status.path("updatedReplicas").asInt(), status.toString());
  }

  @Test
  void revertingToAnEarlierTemplateReusesItsRevisionAndHistoryIsPruned(@Namespace String ns) {
    api.createSet(ns, Manifests.web("web", 2, 0, Map.of()));
    String first = api.awaitConverged(ns, "web", 2, TIMEOUT).at("/status/currentRevision").asText();
    api.setImage(ns, "web", "k8s.gcr.io/nginx-slim:0.9");
    String second = api.awaitRolledOut(ns, 2, first).at("/status/currentRevision").asText();
    api.setImage(ns, "web", "k8s.gcr.io/nginx-slim:0.8");
    assertEquals(first, api.awaitRolledOut(ns, 2, second).at("/status/currentRevision").asText());
    // The first revision was reused and renumbered after the second; nothing new was created.
    assertEquals(Map.of(second, 2L, first, 3L), revisions(ns));
    JsonNode one = api.get(Paths.apps(ns, "controllerrevisions/" + first)).json();
    assertEquals("k8s.gcr.io/nginx-slim:0.8", one.at("/data/spec/template/spec/containers/0/image").asText());
    assertEquals("web", one.at("/metadata/ownerReferences/0/name").asText());

    api.patchSet(ns, "web", "{\"spec\":{\"revisionHistoryLimit\":0}}");
    api.await(Paths.set(ns, "web") + "/status", TIMEOUT, r -> r.json().at("/status/observedGeneration").asLong()
        == r.json().at("/metadata/generation").asLong());
    assertEquals(Map.of(first, 3L), revisions(ns)); // only the live revision is left
  }

  static Map<String, Long> revisions(String ns) {
    Map<String, Long> byName = new HashMap<>();
    api.get(Paths.apps(ns, "controllerrevisions?labelSelector=app%3Dweb")).json().path("items")
        .forEach(r -> byName.put(r.at("/metadata/name").asText(), r.path("revision").asLong()));
    return byName;
  }

  @Test
  void maxUnavailableTwoUpdatesFivePodsInBatches(@Namespace String ns) {
    ObjectNode set = Manifests.web("web", 5, 0, Map.of("SIM_TERMINATION_DELAY_MS", "100", "SIM_READY_DELAY_MS", "100"));
    ((ObjectNode) set.at("/spec")).putObject("updateStrategy").put("type", "RollingUpdate")
        .putObject("rollingUpdate").put("maxUnavailable", 2);
    api.createSet(ns, set);
    String before = api.awaitConverged(ns, "web", 5, TIMEOUT).at("/status/currentRevision").asText();
    api.patchSet(ns, "web", "{\"spec\":{\"template\":{\"metadata\":{\"annotations\":{\"rollout\":\"2\"}}}}}");
    api.awaitRolledOut(ns, 5, before);
    List<String> rolled = api.podOperations(ns).subList(5, 15);
    // Two pods deleted in one step go at once: which of the two is gone first is the driver's timing.
    assertEquals(Set.of("-web-4", "-web-3"), Set.copyOf(rolled.subList(0, 2)), rolled.toString());
    assertEquals(List.of("+web-3", "+web-4"), rolled.subList(2, 4), rolled.toString());
    assertEquals(Set.of("-web-2", "-web-1"), Set.copyOf(rolled.subList(4, 6)), rolled.toString());
    assertEquals(List.of("+web-1", "+web-2", "-web-0", "+web-0"), rolled.subList(6, 10), rolled.toString());
  }

}
