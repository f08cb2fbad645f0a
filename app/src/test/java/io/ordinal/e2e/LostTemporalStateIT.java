package io.ordinal.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Temporal's state lost while PostgreSQL's survives (its database deleted, or a new namespace): the
 * store is the truth, so a restart rebuilds every set's controller from it and converges, and no pod
 * that exists is made again.
 */
@E2eTest
class LostTemporalStateIT {
  static final Duration TIMEOUT = Duration.ofSeconds(120);

  @Test
  void aRestartWithoutTemporalsDatabaseRebuildsEveryControllerFromTheStoreAndRecreatesNothing() throws Exception {
    String ns = "lost-temporal";
    try (OrdinalService service = new OrdinalService("lost-temporal", Map.of("ORDINAL_DRIVER", "sim"))) {
      service.start();
      Api api = service.api();
      api.createSet(ns, Manifests.web("web", 3, 0, Map.of()));
      api.createSet(ns, Manifests.web("paused", 4, 0, Map.of("SIM_READY_DELAY_MS", "500")));
      api.awaitConverged(ns, "web", 3, TIMEOUT);
      String before = api.awaitConverged(ns, "paused", 4, TIMEOUT).at("/status/currentRevision").asText();
      // A rollout paused half-way: its pause is in the spec, its progress in the pods.
      api.setImage(ns, "paused", "k8s.gcr.io/nginx-slim:0.9");
      api.await(Paths.set(ns, "paused") + "/status", TIMEOUT, r -> r.json().at("/status/updatedReplicas").asInt() >= 1);
      assertEquals(200, api.post(Paths.set(ns, "paused") + "/rollout/pause", null, null).code());
      api.await(Paths.set(ns, "paused") + "/rollout/status", TIMEOUT, r -> r.json().path("phase").asText().equals("Paused"));
      Map<String, String> uids = uids(api, ns);
      List<String> operations = api.podOperations(ns);

      service.stop();
      Path temporal = service.dataDir.resolve("temporal");
      try (Stream<Path> files = Files.walk(temporal)) {
        files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
      }
      assertTrue(!Files.exists(temporal));
      service.start();

      api.awaitConverged(ns, "web", 3, TIMEOUT);
      JsonNode paused = api.await(Paths.set(ns, "paused") + "/rollout/status", TIMEOUT,
          r -> r.json().path("phase").asText().equals("Paused"));
      Api.sleep(2_000);
      assertEquals(uids, uids(api, ns), "every pod that existed is the same pod");
      assertEquals(operations, api.podOperations(ns), "no pod was made or deleted: " + paused);

      // Controllers run again: a scale and the resumed rollout finish.
      api.patchSet(ns, "web", "{\"spec\":{\"replicas\":4}}");
      api.awaitConverged(ns, "web", 4, TIMEOUT);
      assertEquals(200, api.post(Paths.set(ns, "paused") + "/rollout/resume", null, null).code());
      JsonNode done = api.awaitRolledOut(ns, "paused", 4, before, TIMEOUT);
      assertTrue(!done.at("/status/currentRevision").asText().equals(before));
      assertTrue(service.withTemporal(client -> client.listExecutions("OrdinalNamespace = '" + ns
          + "' AND OrdinalOperation = 'controller'").count()) >= 2, "a controller per set again");
    }
  }

  private static Map<String, String> uids(Api api, String ns) {
    Map<String, String> uids = new java.util.TreeMap<>();
    for (JsonNode pod : api.get(Paths.core(ns, "pods")).json().path("items")) {
      uids.put(pod.at("/metadata/name").asText(), pod.at("/metadata/uid").asText());
    }
    return uids;
  }
}
