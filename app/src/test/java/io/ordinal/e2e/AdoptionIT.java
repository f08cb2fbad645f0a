package io.ordinal.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.ordinal.store.KubeJson;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * On the real control plane (pods run by KWOK): a running apps/v1 StatefulSet, made and run by
 * upstream's controller, taken over by Ordinal (POST .../rollout/adopt, as {@code kubectl ordinal
 * adopt}) with no pod deleted or created and no claim touched, as a watch of its pods from before the
 * adoption to after sees; then Ordinal runs it (a scale adds the next pod); then it is handed back
 * (.../rollout/release) to upstream's controller, which reports it current, again with no pod
 * replaced. A set whose rollout is under way is refused, with the reason, and left as it was.
 */
class AdoptionIT {
  private static ControlPlane cluster;
  private static OrdinalService ordinal;

  @BeforeAll
  static void start() throws Exception {
    cluster = ControlPlane.start();
    ordinal = cluster.startOrdinal("adoption");
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

  /** The docs' web set as apps/v1, run by upstream's controller until it is current; its revision. */
  private static String runUpstream(String ns, int replicas) throws Exception {
    cluster.applyWeb(ns, replicas, true, set -> { });
    return json("-n", ns, "get", "statefulset.apps/web", "-o", "json").at("/status/updateRevision").asText();
  }

  private static Map<String, String> uids(String ns, String resource) throws Exception {
    return cluster.uids(ns, resource);
  }

  @Test
  void aRunningAppsV1SetIsAdoptedWithNoPodRestartedAndOrdinalRunsItThen() throws Exception {
    String ns = "adopted";
    String revision = runUpstream(ns, 5);
    Map<String, String> claims = uids(ns, "pvc");
    assertEquals(5, claims.size(), claims.toString());
    try (PodWatch watch = new PodWatch(cluster.kubectl(), ns, "web")) {
      Map<Integer, PodWatch.Seen> before = watch.awaitReady(5, Set.of());
      Api.Reply dryRun = ordinal.api().post(Paths.set(ns, "web") + "/rollout/adopt?dryRun=All", "application/json", "{}");
      assertEquals(200, dryRun.code(), dryRun.body());
      assertTrue(dryRun.json().path("message").asText().contains("can be adopted: 5 pods at revision " + revision),
          dryRun.body());
      assertEquals("statefulset.apps/web", kubectl("-n", ns, "get", "statefulsets.apps", "-o", "name").trim(),
          "a dry run changes nothing");
      Api.Reply adopted = ordinal.api().post(Paths.set(ns, "web") + "/rollout/adopt", "application/json", "{}");
      assertEquals(200, adopted.code(), adopted.body());
      assertTrue(adopted.json().path("message").asText().contains("none restarted"), adopted.body());

      // The apps/v1 object is gone; the apps.ordinal.io one controls every pod, the same pods.
      assertEquals("", kubectl("-n", ns, "get", "statefulsets.apps", "--ignore-not-found", "-o", "name").trim());
      JsonNode object = json("-n", ns, "get", "statefulsets.apps.ordinal.io/web", "-o", "json");
      for (JsonNode pod : json("-n", ns, "get", "pods", "-o", "json").path("items")) {
        JsonNode owner = pod.at("/metadata/ownerReferences/0");
        assertEquals("apps.ordinal.io/v1", owner.path("apiVersion").asText(), pod.toString());
        assertEquals(object.at("/metadata/uid").asText(), owner.path("uid").asText());
        assertEquals(revision, pod.at("/metadata/labels/controller-revision-hash").asText());
      }
      assertEquals(claims, uids(ns, "pvc"), "no claim replaced");
      JsonNode ours = ordinal.api().set(ns, "web");
      assertEquals(revision, ours.at("/status/updateRevision").asText(), ours.toString());
      assertEquals(5, ours.at("/status/readyReplicas").asInt(), ours.toString());
      List<String> history = ordinal.api().get(Paths.apps(ns, "controllerrevisions")).json().path("items")
          .findValuesAsText("name");
      assertTrue(history.contains(revision), "upstream's revision is Ordinal's history: " + history);

      // Ordinal runs it now: a scale of the cluster object adds web-5, and nothing else happens.
      kubectl("-n", ns, "scale", "statefulsets.apps.ordinal.io/web", "--replicas=6");
      watch.awaitReady(6, Set.of());
      List<PodWatch.Seen> seen = watch.seen();
      assertEquals(6, seen.size(), "one incarnation per pod: " + seen);
      seen.forEach(s -> assertEquals(0, s.deleted(), "web-" + s.ordinal() + " was deleted"));
      before.forEach((ordinal, s) -> assertTrue(watch.uids().contains(s.uid()), "web-" + ordinal + " kept"));

      // Released back: upstream's controller takes the same six pods and reports the set current.
      Map<String, String> pods = uids(ns, "pods");
      Api.Reply released = ordinal.api().post(Paths.set(ns, "web") + "/rollout/release", "application/json", "{}");
      assertEquals(200, released.code(), released.body());
      JsonNode upstream = json("-n", ns, "get", "statefulset.apps/web", "-o", "json");
      assertEquals(revision, upstream.at("/status/currentRevision").asText(), upstream.toString());
      assertEquals(revision, upstream.at("/status/updateRevision").asText(), upstream.toString());
      assertEquals(6, upstream.at("/status/readyReplicas").asInt(), upstream.toString());
      for (JsonNode pod : json("-n", ns, "get", "pods", "-o", "json").path("items")) {
        assertEquals(upstream.at("/metadata/uid").asText(), pod.at("/metadata/ownerReferences/0/uid").asText(), pod.toString());
        assertTrue(pod.at("/metadata/annotations/ordinal.io~1pod-uid").isMissingNode(), "no longer Ordinal's: " + pod);
      }
      assertEquals(pods, uids(ns, "pods"), "the same pods");
      assertEquals("", kubectl("-n", ns, "get", "statefulsets.apps.ordinal.io", "--ignore-not-found", "-o", "name").trim());
      assertEquals(404, ordinal.api().get(Paths.set(ns, "web")).code());
      assertEquals(6, watch.seen().size(), "no pod was replaced: " + watch.seen());
      watch.seen().forEach(s -> assertEquals(0, s.deleted(), "web-" + s.ordinal() + " was deleted"));
    }
  }

  @Test
  void aSetWhoseRolloutIsUnderWayIsRefusedWithTheReasonAndLeftAsItWas() throws Exception {
    String ns = "mid-rollout";
    runUpstream(ns, 2);
    // A partition above every ordinal: the new revision is made, and no pod moves to it.
    kubectl("-n", ns, "patch", "statefulset.apps/web", "--type=merge", "-p",
        "{\"spec\":{\"updateStrategy\":{\"rollingUpdate\":{\"partition\":2}}}}");
    kubectl("-n", ns, "patch", "statefulset.apps/web", "--type=json", "-p", Manifests.imagePatch("k8s.gcr.io/nginx-slim:0.9"));
    JsonNode set = null;
    for (int i = 0; i < 100; i++) {
      set = json("-n", ns, "get", "statefulset.apps/web", "-o", "json");
      if (!set.at("/status/currentRevision").asText().equals(set.at("/status/updateRevision").asText())) {
        break;
      }
      Thread.sleep(100);
    }
    assertEquals(409, ordinal.api().post(Paths.set(ns, "web") + "/rollout/adopt?dryRun=All", "application/json", "{}")
        .code());
    Api.Reply refused = ordinal.api().post(Paths.set(ns, "web") + "/rollout/adopt", "application/json", "{}");
    assertEquals(409, refused.code(), refused.body());
    assertTrue(refused.json().path("message").asText().contains("a rollout is in progress"), refused.body());
    assertEquals(set.at("/metadata/uid").asText(),
        json("-n", ns, "get", "statefulset.apps/web", "-o", "json").at("/metadata/uid").asText(), "still there");
    assertEquals("", kubectl("-n", ns, "get", "statefulsets.apps.ordinal.io", "--ignore-not-found", "-o", "name").trim());
    assertEquals(404, ordinal.api().get(Paths.set(ns, "web")).code(), "Ordinal recorded nothing of it");
    assertEquals(0, ordinal.api().get(Paths.core(ns, "pods")).json().path("items").size());
  }
}
