package io.ordinal.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** Many writers at once: optimistic concurrency holds, no update is lost, races end consistent. */
@E2eTest
class ConcurrencyIT {
  static final int CLIENTS = 50;
  static final Duration TIMEOUT = Duration.ofSeconds(120);
  static Api api;
  static OrdinalService service;

  @Test
  void fiftyPutsOfOneResourceVersionHaveExactlyOneWinner(@Namespace String ns) throws Exception {
    api.createSet(ns, Manifests.web("web", 1, 0, Map.of()));
    // Once converged nothing else writes the set (status writes bump resourceVersion too).
    api.awaitConverged(ns, "web", 1, TIMEOUT);
    Api.sleep(500);
    JsonNode stored = api.set(ns, "web");
    List<Integer> codes = race(i -> {
      ObjectNode mine = stored.deepCopy();
      mine.remove("status");
      ((ObjectNode) mine.get("metadata")).putObject("annotations").put("ordinal.io/driver", "sim").put("writer", "w" + i);
      return api.put(Paths.set(ns, "web"), "application/json", Manifests.json(mine)).code();
    });
    assertEquals(1, codes.stream().filter(c -> c == 200).count(), codes.toString());
    assertEquals(CLIENTS - 1, codes.stream().filter(c -> c == 409).count(), codes.toString());
    String winner = api.set(ns, "web").at("/metadata/annotations/writer").asText();
    assertTrue(winner.matches("w\\d+"), winner);
    assertAudited(ns);
  }

  @Test
  void fiftyConcurrentPatchesLoseNoUpdate(@Namespace String ns) throws Exception {
    api.createSet(ns, Manifests.web("web", 1, 0, Map.of()));
    List<Integer> codes = race(i -> api.patch(Paths.set(ns, "web"), "application/merge-patch+json",
        "{\"metadata\":{\"annotations\":{\"writer-" + i + "\":\"done\"}}}").code());
    // Without a resourceVersion a patch is not a conflict: each re-applies to the newer object.
    assertEquals(Collections.nCopies(CLIENTS, 200), codes);
    JsonNode annotations = api.set(ns, "web").at("/metadata/annotations");
    for (int i = 0; i < CLIENTS; i++) {
      assertTrue(annotations.has("writer-" + i), "writer " + i + "'s update was lost: " + annotations);
    }
    assertAudited(ns);
  }

  @Test
  void pauseUndoAndSpecChangesRacedEndInOneConsistentOutcome(@Namespace String ns) throws Exception {
    api.createSet(ns, Manifests.web("web", 4, 0, Map.of("SIM_READY_DELAY_MS", "200")));
    api.awaitConverged(ns, "web", 4, TIMEOUT);
    String set = Paths.set(ns, "web");
    List<Integer> codes = race(i -> switch (i % 5) {
      case 0 -> api.post(set + "/rollout/pause", null, null).code();
      case 1 -> api.post(set + "/rollout/resume", null, null).code();
      case 2 -> api.post(set + "/rollout/undo", null, null).code();
      case 3 -> api.patch(set, "application/json-patch+json", "[{\"op\":\"replace\",\"path\":"
          + "\"/spec/template/spec/containers/0/image\",\"value\":\"k8s.gcr.io/nginx-slim:" + i + "\"}]").code();
      default -> api.patch(set, "application/merge-patch+json", "{\"spec\":{\"replicas\":" + (3 + i % 3) + "}}").code();
    });
    // Undo may find no history yet (400) and any write may exhaust its conflict retries (409).
    assertTrue(codes.stream().allMatch(c -> c == 200 || c == 409 || c == 400), codes.toString());

    // Whatever won, the stored spec is the truth: once resumed, the set converges to exactly it.
    assertEquals(200, api.post(set + "/rollout/resume", null, null).code());
    JsonNode spec = api.set(ns, "web");
    int replicas = spec.at("/spec/replicas").asInt();
    String image = spec.at("/spec/template/spec/containers/0/image").asText();
    JsonNode done = api.await(set + "/status", TIMEOUT, r -> {
      JsonNode s = r.json().path("status");
      return r.json().at("/metadata/generation").asLong() == s.path("observedGeneration").asLong()
          && s.path("currentRevision").asText().equals(s.path("updateRevision").asText())
          && s.path("availableReplicas").asInt() == replicas && s.path("updatedReplicas").asInt() == replicas
          && s.path("replicas").asInt() == replicas;
    });
    List<JsonNode> pods = api.pods(ns, "app=web");
    assertEquals(replicas, pods.size());
    assertEquals(Map.of(done.at("/status/updateRevision").asText(), (long) replicas), pods.stream()
        .collect(Collectors.groupingBy(p -> p.at("/metadata/labels/controller-revision-hash").asText(), Collectors.counting())));
    for (JsonNode pod : pods) {
      assertEquals(image, pod.at("/spec/containers/0/image").asText());
    }
    assertEquals("Complete", api.get(set + "/rollout/status").json().path("phase").asText());
    assertAudited(ns);
  }

  /** Every write of the test that succeeded has exactly one audit event, and no other successful write is logged. */
  static void assertAudited(String ns) {
    AuditTrail.assertComplete(service.dataDir, AuditTrail.successfulWritesSentTo(ns), AuditTrail.inNamespace(ns));
  }

  interface Writer {
    int write(int client) throws Exception;
  }

  /** Runs CLIENTS writers released at the same instant; their response codes by client index. */
  static List<Integer> race(Writer writer) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(CLIENTS);
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<Integer>> results = new ArrayList<>();
      for (int i = 0; i < CLIENTS; i++) {
        int client = i;
        results.add(pool.submit((Callable<Integer>) () -> {
          start.await();
          return writer.write(client);
        }));
      }
      start.countDown();
      List<Integer> codes = new ArrayList<>();
      for (Future<Integer> result : results) {
        codes.add(result.get());
      }
      return codes;
    } finally {
      pool.shutdown();
    }
  }
}
