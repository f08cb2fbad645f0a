package io.ordinal.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import io.ordinal.store.KubeJson;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Ordinal switched in as the cluster's StatefulSet controller and out again, killed (SIGKILL) inside
 * each step of its take-over of a running apps/v1 set and of its hand-back, and started again: each
 * time it goes on from where it was, and in the end upstream's controller runs the same pods, none
 * deleted or created (a watch from before the switch to after sees each once). The service pauses 3 s
 * at the start of each step (ordinal.adoption.step-pause) so the kill lands inside it.
 */
class StatefulSetControllerCrashIT {
  private static final String NS = "switch-crash";
  private static final String SETTING = "ORDINAL_KUBERNETES_STATEFULSET_CONTROLLER";
  private static final List<String> TAKE_OVER = List.of("record", "mark", "create");
  private static final List<String> HAND_BACK = List.of("markRecords", "orphan", "forget");

  @Test
  void aTakeOverAndAHandBackKilledInEachStepGoOnAndRestartNoPod() throws Exception {
    try (ControlPlane cluster = ControlPlane.start()) {
      Kubectl kubectl = cluster.kubectl();
      cluster.applyWeb(NS, 3, true, set -> { });
      String revision = json(kubectl, "statefulset.apps/web").at("/status/updateRevision").asText();
      Map<String, String> claims = cluster.uids(NS, "pvc");

      try (PodWatch watch = new PodWatch(kubectl, NS, "web")) {
        watch.awaitReady(3, Set.of());
        Map<String, String> pods = cluster.uids(NS, "pods");
        cluster.restartControllerManager("-statefulset-controller");
        try (OrdinalService ordinal = cluster.startOrdinal("switch-crash",
            Map.of("ORDINAL_ADOPTION_STEP_PAUSE", "3s", SETTING, "true"))) {
          killedInEachStep(ordinal, "take-over", TAKE_OVER);
          await("Ordinal runs the same pods", () -> {
            Api.Reply ours = ordinal.api().get(Paths.set(NS, "web"));
            return ours.code() == 200 && ours.json().at("/status/readyReplicas").asInt() == 3
                && revision.equals(ours.json().at("/status/updateRevision").asText())
                && ordinal.api().get(Paths.core(NS, "pods")).json().path("items").size() == 3;
          });
          assertEquals(pods, cluster.uids(NS, "pods"), "the same pods, under Ordinal");
          assertEquals(claims, cluster.uids(NS, "pvc"));

          ordinal.stop();
          ordinal.withEnv(SETTING, null).start();
          killedInEachStep(ordinal, "hand-back", HAND_BACK);
          await("Ordinal to let it go", () -> ordinal.api().get(Paths.set(NS, "web")).code() == 404
              && ordinal.api().get(Paths.core(NS, "pods")).json().path("items").isEmpty()
              && json(kubectl, "pods").path("items").findValues("ordinal.io/pod-uid").isEmpty());
        }
        cluster.restartControllerManager("");
        await("upstream's controller to report it current", () -> {
          JsonNode upstream = json(kubectl, "statefulset.apps/web");
          return upstream.at("/status/observedGeneration").asLong() == upstream.at("/metadata/generation").asLong()
              && revision.equals(upstream.at("/status/currentRevision").asText())
              && revision.equals(upstream.at("/status/updateRevision").asText())
              && upstream.at("/status/readyReplicas").asInt() == 3;
        });
        assertEquals(pods, cluster.uids(NS, "pods"), "the same pods, back under upstream's controller");
        assertEquals(claims, cluster.uids(NS, "pvc"));
        assertEquals(3, watch.seen().size(), "no pod was replaced: " + watch.seen());
        watch.seen().forEach(s -> assertEquals(0, s.deleted(), "web-" + s.ordinal() + " was deleted"));
      }
    }
  }

  /** For each step in turn: waits until the log says it has begun, then kills and restarts the service. */
  private static void killedInEachStep(OrdinalService ordinal, String operation, List<String> steps) throws Exception {
    for (String step : steps) {
      String line = operation + " of " + NS + "/web: " + step;
      await("the log to say \"" + line + "\"",
          () -> Files.readString(ordinal.dataDir.resolve("service.log"), StandardCharsets.ISO_8859_1).contains(line));
      ordinal.kill9();
      ordinal.start();
    }
  }

  private interface Check {
    boolean done() throws Exception;
  }

  private static void await(String what, Check check) throws Exception {
    Instant deadline = Instant.now().plus(Duration.ofSeconds(120));
    while (!check.done()) {
      if (Instant.now().isAfter(deadline)) {
        throw new AssertionError("not within 120 s: " + what);
      }
      Thread.sleep(200);
    }
  }

  private static JsonNode json(Kubectl kubectl, String resource) throws Exception {
    return KubeJson.JSON.readTree(kubectl.run("-n", NS, "get", resource, "-o", "json").ok().out());
  }
}
