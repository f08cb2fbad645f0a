package io.ordinal.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.ordinal.store.KubeJson;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * On the real control plane (pods run by KWOK): Ordinal as the cluster's StatefulSet controller. A
 * running apps/v1 set made by upstream's controller is switched to Ordinal's (kube-controller-manager
 * restarted with {@code -statefulset-controller}, Ordinal started with
 * {@code ORDINAL_KUBERNETES_STATEFULSET_CONTROLLER=true}) with no pod or claim replaced; kubectl's own
 * verbs then work on the built-in kind through Ordinal ({@code scale}, {@code set image}, {@code
 * rollout status}, {@code history}, {@code undo}, {@code restart}), and a set created meanwhile gets
 * Ordinal's pods, owned by the apps/v1 object. Then it is switched back (Ordinal restarted without the
 * setting, upstream's controller turned on again), again with no pod replaced, and upstream's
 * controller reports it current and runs it. A set whose revision Ordinal would name otherwise is not
 * taken over (its pods would all roll): its status says why.
 */
class StatefulSetControllerIT {
  private static final String SETTING = "ORDINAL_KUBERNETES_STATEFULSET_CONTROLLER";
  private static final Duration TIMEOUT = Duration.ofSeconds(120);
  private static ControlPlane cluster;
  private static OrdinalService ordinal;

  @BeforeAll
  static void start() throws Exception {
    cluster = ControlPlane.start();
  }

  @AfterAll
  static void stop() throws Exception {
    if (ordinal != null) {
      ordinal.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  private static String kubectl(String... args) {
    return cluster.kubectl().run(args).ok().out();
  }

  private static JsonNode json(String... args) throws Exception {
    return KubeJson.JSON.readTree(kubectl(args));
  }

  private static JsonNode set(String ns) throws Exception {
    return json("-n", ns, "get", "statefulset.apps/web", "-o", "json");
  }

  /** The docs' web set, with characters in its template that Go's JSON escapes (a revision written otherwise is not upstream's). */
  private static void apply(String ns, int replicas, boolean createNamespace) throws Exception {
    cluster.applyWeb(ns, replicas, createNamespace, set -> ((ObjectNode) set.at("/spec/template/metadata"))
        .putObject("annotations").put("example.com/note", "a && b <c>"));
  }

  private static Map<String, String> uids(String ns, String resource) throws Exception {
    return cluster.uids(ns, resource);
  }

  private static void await(String what, Predicate<Void> done) throws InterruptedException {
    Instant deadline = Instant.now().plus(TIMEOUT);
    while (!done.test(null)) {
      if (Instant.now().isAfter(deadline)) {
        throw new AssertionError("not within " + TIMEOUT + ": " + what);
      }
      Thread.sleep(250);
    }
  }

  private static boolean current(JsonNode set, String revision, int replicas) {
    JsonNode status = set.path("status");
    return status.path("observedGeneration").asLong() == set.at("/metadata/generation").asLong()
        && revision.equals(status.path("currentRevision").asText()) && revision.equals(status.path("updateRevision").asText())
        && status.path("readyReplicas").asInt() == replicas && status.path("updatedReplicas").asInt() == replicas;
  }

  private static void assertNoneDeleted(PodWatch watch, Map<String, String> pods) {
    for (PodWatch.Seen seen : watch.seen()) {
      assertEquals(0, seen.deleted(), "web-" + seen.ordinal() + " (" + seen.uid() + ") was deleted: " + watch.seen());
    }
    assertEquals(Set.copyOf(pods.values()), watch.uids(), "no pod created or replaced");
  }

  @Test
  void upstreamsRunningSetSwitchesToOrdinalAndBackWithNoPodRestartedAndKubectlsVerbsWorkInBetween() throws Exception {
    String ns = "switched";
    apply(ns, 3, true);
    String revision = set(ns).at("/status/updateRevision").asText();
    Map<String, String> claims = uids(ns, "pvc");
    Map<String, String> pods = uids(ns, "pods");
    assertEquals(3, pods.size(), pods.toString());
    String objectUid = set(ns).at("/metadata/uid").asText();

    // Upstream's controller off, Ordinal's on: Ordinal takes the running set over as it is.
    Map<String, String> mismatched = new TreeMap<>();
    try (PodWatch watch = new PodWatch(cluster.kubectl(), ns, "web")) {
      watch.awaitReady(3, Set.of());
      apply("mismatch", 1, true);
      cluster.restartControllerManager("-statefulset-controller");
      // A set whose revision its controller named otherwise than Ordinal would: taking it over would roll its pods.
      kubectl("-n", "mismatch", "patch", "statefulset/web", "--subresource=status", "--type=merge", "-p",
          "{\"status\":{\"currentRevision\":\"web-5d8f7c9b6\",\"updateRevision\":\"web-5d8f7c9b6\"}}");
      mismatched.putAll(uids("mismatch", "pods"));
      ordinal = cluster.startOrdinal("statefulset-controller", Map.of(SETTING, "true"));
      await("Ordinal runs " + ns + "/web", v -> {
        Api.Reply ours = ordinal.api().get(Paths.set(ns, "web"));
        return ours.code() == 200 && current(ours.json(), revision, 3);
      });
      for (JsonNode pod : json("-n", ns, "get", "pods", "-o", "json").path("items")) {
        assertEquals(pod.at("/metadata/uid").asText(), pod.at("/metadata/annotations/ordinal.io~1pod-uid").asText(),
            "Ordinal's record of it is that very pod: " + pod);
        assertEquals(objectUid, pod.at("/metadata/ownerReferences/0/uid").asText(), "still the apps/v1 object's");
        assertEquals(revision, pod.at("/metadata/labels/controller-revision-hash").asText());
      }
      assertEquals(claims, uids(ns, "pvc"), "no claim replaced");
      assertNoneDeleted(watch, pods);
    }
    await("the mismatched set refused", v -> {
      try {
        return set("mismatch").at("/status/conditions/0/reason").asText().equals("RevisionMismatch");
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
    JsonNode refused = set("mismatch").at("/status/conditions/0");
    assertEquals("Accepted", refused.path("type").asText(), refused.toString());
    assertEquals("False", refused.path("status").asText(), refused.toString());
    assertTrue(refused.path("message").asText().contains("the controller before it named it web-5d8f7c9b6"), refused.toString());
    assertEquals(404, ordinal.api().get(Paths.set("mismatch", "web")).code(), "Ordinal recorded nothing of it");
    assertEquals(mismatched, uids("mismatch", "pods"), "its pods run on, untouched");
    assertTrue(json("-n", "mismatch", "get", "pods", "-o", "json").path("items").findValues("ordinal.io/pod-uid").isEmpty());

    // kubectl's verbs on the built-in kind, run by Ordinal: scale, rollout status.
    kubectl("-n", ns, "scale", "statefulset/web", "--replicas=4");
    kubectl("-n", ns, "rollout", "status", "statefulset/web", "--timeout=120s");
    JsonNode added = json("-n", ns, "get", "pod", "web-3", "-o", "json");
    assertEquals(objectUid, added.at("/metadata/ownerReferences/0/uid").asText(), added.toString());
    assertEquals("apps/v1", added.at("/metadata/ownerReferences/0/apiVersion").asText());
    assertTrue(current(set(ns), revision, 4), set(ns).toString());

    // set image: a rollout Ordinal runs; history and undo read the ControllerRevisions it mirrors.
    kubectl("-n", ns, "set", "image", "statefulset/web", "nginx=k8s.gcr.io/nginx-slim:0.9");
    kubectl("-n", ns, "rollout", "status", "statefulset/web", "--timeout=120s");
    String updated = set(ns).at("/status/updateRevision").asText();
    assertNotEquals(revision, updated);
    assertTrue(current(set(ns), updated, 4), set(ns).toString());
    String history = kubectl("-n", ns, "rollout", "history", "statefulset/web");
    assertTrue(history.matches("(?s).*\\n1 .*\\n2 .*"), history);
    kubectl("-n", ns, "rollout", "undo", "statefulset/web");
    kubectl("-n", ns, "rollout", "status", "statefulset/web", "--timeout=120s");
    assertTrue(current(set(ns), revision, 4), "undo went back to upstream's revision: " + set(ns));
    assertEquals(Set.of(revision, updated), uids(ns, "controllerrevisions").keySet(),
        "the revision undone to is reused, as upstream's controller does");

    // A set made while Ordinal is the controller: Ordinal's pods, the object's; rollout restart.
    String fresh = "fresh";
    apply(fresh, 2, true);
    String freshUid = set(fresh).at("/metadata/uid").asText();
    for (JsonNode pod : json("-n", fresh, "get", "pods", "-o", "json").path("items")) {
      assertEquals(freshUid, pod.at("/metadata/ownerReferences/0/uid").asText(), pod.toString());
      assertTrue(pod.at("/metadata/annotations/ordinal.io~1pod-uid").isTextual(), "Ordinal made it: " + pod);
    }
    Map<String, String> freshBefore = uids(fresh, "pods");
    // Orphan, then adopt: deleted with its pods orphaned and applied again, the new object takes them as they run.
    kubectl("-n", fresh, "delete", "statefulset/web", "--cascade=orphan");
    await("Ordinal's set of the deleted object to go", v -> ordinal.api().get(Paths.set(fresh, "web")).code() == 404);
    apply(fresh, 2, false);
    String adopter = set(fresh).at("/metadata/uid").asText();
    assertNotEquals(freshUid, adopter);
    await("the new object to own both pods", v -> {
      try {
        JsonNode items = json("-n", fresh, "get", "pods", "-o", "json").path("items");
        return items.size() == 2 && items.findValues("ownerReferences").stream()
            .allMatch(owners -> owners.at("/0/uid").asText().equals(adopter));
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
    assertEquals(freshBefore, uids(fresh, "pods"), "the same pods, under the new object");
    kubectl("-n", fresh, "rollout", "restart", "statefulset/web");
    kubectl("-n", fresh, "rollout", "status", "statefulset/web", "--timeout=120s");
    Map<String, String> freshAfter = uids(fresh, "pods");
    assertEquals(2, freshAfter.size(), freshAfter.toString());
    freshAfter.forEach((name, uid) -> assertNotEquals(freshBefore.get(name), uid, name + " was restarted"));

    // Back: Ordinal without the setting lets the sets go as they run; upstream's controller takes them.
    Map<String, String> running = uids(ns, "pods");
    String freshRevision = set(fresh).at("/status/updateRevision").asText();
    try (PodWatch watch = new PodWatch(cluster.kubectl(), ns, "web")) {
      watch.awaitReady(4, Set.of());
      ordinal.stop();
      ordinal.withEnv(SETTING, null).start();
      await("Ordinal to let both sets go", v -> ordinal.api().get(Paths.set(ns, "web")).code() == 404
          && ordinal.api().get(Paths.set(fresh, "web")).code() == 404);
      await("Ordinal's marks to go", v -> {
        try {
          return json("-n", ns, "get", "pods", "-o", "json").path("items").findValues("ordinal.io/pod-uid").isEmpty();
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      });
      cluster.restartControllerManager("");
      await("upstream's controller to report both sets current", v -> {
        try {
          return current(set(ns), revision, 4) && current(set(fresh), freshRevision, 2);
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      });
      assertEquals(running, uids(ns, "pods"), "the same pods");
      assertNoneDeleted(watch, running);
      // Upstream's controller runs it now: a scale adds web-4, its own pod.
      kubectl("-n", ns, "scale", "statefulset/web", "--replicas=5");
      kubectl("-n", ns, "rollout", "status", "statefulset/web", "--timeout=120s");
      JsonNode upstreams = json("-n", ns, "get", "pod", "web-4", "-o", "json");
      assertTrue(upstreams.at("/metadata/annotations/ordinal.io~1pod-uid").isMissingNode(), upstreams.toString());
      assertEquals(revision, upstreams.at("/metadata/labels/controller-revision-hash").asText());
      assertEquals(running.keySet(), Set.of("web-0", "web-1", "web-2", "web-3"));
      Map<String, String> now = uids(ns, "pods");
      now.remove("web-4");
      assertEquals(running, now, "the same pods, and upstream's web-4");
    }
  }
}
