package io.ordinal.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpServer;
import io.ordinal.store.KubeJson;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;

/**
 * apps/v1 lifecycle fields as upstream means them: spec.ordinals.start, the PVC retention policy,
 * and deleting PVCs (upstream e2e: "should delete PVCs with a WhenDeleted policy", "... OnScaledown
 * policy", "PVC should be recreated when pod is pending due to missing PVC").
 */
@E2eTest
class LifecycleIT {
  static final Duration TIMEOUT = Duration.ofSeconds(90);
  static Api api;
  static OrdinalService service;

  @Test
  void ordinalsStartNamesPodsAndClaimsFromStartAndRollsWithThePartitionCountedFromIt(@Namespace String ns) {
    ObjectNode set = Manifests.web("os", 2, 0, Map.of());
    ((ObjectNode) set.get("spec")).putObject("ordinals").put("start", 5);
    api.createSet(ns, set);
    api.awaitConverged(ns, "os", 2, TIMEOUT);
    assertEquals(List.of("os-5", "os-6"), names(api.pods(ns, "app=os")));
    assertEquals("5", api.pod(ns, "os-5").at("/metadata/labels/apps.kubernetes.io~1pod-index").asText());
    assertEquals(List.of("www-os-5", "www-os-6"), claims(ns));

    api.patchSet(ns, "os", "{\"spec\":{\"replicas\":3}}");
    api.awaitConverged(ns, "os", 3, TIMEOUT);
    api.patchSet(ns, "os", "{\"spec\":{\"replicas\":1}}");
    api.awaitConverged(ns, "os", 1, TIMEOUT);
    assertEquals(List.of("+os-5", "+os-6", "+os-7", "-os-7", "-os-6"), api.podOperations(ns));

    // The partition counts from start: os-5 (below start + 1) keeps the current revision.
    api.patchSet(ns, "os", "{\"spec\":{\"replicas\":3,\"updateStrategy\":{\"type\":\"RollingUpdate\","
        + "\"rollingUpdate\":{\"partition\":1}}}}");
    api.awaitConverged(ns, "os", 3, TIMEOUT);
    String before = api.pod(ns, "os-5").at("/metadata/labels/controller-revision-hash").asText();
    api.setImage(ns, "os", "nginx:2");
    api.await(Paths.set(ns, "os") + "/status", TIMEOUT, r -> r.json().at("/status/updatedReplicas").asInt() == 2
        && r.json().at("/status/readyReplicas").asInt() == 3);
    assertEquals(before, api.pod(ns, "os-5").at("/metadata/labels/controller-revision-hash").asText());
    assertNotEquals(before, api.pod(ns, "os-6").at("/metadata/labels/controller-revision-hash").asText());

    // Moving start moves the range: the new ordinals come first, then the old ones go, highest first.
    api.patchSet(ns, "os", "{\"spec\":{\"ordinals\":{\"start\":7}}}");
    api.await(Paths.set(ns, "os") + "/status", TIMEOUT, r -> names(api.pods(ns, "app=os"))
        .equals(List.of("os-7", "os-8", "os-9")) && r.json().at("/status/readyReplicas").asInt() == 3);
    List<String> ops = api.podOperations(ns);
    assertEquals(List.of("+os-8", "+os-9", "-os-6", "-os-5"), ops.subList(ops.indexOf("+os-8"), ops.size())
        .stream().filter(op -> !op.equals("-os-7") && !op.equals("+os-7")).toList());
  }

  @Test
  void whenScaledDeleteRemovesTheClaimsOfCondemnedOrdinalsOnlyAfterTheirPods(@Namespace String ns) {
    ObjectNode set = Manifests.web("web", 3, 0, Map.of("SIM_TERMINATION_DELAY_MS", "300"));
    ((ObjectNode) set.get("spec")).putObject("persistentVolumeClaimRetentionPolicy")
        .put("whenScaled", "Delete").put("whenDeleted", "Retain");
    api.createSet(ns, set);
    api.awaitConverged(ns, "web", 3, TIMEOUT);
    assertTrue(claim(ns, "www-web-2").at("/metadata/ownerReferences").isMissingNode(), "in range: no owner");
    assertEquals("kubernetes.io/pvc-protection", claim(ns, "www-web-2").at("/metadata/finalizers/0").asText());

    api.patchSet(ns, "web", "{\"spec\":{\"replicas\":1}}");
    api.awaitConverged(ns, "web", 1, TIMEOUT);
    api.await(Paths.core(ns, "persistentvolumeclaims"), TIMEOUT, r -> claims(ns).equals(List.of("www-web-0")));
    List<String> order = lifecycleEvents(ns);
    assertTrue(order.indexOf("-web-2") < order.indexOf("-claim www-web-2"), order.toString());
    assertTrue(order.indexOf("-claim www-web-2") < order.indexOf("-web-1"), order.toString());
    assertTrue(order.indexOf("-web-1") < order.indexOf("-claim www-web-1"), order.toString());

    // Scaling up again makes new, empty claims; a pod deleted in range keeps its claim.
    api.patchSet(ns, "web", "{\"spec\":{\"replicas\":2}}");
    api.awaitConverged(ns, "web", 2, TIMEOUT);
    assertEquals(List.of("www-web-0", "www-web-1"), claims(ns));
    String uid = claim(ns, "www-web-1").at("/metadata/uid").asText();
    assertEquals(200, api.delete(Paths.pod(ns, "web-1")).code());
    api.awaitConverged(ns, "web", 2, TIMEOUT);
    assertEquals(uid, claim(ns, "www-web-1").at("/metadata/uid").asText());
  }

  @Test
  void whenDeletedDeleteGivesClaimsToTheSetAndTheyGoWithIt(@Namespace String ns) {
    ObjectNode set = Manifests.web("web", 2, 0, Map.of());
    ((ObjectNode) set.get("spec")).putObject("persistentVolumeClaimRetentionPolicy")
        .put("whenScaled", "Retain").put("whenDeleted", "Delete");
    JsonNode created = api.createSet(ns, set).json();
    api.awaitConverged(ns, "web", 2, TIMEOUT);
    JsonNode owner = claim(ns, "www-web-0").at("/metadata/ownerReferences/0");
    assertEquals("StatefulSet", owner.path("kind").asText());
    assertEquals(created.at("/metadata/uid").asText(), owner.path("uid").asText());
    assertTrue(owner.path("controller").asBoolean() && owner.path("blockOwnerDeletion").asBoolean(), owner.toString());
    // Scale down keeps them (whenScaled: Retain).
    api.patchSet(ns, "web", "{\"spec\":{\"replicas\":1}}");
    api.awaitConverged(ns, "web", 1, TIMEOUT);
    assertEquals(List.of("www-web-0", "www-web-1"), claims(ns));

    // A DELETE without options is a Background one (upstream's default for apps/v1): the set is gone
    // from the API at once, its pods and then its claims go after it.
    assertEquals(200, api.delete(Paths.set(ns, "web")).code());
    assertEquals(404, api.get(Paths.set(ns, "web")).code());
    api.await(Paths.core(ns, "persistentvolumeclaims"), TIMEOUT, r -> r.json().path("items").isEmpty());
    assertEquals(0, api.pods(ns, "app=web").size());
  }

  @Test
  void aBackgroundDeleteTakesTheSetOutOfTheApiAtOnceAndKeepsItsNameUntilItsPodsAreGone(@Namespace String ns)
      throws Exception {
    api.createSet(ns, Manifests.web("web", 3, 0, Map.of("SIM_TERMINATION_DELAY_MS", "1500")));
    api.awaitConverged(ns, "web", 3, TIMEOUT);
    String listed = api.get(Paths.sets(ns)).json().at("/metadata/resourceVersion").asText();
    JsonNode deleted = api.send("DELETE", Paths.set(ns, "web"), "application/json",
        "{\"kind\":\"DeleteOptions\",\"apiVersion\":\"v1\",\"propagationPolicy\":\"Background\"}", null).json();
    assertTrue(deleted.at("/metadata/deletionTimestamp").isTextual(), deleted.toString());
    assertEquals(404, api.get(Paths.set(ns, "web")).code());
    assertEquals(0, api.get(Paths.sets(ns)).json().path("items").size());
    // Watchers see it DELETED, once.
    String events = api.get(Paths.sets(ns) + "?watch=true&timeoutSeconds=1&resourceVersion=" + listed).body();
    assertEquals(1, events.lines().filter(line -> line.contains("\"type\":\"DELETED\"")).count(), events);
    // Its pods are still there, going highest first; the name is taken until they are gone.
    assertFalse(api.pods(ns, "app=web").isEmpty());
    Api.Reply again = api.post(Paths.sets(ns), "application/json", KubeJson.write(Manifests.web("web", 1, 0, Map.of())));
    assertEquals(409, again.code(), again.body());
    assertTrue(again.body().contains("object is being deleted: statefulsets.apps \\\"web\\\" already exists"), again.body());
    api.await(Paths.core(ns, "pods"), TIMEOUT, r -> r.json().path("items").isEmpty());
    assertEquals(List.of("web-2", "web-1", "web-0"), deletedPods(ns));
    api.await(Paths.sets(ns), TIMEOUT,
        r -> api.post(Paths.sets(ns), "application/json", KubeJson.write(Manifests.web("web", 1, 0, Map.of()))).code() == 201);
    api.awaitConverged(ns, "web", 1, TIMEOUT);
  }

  /**
   * Upstream's e2e "should adopt matching orphans and release non-matching pods", step by step: a
   * pod whose owner is removed is adopted again; one whose labels stop matching is released and keeps
   * running (the set does not make another of its name); given its labels back, it is adopted.
   */
  @Test
  void aSetAdoptsMatchingOrphansAndReleasesPodsThatStopMatching(@Namespace String ns) {
    JsonNode set = api.createSet(ns, Manifests.web("web", 1, 0, Map.of())).json();
    String setUid = set.at("/metadata/uid").asText();
    api.awaitConverged(ns, "web", 1, TIMEOUT);
    JsonNode pod = api.pod(ns, "web-0");
    String podUid = pod.at("/metadata/uid").asText();
    assertEquals(setUid, pod.at("/metadata/ownerReferences/0/uid").asText());

    updatePod(ns, "web-0", p -> p.with("metadata").remove("ownerReferences"));
    api.await(Paths.pod(ns, "web-0"), TIMEOUT, r -> setUid.equals(r.json().at("/metadata/ownerReferences/0/uid").asText()));

    JsonNode labels = pod.at("/metadata/labels");
    updatePod(ns, "web-0", p -> p.with("metadata").remove("labels"));
    JsonNode released = api.await(Paths.pod(ns, "web-0"), TIMEOUT,
        r -> r.json().at("/metadata/ownerReferences").isMissingNode());
    assertEquals(podUid, released.at("/metadata/uid").asText(), "a released pod keeps running");
    api.await(Paths.set(ns, "web"), TIMEOUT, r -> r.json().at("/status/replicas").asInt(-1) == 0);
    assertEquals(podUid, api.pod(ns, "web-0").at("/metadata/uid").asText(), "no second web-0 was made");

    updatePod(ns, "web-0", p -> p.with("metadata").set("labels", labels));
    api.await(Paths.pod(ns, "web-0"), TIMEOUT, r -> setUid.equals(r.json().at("/metadata/ownerReferences/0/uid").asText()));
    api.awaitConverged(ns, "web", 1, TIMEOUT);
    assertEquals(podUid, api.pod(ns, "web-0").at("/metadata/uid").asText());
  }

  @Test
  void aPodsSpecCannotBeChangedThroughTheApiButItsLabelsCan(@Namespace String ns) {
    api.createSet(ns, Manifests.web("web", 1, 0, Map.of()));
    api.awaitConverged(ns, "web", 1, TIMEOUT);
    Api.Reply image = api.patch(Paths.pod(ns, "web-0"), "application/merge-patch+json",
        "{\"spec\":{\"activeDeadlineSeconds\":5}}");
    assertEquals(422, image.code(), image.body());
    assertTrue(image.body().contains("spec: Forbidden: pod updates may not change fields other than"), image.body());
    Api.Reply labelled = api.patch(Paths.pod(ns, "web-0"), "application/strategic-merge-patch+json",
        "{\"metadata\":{\"labels\":{\"tier\":\"db\"}}}");
    assertEquals(200, labelled.code(), labelled.body());
    assertEquals("db", api.pod(ns, "web-0").at("/metadata/labels/tier").asText());
    Api.Reply stale = api.put(Paths.pod(ns, "web-0"), "application/json", KubeJson.write(
        ((ObjectNode) api.pod(ns, "web-0")).put("kind", "Pod").set("metadata",
            ((ObjectNode) api.pod(ns, "web-0").get("metadata")).put("resourceVersion", "1"))));
    assertEquals(409, stale.code(), stale.body());
    Api.Reply twoControllers = api.patch(Paths.pod(ns, "web-0"), "application/json-patch+json",
        "[{\"op\":\"add\",\"path\":\"/metadata/ownerReferences/-\",\"value\":{\"apiVersion\":\"v1\",\"kind\":\"X\","
            + "\"name\":\"x\",\"uid\":\"u\",\"controller\":true}}]");
    assertEquals(422, twoControllers.code(), twoControllers.body());
    assertTrue(twoControllers.body().contains("metadata.ownerReferences"), twoControllers.body());
  }

  /**
   * An HTTP preCreate hook that times out (each attempt, all attempts) holds the scale-up: no pod for
   * the new ordinal, the set says why; once the endpoint answers, resuming the set lets the member join.
   */
  @Test
  void anHttpHookThatTimesOutHoldsTheScaleUpUntilTheSetIsResumed(@Namespace String ns) throws Exception {
    AtomicBoolean slow = new AtomicBoolean(true);
    List<JsonNode> calls = new CopyOnWriteArrayList<>();
    HttpServer endpoint = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    endpoint.setExecutor(Executors.newCachedThreadPool());
    endpoint.createContext("/join", exchange -> {
      calls.add(KubeJson.JSON.readTree(exchange.getRequestBody()));
      if (slow.get()) {
        Api.sleep(3_000);
      }
      exchange.sendResponseHeaders(200, -1);
      exchange.close();
    });
    endpoint.start();
    try {
      ObjectNode set = Manifests.web("web", 1, 0, Map.of());
      ((ObjectNode) set.get("metadata")).with("annotations").put("ordinal.io/member-hooks",
          "preCreate:\n  http: {url: 'http://127.0.0.1:" + endpoint.getAddress().getPort() + "/join', method: POST}\n"
              + "  timeoutSeconds: 1\n  maxAttempts: 2\n  backoffSeconds: 1\n");
      api.createSet(ns, set);
      api.awaitConverged(ns, "web", 1, TIMEOUT); // the founder joins without a hook
      assertEquals(List.of(), calls);

      api.patchSet(ns, "web", "{\"spec\":{\"replicas\":2}}");
      // The annotation, then the condition: two writes.
      JsonNode held = api.await(Paths.set(ns, "web"), TIMEOUT,
          r -> r.json().at("/metadata/annotations").has("ordinal.io/held-hook")
              && r.body().contains("\"MembershipHook\""));
      assertEquals("PreCreate hook of web-1 failed", held.at("/metadata/annotations/ordinal.io~1held-hook").asText());
      JsonNode condition = StreamSupport.stream(held.at("/status/conditions").spliterator(), false)
          .filter(c -> c.path("type").asText().equals("MembershipHook")).findFirst().orElseThrow();
      assertEquals("False", condition.path("status").asText());
      assertTrue(condition.path("message").asText().contains("timed out"), condition.toString());
      assertEquals(404, api.get(Paths.pod(ns, "web-1")).code());
      assertEquals(2, calls.size(), "maxAttempts: 2");
      JsonNode env = calls.getFirst();
      assertEquals("PreCreate", env.path("ORDINAL_HOOK").asText());
      assertEquals("ScaleUp", env.path("ORDINAL_HOOK_REASON").asText());
      assertEquals("web-1", env.path("ORDINAL_MEMBER_POD").asText());
      assertEquals("1", env.path("ORDINAL_MEMBER_ORDINAL").asText());
      assertEquals("web-1.nginx." + ns + ".svc.cluster.local", env.path("ORDINAL_MEMBER_FQDN").asText());

      slow.set(false);
      assertEquals(200, api.post(Paths.set(ns, "web") + "/rollout/resume", "application/json", "").code());
      api.awaitConverged(ns, "web", 2, TIMEOUT);
      assertFalse(api.set(ns, "web").at("/metadata/annotations").has("ordinal.io/held-hook"));
      assertEquals(3, calls.size());
    } finally {
      endpoint.stop(0);
    }
  }

  /**
   * Upstream's e2e way to change a pod: read it, change it, PUT it back with its resourceVersion, again
   * on a 409 (the pod's status or its set changed it in between).
   */
  private void updatePod(String ns, String name, Consumer<ObjectNode> change) {
    Api.Reply reply = null;
    for (int attempt = 0; attempt < 20 && (reply == null || reply.code() == 409); attempt++) {
      ObjectNode pod = (ObjectNode) api.pod(ns, name);
      change.accept(pod);
      reply = api.put(Paths.pod(ns, name), "application/json", KubeJson.write(pod));
    }
    assertEquals(200, reply.code(), reply.body());
  }

  private List<String> deletedPods(String ns) {
    List<String> pods = new ArrayList<>();
    api.get(Paths.core(ns, "events")).json().path("items").forEach(event -> {
      String message = event.path("message").asText();
      if (event.path("reason").asText().equals("SuccessfulDelete") && message.startsWith("delete Pod ")) {
        pods.add(message.split(" ")[2]);
      }
    });
    return pods;
  }

  @Test
  void anOrphaningDeleteKeepsClaimsAndReleasesThemFromTheSet(@Namespace String ns) {
    ObjectNode set = Manifests.web("web", 2, 0, Map.of());
    ((ObjectNode) set.get("spec")).putObject("persistentVolumeClaimRetentionPolicy")
        .put("whenScaled", "Delete").put("whenDeleted", "Delete");
    api.createSet(ns, set);
    api.awaitConverged(ns, "web", 2, TIMEOUT);
    assertEquals(200, api.send("DELETE", Paths.set(ns, "web"), "application/json",
        "{\"kind\":\"DeleteOptions\",\"apiVersion\":\"v1\",\"propagationPolicy\":\"Orphan\"}", null).code());
    api.await(Paths.set(ns, "web"), TIMEOUT, r -> r.code() == 404);
    assertEquals(List.of("www-web-0", "www-web-1"), claims(ns));
    assertTrue(claim(ns, "www-web-0").at("/metadata/ownerReferences").isMissingNode());
    assertEquals(2, api.pods(ns, "app=web").size());
  }

  @Test
  void aDeletedClaimStaysWhileItsPodRunsThenGoesWithItsDataAndTheNextPodGetsANewOne(@Namespace String ns) {
    ObjectNode set = Manifests.volumeIdSet("vol", 1);
    api.createSet(ns, set);
    api.awaitConverged(ns, "vol", 1, TIMEOUT);
    Path volume = service.dataDir.resolve("local/volumes/" + ns + "/www-vol-0");
    String first = api.awaitLog(ns, "vol-0");
    JsonNode claimBefore = claim(ns, "www-vol-0");

    JsonNode deleting = api.delete(Paths.core(ns, "persistentvolumeclaims/www-vol-0")).json();
    assertTrue(deleting.at("/metadata/deletionTimestamp").isTextual(), deleting.toString());
    assertEquals("kubernetes.io/pvc-protection", deleting.at("/metadata/finalizers/0").asText());
    Api.sleep(1000);
    assertTrue(claim(ns, "www-vol-0").at("/metadata/deletionTimestamp").isTextual(), "kept while vol-0 uses it");
    assertTrue(Files.exists(volume.resolve("id")));

    String podUid = api.pod(ns, "vol-0").at("/metadata/uid").asText();
    assertEquals(200, api.delete(Paths.pod(ns, "vol-0")).code());
    api.await(Paths.pod(ns, "vol-0"), TIMEOUT, r -> r.code() == 200
        && !r.json().at("/metadata/uid").asText().equals(podUid) && r.json().at("/status/phase").asText().equals("Running"));
    JsonNode claimAfter = claim(ns, "www-vol-0");
    assertNotEquals(claimBefore.at("/metadata/uid").asText(), claimAfter.at("/metadata/uid").asText());
    assertTrue(claimAfter.at("/metadata/deletionTimestamp").isMissingNode());
    String second = api.awaitLog(ns, "vol-0");
    assertNotEquals(first, second, "the new claim is empty: the pod wrote a new id");

    // No pod uses it (scaled away): deleted at once, with its data.
    api.patchSet(ns, "vol", "{\"spec\":{\"replicas\":0}}");
    api.awaitConverged(ns, "vol", 0, TIMEOUT);
    assertEquals(200, api.delete(Paths.core(ns, "persistentvolumeclaims/www-vol-0")).code());
    assertEquals(404, api.get(Paths.core(ns, "persistentvolumeclaims/www-vol-0")).code());
    assertFalse(Files.exists(volume), "the volume's data went with the claim");
    assertEquals(404, api.delete(Paths.core(ns, "persistentvolumeclaims/www-vol-0")).code());
  }

  @Test
  void raisingAClaimTemplatesStorageExpandsEveryClaimAndTheLocalDriverSaysItCannotEnforceIt(@Namespace String ns) {
    api.createSet(ns, Manifests.commandSet("grow", 2, "/bin/sh", "-c", "exec sleep 600"));
    api.awaitConverged(ns, "grow", 2, TIMEOUT);
    api.patchSet(ns, "grow", "{\"spec\":{\"replicas\":1}}");
    api.awaitConverged(ns, "grow", 1, TIMEOUT);
    String set = Paths.set(ns, "grow");
    assertEquals(422, api.patch(set, "application/json-patch+json", "[{\"op\":\"replace\","
        + "\"path\":\"/spec/volumeClaimTemplates/0/spec/resources/requests/storage\",\"value\":\"512Mi\"}]").code());
    assertEquals(200, api.patch(set, "application/json-patch+json", "[{\"op\":\"replace\","
        + "\"path\":\"/spec/volumeClaimTemplates/0/spec/resources/requests/storage\",\"value\":\"2Gi\"}]").code());
    api.await(Paths.core(ns, "persistentvolumeclaims/www-grow-0"), TIMEOUT,
        r -> r.json().at("/spec/resources/requests/storage").asText().equals("2Gi"));
    assertEquals("2Gi", claim(ns, "www-grow-0").at("/status/capacity/storage").asText());
    // A claim whose ordinal is scaled away grows when its pod comes back.
    assertEquals("1Gi", claim(ns, "www-grow-1").at("/spec/resources/requests/storage").asText());
    api.patchSet(ns, "grow", "{\"spec\":{\"replicas\":2}}");
    api.awaitConverged(ns, "grow", 2, TIMEOUT);
    assertEquals("2Gi", claim(ns, "www-grow-1").at("/spec/resources/requests/storage").asText());
    List<String> reasons = new ArrayList<>();
    for (JsonNode event : api.events(ns)) {
      if (event.at("/involvedObject/name").asText().equals("www-grow-0")) {
        reasons.add(event.path("reason").asText());
      }
    }
    assertEquals(List.of("VolumeResizeSuccessful", "VolumeSizeNotEnforced"), reasons);
  }

  private static JsonNode claim(String ns, String name) {
    return api.get(Paths.core(ns, "persistentvolumeclaims/" + name)).json();
  }

  private static List<String> claims(String ns) {
    return names(api.get(Paths.core(ns, "persistentvolumeclaims")).json().path("items"));
  }

  private static List<String> names(Iterable<JsonNode> items) {
    List<String> names = new ArrayList<>();
    items.forEach(item -> names.add(item.at("/metadata/name").asText()));
    return names.stream().sorted().toList();
  }

  /** Pod deletions ("-web-2") and claim deletions ("-claim www-web-2") in event order. */
  private static List<String> lifecycleEvents(String ns) {
    List<String> out = new ArrayList<>();
    for (JsonNode event : api.events(ns)) {
      String message = event.path("message").asText();
      if (message.startsWith("delete Pod ")) {
        out.add("-" + message.split(" ")[2]);
      } else if (message.startsWith("delete Claim ")) {
        out.add("-claim " + message.split(" ")[2]);
      }
    }
    return out;
  }
}
