package io.ordinal.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** Ordered scaling, recovery and deletion, end to end over HTTP against the real service. */
@E2eTest
class ScaleIT {
  static final Duration TIMEOUT = Duration.ofSeconds(90);
  static Api api;

  @Test
  void seedExampleScalesZeroThreeFiveOneZeroInTheDocumentedOrder(@Namespace String ns) {
    // The documentation's manifest with the sim annotation; minReadySeconds 10 -> 1 keeps the suite
    // short (the 10 s durable timer itself is covered by the time-skipped workflow test).
    ObjectNode web = Manifests.web();
    ((ObjectNode) web.get("spec")).put("replicas", 0).put("minReadySeconds", 1);
    ((ObjectNode) web.at("/spec/template/spec/containers/0")).putArray("env")
        .addObject().put("name", "SIM_TERMINATION_DELAY_MS").put("value", "300");
    api.createSet(ns, web);
    String set = Paths.set(ns, "web");

    assertEquals(200, api.put(set + "/scale", "application/json",
        "{\"apiVersion\":\"autoscaling/v1\",\"kind\":\"Scale\",\"metadata\":{\"name\":\"web\"},\"spec\":{\"replicas\":3}}").code());
    api.awaitConverged(ns, "web", 3, TIMEOUT);
    assertOrderedCreation(ns, 0, 3, 1000);

    api.patchSet(ns, "web", "{\"spec\":{\"replicas\":5}}");
    api.awaitConverged(ns, "web", 5, TIMEOUT);
    assertOrderedCreation(ns, 2, 5, 1000);

    assertEquals(200, api.patch(set + "/scale", "application/merge-patch+json", "{\"spec\":{\"replicas\":1}}").code());
    api.awaitConverged(ns, "web", 1, TIMEOUT);
    assertEquals(200, api.patch(set, "application/json-patch+json",
        "[{\"op\":\"replace\",\"path\":\"/spec/replicas\",\"value\":0}]").code());
    api.awaitConverged(ns, "web", 0, TIMEOUT);

    List<JsonNode> deletions = events(ns, "SuccessfulDelete");
    assertEquals(List.of("web-4", "web-3", "web-2", "web-1", "web-0"), deletions.stream().map(ScaleIT::podOf).toList());
    for (int i = 1; i < deletions.size(); i++) {
      // Each pod is deleted only once its successor is fully gone (300 ms of simulated termination).
      long gap = millis(deletions.get(i), "lastTimestamp") - millis(deletions.get(i - 1), "lastTimestamp");
      assertTrue(gap >= 300, podOf(deletions.get(i)) + " deleted " + gap + " ms after its successor");
    }
    // Creations from the watch log: with their claims' they are ten SuccessfulCreate messages, and
    // the tenth is combined into "(combined from similar events)", as upstream's recorder does.
    List<String> creations = api.podOperations(ns).stream().filter(op -> op.startsWith("+")).toList();
    assertEquals(List.of("+web-0", "+web-1", "+web-2", "+web-3", "+web-4"), creations);
    // Scale-down keeps the claims.
    JsonNode claims = api.get(Paths.core(ns, "persistentvolumeclaims")).json().path("items");
    assertEquals(List.of("www-web-0", "www-web-1", "www-web-2", "www-web-3", "www-web-4"),
        IntStream.range(0, claims.size()).mapToObj(i -> claims.get(i).at("/metadata/name").asText()).sorted().toList());
  }

  @Test
  void parallelCreatesEveryPodWithoutWaitingForReadiness(@Namespace String ns) {
    ObjectNode set = Manifests.web("db", 4, 0, Map.of("SIM_READY_DELAY_MS", "2000"));
    ((ObjectNode) set.get("spec")).put("podManagementPolicy", "Parallel");
    api.createSet(ns, set);
    api.awaitConverged(ns, "db", 4, TIMEOUT);
    List<JsonNode> pods = api.pods(ns, "app=db");
    long firstReady = pods.stream().mapToLong(Pods::readySince).min().orElseThrow();
    for (JsonNode pod : pods) {
      assertTrue(Pods.created(pod) < firstReady, pod.at("/metadata/name") + " waited for a predecessor");
    }
  }

  @Test
  void deletedPodComesBackWithTheSameIdentityAndClaim(@Namespace String ns) {
    api.createSet(ns, Manifests.web("web", 3, 0, Map.of()));
    api.awaitConverged(ns, "web", 3, TIMEOUT);
    JsonNode before = api.pod(ns, "web-1");
    assertEquals(200, api.delete(Paths.pod(ns, "web-1")).code());
    JsonNode after = api.await(Paths.pod(ns, "web-1"), TIMEOUT, r -> r.code() == 200
        && !r.json().at("/metadata/uid").equals(before.at("/metadata/uid"))
        && r.json().at("/status/phase").asText().equals("Running"));
    assertEquals("web-1", after.at("/spec/hostname").asText());
    assertEquals("nginx", after.at("/spec/subdomain").asText());
    assertEquals("www-web-1", after.at("/spec/volumes/0/persistentVolumeClaim/claimName").asText());
    assertEquals("1", after.at("/metadata/labels/apps.kubernetes.io~1pod-index").asText());
    api.awaitConverged(ns, "web", 3, TIMEOUT);
  }

  @Test
  void failedPodIsRecreatedUnderTheSameName(@Namespace String ns) {
    api.createSet(ns, Manifests.web("web", 1, 0, Map.of("SIM_CRASH_AFTER_MS", "1500")));
    String firstUid = api.await(Paths.pod(ns, "web-0"), TIMEOUT, r -> r.code() == 200)
        .at("/metadata/uid").asText();
    api.await(Paths.core(ns, "events"), TIMEOUT,
        r -> r.body().contains("RecreatingFailedPod"));
    JsonNode again = api.await(Paths.pod(ns, "web-0"), TIMEOUT,
        r -> r.code() == 200 && !r.json().at("/metadata/uid").asText().equals(firstUid));
    assertNotEquals(firstUid, again.at("/metadata/uid").asText());
    api.delete(Paths.set(ns, "web"));
  }

  @Test
  void newSpecMidScaleTakesOverWithoutWaitingForTheOldTarget(@Namespace String ns) {
    api.createSet(ns, Manifests.web("web", 6, 0, Map.of("SIM_READY_DELAY_MS", "1500")));
    api.await(Paths.pod(ns, "web-1"), TIMEOUT, r -> r.code() == 200);
    Instant changed = Instant.now();
    api.patchSet(ns, "web", "{\"spec\":{\"replicas\":2}}");
    api.awaitConverged(ns, "web", 2, TIMEOUT);
    // Reaching 6 would have taken 4 more pods x 1.5 s; the new target took over at once.
    assertTrue(Duration.between(changed, Instant.now()).toMillis() < 5_000);
    assertTrue(api.podOperations(ns).stream()
        .noneMatch(op -> op.equals("+web-3") || op.equals("+web-4") || op.equals("+web-5")));
  }

  @Test
  void aForegroundDeleteRemovesPodsHighestFirstThenTheSetAndKeepsClaims(@Namespace String ns) {
    api.createSet(ns, Manifests.web("web", 3, 0, Map.of("SIM_TERMINATION_DELAY_MS", "200")));
    api.awaitConverged(ns, "web", 3, TIMEOUT);
    JsonNode deleting = api.deleteInForeground(Paths.set(ns, "web")).json();
    assertTrue(deleting.at("/metadata/deletionTimestamp").isTextual());
    assertEquals("[\"foregroundDeletion\"]", deleting.at("/metadata/finalizers").toString());
    // Still there, being deleted, while its pods go.
    JsonNode during = api.get(Paths.set(ns, "web")).json();
    assertTrue(during.at("/metadata/deletionTimestamp").isTextual(), during.toString());
    api.await(Paths.set(ns, "web"), TIMEOUT, r -> r.code() == 404);
    assertEquals(0, api.pods(ns, "app=web").size());
    assertEquals(List.of("web-2", "web-1", "web-0"), events(ns, "SuccessfulDelete").stream().map(ScaleIT::podOf).toList());
    assertEquals(3, api.get(Paths.core(ns, "persistentvolumeclaims")).json().path("items").size());
    // The name is free again.
    api.createSet(ns, Manifests.web("web", 1, 0, Map.of()));
    api.awaitConverged(ns, "web", 1, TIMEOUT);
  }

  @Test
  void operationsAreFindableInTemporalBySearchAttributes(@Namespace String ns) throws Exception {
    api.createSet(ns, Manifests.web("web", 1, 0, Map.of()));
    api.awaitConverged(ns, "web", 1, TIMEOUT);
    OrdinalService.shared().withTemporal(client -> {
      String revision = api.set(ns, "web").at("/status/updateRevision").asText();
      // Visibility is eventually consistent: poll briefly.
      List<String> ids = List.of();
      for (int i = 0; i < 50 && ids.size() < 2; i++) {
        ids = client.listExecutions("OrdinalNamespace = '" + ns + "' AND OrdinalStatefulSet = 'web'")
            .map(e -> e.getExecution().getWorkflowId()).sorted().toList();
        Api.sleep(200);
      }
      assertEquals(List.of("statefulset/" + ns + "/web", "statefulset/" + ns + "/web/scale-1"), ids);
      assertEquals(1, client.listExecutions("OrdinalOperation = 'scale' AND OrdinalRevision = '" + revision + "'")
          .filter(e -> e.getExecution().getWorkflowId().startsWith("statefulset/" + ns + "/")).count());
      return null;
    });
  }

  /** Pods {@code from..to-1} were created in order, each after its predecessor was Ready for minReady. */
  static void assertOrderedCreation(String ns, int from, int to, long minReadyMillis) {
    for (int i = Math.max(1, from); i < to; i++) {
      JsonNode previous = api.pod(ns, "web-" + (i - 1));
      JsonNode pod = api.pod(ns, "web-" + i);
      long waited = Pods.created(pod) - Pods.readySince(previous);
      assertTrue(waited >= minReadyMillis, "web-" + i + " created " + waited + " ms after web-" + (i - 1) + " was Ready");
    }
  }

  static List<JsonNode> events(String ns, String reason) {
    return api.events(ns).stream().filter(e -> e.path("reason").asText().equals(reason)).toList();
  }

  static String podOf(JsonNode event) {
    String message = event.path("message").asText();
    return message.split(" ")[2];
  }

  static long millis(JsonNode node, String field) {
    return Instant.parse(node.path(field).asText()).toEpochMilli();
  }
}
