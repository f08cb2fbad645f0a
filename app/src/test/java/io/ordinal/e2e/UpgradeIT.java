package io.ordinal.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * A data dir made by the previous release (./ordinal's PREVIOUS_RELEASE, built from this clone's
 * history, which named revisions by a hash of its own) taken over by this build, which names them as
 * upstream's controller does: the set's pods keep running (same uids, same processes), its revision
 * stays its revision (found by its template, not by its name), a scale adds pods of that revision,
 * and only a change of the template makes a new one, named by upstream's hash, which undo leaves
 * for the old one again.
 */
class UpgradeIT {
  private static final String NS = "upgrade";

  @Test
  void aSetMadeByThePreviousReleaseKeepsItsPodsAndItsRevisionAcrossTheUpgrade() throws Exception {
    String previous = System.getenv("ORDINAL_PREVIOUS_RELEASE_JAR");
    assertNotNull(previous, "./ordinal test builds the previous release and sets ORDINAL_PREVIOUS_RELEASE_JAR");
    Path java = Path.of(ProcessHandle.current().info().command().orElseThrow());
    try (OrdinalService service = new OrdinalService("upgrade").runningOn(java, Path.of(previous))) {
      service.start();
      Api api = service.api();
      ObjectNode sleeper = Manifests.commandSet("sleeper", 2, "sleep", "600");
      // The claim mounted outside /usr: the previous release cannot mount where this machine has no such path.
      ((ObjectNode) sleeper.at("/spec/template/spec/containers/0/volumeMounts/0")).put("mountPath", "/data");
      assertEquals(201, api.createSet(NS, sleeper).code());
      JsonNode before = api.awaitConverged(NS, "sleeper", 2, Duration.ofSeconds(120));
      String revision = before.at("/status/updateRevision").asText();
      Map<String, String> started = running(api);
      assertEquals(2, started.size(), started.toString());

      service.stop();
      assertTrue(Files.exists(service.dataDir), "the data dir stays for the next release");
      service.runningOn(null, null).start(); // this build, on the same data dir

      api.patchSet(NS, "sleeper", "{\"spec\":{\"replicas\":3}}");
      JsonNode scaled = api.awaitConverged(NS, "sleeper", 3, Duration.ofSeconds(120));
      assertEquals(revision, scaled.at("/status/updateRevision").asText(), "the set's revision is the same");
      assertEquals(revision, scaled.at("/status/currentRevision").asText());
      Map<String, String> after = running(api);
      started.forEach((pod, identity) -> assertEquals(identity, after.get(pod), pod + " was not restarted"));
      for (JsonNode pod : api.pods(NS, "app=sleeper")) {
        assertEquals(revision, pod.at("/metadata/labels/controller-revision-hash").asText(),
            pod.at("/metadata/name").asText() + " runs the set's one revision");
      }

      // A changed template is a new revision, named by upstream's hash; undo goes back to the old one.
      assertEquals(200, api.patch(Paths.set(NS, "sleeper"), "application/json-patch+json",
          "[{\"op\":\"replace\",\"path\":\"/spec/template/spec/containers/0/command\",\"value\":[\"sleep\",\"601\"]}]")
          .code());
      JsonNode rolled = api.await(Paths.set(NS, "sleeper") + "/status", Duration.ofSeconds(120), r -> {
        JsonNode s = r.json().path("status");
        return !s.path("updateRevision").asText().equals(revision) && s.path("updatedReplicas").asInt() == 3
            && s.path("currentRevision").asText().equals(s.path("updateRevision").asText())
            && s.path("availableReplicas").asInt() == 3;
      });
      String next = rolled.at("/status/updateRevision").asText();
      JsonNode nextRevision = api.get(Paths.apps(NS, "controllerrevisions/" + next)).json();
      assertEquals(next.substring("sleeper-".length()),
          nextRevision.at("/metadata/labels").path("controller.kubernetes.io/hash").asText(),
          "upstream's hash label: " + nextRevision);
      assertEquals(200, api.post(Paths.set(NS, "sleeper") + "/rollout/undo", null, null).code());
      JsonNode undone = api.await(Paths.set(NS, "sleeper") + "/status", Duration.ofSeconds(120), r -> {
        JsonNode s = r.json().path("status");
        return s.path("updateRevision").asText().equals(revision) && s.path("updatedReplicas").asInt() == 3
            && s.path("currentRevision").asText().equals(revision) && s.path("availableReplicas").asInt() == 3;
      });
      assertNotEquals(next, undone.at("/status/currentRevision").asText());
      List<String> revisions = new ArrayList<>();
      api.get(Paths.apps(NS, "controllerrevisions")).json().path("items")
          .forEach(item -> revisions.add(item.at("/metadata/name").asText()));
      revisions.sort(null);
      assertEquals(List.of(revision, next).stream().sorted().toList(), revisions, "no third revision");
    }
  }

  /** Each pod's uid and container start, by pod name: what a restart or a replacement changes. */
  private static Map<String, String> running(Api api) {
    Map<String, String> running = new TreeMap<>();
    for (JsonNode pod : api.pods(NS, "app=sleeper")) {
      running.put(pod.at("/metadata/name").asText(), pod.at("/metadata/uid").asText() + " "
          + pod.at("/status/containerStatuses/0/state/running/startedAt").asText());
    }
    return running;
  }
}
