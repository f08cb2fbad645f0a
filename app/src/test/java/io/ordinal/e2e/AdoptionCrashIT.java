package io.ordinal.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import io.ordinal.store.KubeJson;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * An adoption, then a release, with Ordinal killed (SIGKILL) inside each of their steps and started
 * again: each resumes where it was (Temporal) and ends as an uninterrupted one does, with no pod of
 * the set deleted or created, as a watch from before the adoption to after the release sees. The
 * service pauses 3 s at the start of each step (ordinal.adoption.step-pause) so that the kill lands
 * inside it; its log says which step has begun.
 */
class AdoptionCrashIT {
  private static final String NS = "crash";
  private static final List<String> ADOPTION = List.of("plan", "importRecords", "orphanUpstream", "createObject",
      "moveOwnership", "awaitControlled");
  private static final List<String> RELEASE = List.of("planRelease", "writeRevisions", "orphanOrdinal", "detach",
      "createUpstream", "awaitUpstream");

  @Test
  void anAdoptionAndAReleaseKilledInEachStepResumeAndRestartNoPod() throws Exception {
    try (ControlPlane cluster = ControlPlane.start();
         OrdinalService ordinal = cluster.startOrdinal("adoption-crash", Map.of("ORDINAL_ADOPTION_STEP_PAUSE", "3s"))) {
      Kubectl kubectl = cluster.kubectl();
      cluster.applyWeb(NS, 3, true, set -> { });
      String revision = json(kubectl, "get", "statefulset.apps/web").at("/status/updateRevision").asText();
      Map<String, String> claims = cluster.uids(NS, "pvc");

      try (PodWatch watch = new PodWatch(kubectl, NS, "web")) {
        watch.awaitReady(3, Set.of());
        Map<String, String> pods = cluster.uids(NS, "pods");

        killedInEachStep(ordinal, "adoption", ADOPTION, "adopt");
        awaitJson(kubectl, "pods", items -> allOwnedBy(items, "apps.ordinal.io/v1"));
        JsonNode ours = ordinal.api().await(Paths.set(NS, "web"), Duration.ofSeconds(90),
            r -> r.code() == 200 && r.json().at("/status/readyReplicas").asInt() == 3);
        assertEquals(revision, ours.at("/status/updateRevision").asText(), ours.toString());
        assertEquals(pods, cluster.uids(NS, "pods"), "the same pods, under Ordinal");
        assertEquals(claims, cluster.uids(NS, "pvc"), "the same claims");

        killedInEachStep(ordinal, "release", RELEASE, "release");
        awaitJson(kubectl, "pods", items -> allOwnedBy(items, "apps/v1"));
        JsonNode upstream = awaitJsonObject(kubectl, "statefulset.apps/web",
            s -> s.at("/status/currentRevision").asText().equals(revision) && s.at("/status/readyReplicas").asInt() == 3);
        assertEquals(revision, upstream.at("/status/updateRevision").asText());
        assertEquals(pods, cluster.uids(NS, "pods"), "the same pods, back under upstream's controller");
        assertEquals(claims, cluster.uids(NS, "pvc"));
        assertEquals(3, watch.seen().size(), "no pod was replaced: " + watch.seen());
        watch.seen().forEach(s -> assertEquals(0, s.deleted(), "web-" + s.ordinal() + " was deleted"));
      }
    }
  }

  /**
   * Asks for the operation (the request dies with the service; the workflow goes on), then, for each
   * step in turn, waits until the log says it has begun and kills and restarts the service.
   */
  private static void killedInEachStep(OrdinalService ordinal, String operation, List<String> steps, String verb)
      throws Exception {
    Thread.ofPlatform().daemon().start(() -> {
      try {
        ordinal.api().post(Paths.set(NS, "web") + "/rollout/" + verb, "application/json", "{}");
      } catch (RuntimeException e) {
        // the service was killed under it
      }
    });
    for (String step : steps) {
      ordinal.awaitLogged(operation + " of " + NS + "/web: " + step);
      ordinal.kill9();
      ordinal.start();
    }
  }

  private static boolean allOwnedBy(JsonNode items, String apiVersion) {
    if (items.size() != 3) {
      return false;
    }
    for (JsonNode pod : items) {
      if (!apiVersion.equals(pod.at("/metadata/ownerReferences/0/apiVersion").asText())) {
        return false;
      }
    }
    return true;
  }

  private static JsonNode json(Kubectl kubectl, String... args) throws Exception {
    String[] all = new String[args.length + 4];
    all[0] = "-n";
    all[1] = NS;
    System.arraycopy(args, 0, all, 2, args.length);
    all[args.length + 2] = "-o";
    all[args.length + 3] = "json";
    return KubeJson.JSON.readTree(kubectl.run(all).ok().out());
  }

  private static void awaitJson(Kubectl kubectl, String resource, java.util.function.Predicate<JsonNode> items)
      throws Exception {
    awaitJsonObject(kubectl, resource, list -> items.test(list.path("items")));
  }

  private static JsonNode awaitJsonObject(Kubectl kubectl, String resource, java.util.function.Predicate<JsonNode> done)
      throws Exception {
    Instant deadline = Instant.now().plus(Duration.ofSeconds(120));
    JsonNode last = null;
    while (Instant.now().isBefore(deadline)) {
      last = json(kubectl, "get", resource);
      if (done.test(last)) {
        return last;
      }
      Thread.sleep(250);
    }
    throw new AssertionError(resource + " never got there: " + last);
  }

}
