package io.ordinal.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** RollingUpdate end to end on the sim driver (the start of #4). */
class RolloutIT {
  static final Duration TIMEOUT = Duration.ofSeconds(90);
  static Api api;

  @BeforeAll
  static void service() throws Exception {
    api = OrdinalService.shared().api();
  }

  @Test
  void imageChangeUpdatesWeb2ThenWeb1ThenWeb0() {
    String ns = "rollout-image";
    assertEquals(201, api.post(Api.SETS.formatted(ns), "application/json",
        Manifests.json(Manifests.web("web", 3, 0, Map.of("SIM_TERMINATION_DELAY_MS", "100")))).code());
    String before = api.awaitConverged(ns, "web", 3, TIMEOUT).at("/status/currentRevision").asText();
    assertEquals(200, api.patch(Api.SETS.formatted(ns) + "/web", "application/json-patch+json",
        "[{\"op\":\"replace\",\"path\":\"/spec/template/spec/containers/0/image\",\"value\":\"k8s.gcr.io/nginx-slim:0.9\"}]").code());
    JsonNode done = api.awaitRolledOut(ns, 3, before);
    String after = done.at("/status/updateRevision").asText();
    assertEquals(after, done.at("/status/currentRevision").asText());
    assertEquals(List.of("-web-2", "+web-2", "-web-1", "+web-1", "-web-0", "+web-0"), api.podOperations(ns).subList(3, 9));
    for (JsonNode pod : api.pods(ns, "app=web")) {
      assertEquals(after, pod.at("/metadata/labels/controller-revision-hash").asText());
    }
    JsonNode rollout = api.get(Api.SETS.formatted(ns) + "/web/rollout/status").json();
    assertEquals("Complete", rollout.get("phase").asText());
    assertEquals("statefulset rolling update complete 3 pods at revision " + after + "...", rollout.get("message").asText());
  }

  @Test
  void revertingToAnEarlierTemplateReusesItsRevisionAndHistoryIsPruned() {
    String ns = "rollout-history";
    assertEquals(201, api.post(Api.SETS.formatted(ns), "application/json",
        Manifests.json(Manifests.web("web", 2, 0, Map.of()))).code());
    String first = api.awaitConverged(ns, "web", 2, TIMEOUT).at("/status/currentRevision").asText();
    String image = "/spec/template/spec/containers/0/image";
    api.patch(Api.SETS.formatted(ns) + "/web", "application/json-patch+json",
        "[{\"op\":\"replace\",\"path\":\"" + image + "\",\"value\":\"k8s.gcr.io/nginx-slim:0.9\"}]");
    String second = api.awaitRolledOut(ns, 2, first).at("/status/currentRevision").asText();
    api.patch(Api.SETS.formatted(ns) + "/web", "application/json-patch+json",
        "[{\"op\":\"replace\",\"path\":\"" + image + "\",\"value\":\"k8s.gcr.io/nginx-slim:0.8\"}]");
    assertEquals(first, api.awaitRolledOut(ns, 2, second).at("/status/currentRevision").asText());
    // The first revision was reused and renumbered after the second; nothing new was created.
    assertEquals(Map.of(second, 2L, first, 3L), revisions(ns));
    JsonNode one = api.get("/apis/apps/v1/namespaces/" + ns + "/controllerrevisions/" + first).json();
    assertEquals("k8s.gcr.io/nginx-slim:0.8", one.at("/data/spec/template/spec/containers/0/image").asText());
    assertEquals("web", one.at("/metadata/ownerReferences/0/name").asText());

    api.patch(Api.SETS.formatted(ns) + "/web", "application/merge-patch+json", "{\"spec\":{\"revisionHistoryLimit\":0}}");
    api.await(Api.SETS.formatted(ns) + "/web/status", TIMEOUT, r -> r.json().at("/status/observedGeneration").asLong()
        == r.json().at("/metadata/generation").asLong());
    assertEquals(Map.of(first, 3L), revisions(ns)); // only the live revision is left
  }

  static Map<String, Long> revisions(String ns) {
    Map<String, Long> byName = new java.util.HashMap<>();
    api.get("/apis/apps/v1/namespaces/" + ns + "/controllerrevisions?labelSelector=app%3Dweb").json().path("items")
        .forEach(r -> byName.put(r.at("/metadata/name").asText(), r.path("revision").asLong()));
    return byName;
  }

  @Test
  void maxUnavailableTwoUpdatesFivePodsInBatches() {
    String ns = "rollout-batches";
    ObjectNode set = Manifests.web("web", 5, 0, Map.of("SIM_TERMINATION_DELAY_MS", "100", "SIM_READY_DELAY_MS", "100"));
    ((ObjectNode) set.at("/spec")).putObject("updateStrategy").put("type", "RollingUpdate")
        .putObject("rollingUpdate").put("maxUnavailable", 2);
    assertEquals(201, api.post(Api.SETS.formatted(ns), "application/json", Manifests.json(set)).code());
    String before = api.awaitConverged(ns, "web", 5, TIMEOUT).at("/status/currentRevision").asText();
    assertEquals(200, api.patch(Api.SETS.formatted(ns) + "/web", "application/merge-patch+json",
        "{\"spec\":{\"template\":{\"metadata\":{\"annotations\":{\"rollout\":\"2\"}}}}}").code());
    api.awaitRolledOut(ns, 5, before);
    assertEquals(List.of("-web-4", "-web-3", "+web-3", "+web-4", "-web-2", "-web-1", "+web-1", "+web-2", "-web-0", "+web-0"),
        api.podOperations(ns).subList(5, 15));
  }

}
