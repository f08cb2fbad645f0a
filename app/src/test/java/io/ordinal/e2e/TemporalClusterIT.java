package io.ordinal.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Ordinal on a Temporal cluster of its own (frontend, history, matching and worker as separate
 * processes, four history shards, PostgreSQL), two instances side by side as production runs them,
 * while the cluster's services and the instances are killed with SIGKILL. (With
 * -Dordinal.it.temporal=cluster the suite's shared service runs on a cluster too, and with it the scale,
 * rollout, pause and undo classes.)
 */
class TemporalClusterIT {
  static final Duration TIMEOUT = Duration.ofSeconds(180);
  static final int REPLICAS = 10;
  static TemporalCluster cluster;
  static OrdinalService nodeA;
  static OrdinalService nodeB;

  @BeforeAll
  static void startClusterAndTwoInstances() throws Exception {
    cluster = TemporalCluster.start("faults");
    nodeA = new OrdinalService("cluster-a", Map.of("ORDINAL_NODE_NAME", "node-a")).onTemporalCluster(cluster);
    nodeA.start();
    nodeB = new OrdinalService("cluster-b", nodeA.sharedInfrastructure()).withEnv("ORDINAL_NODE_NAME", "node-b");
    nodeB.start();
  }

  @AfterAll
  static void stopAll() {
    if (nodeB != null) {
      nodeB.close();
    }
    if (nodeA != null) {
      nodeA.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  /**
   * A rollout of 10 pods with claims through SIGKILLs of the history service, the frontend, the
   * matching service and one Ordinal instance, each started again a moment later: it finishes on
   * the new revision, and each identity was created once and replaced once.
   */
  @Test
  void aRolloutFinishesThroughKillsOfHistoryFrontendMatchingAndAnInstanceWithEachIdentityReplacedOnce()
      throws Exception {
    String ns = "cluster-faults";
    Api viaA = nodeA.api();
    Api viaB = nodeB.api();
    // Slow enough (about 1.5 s a pod) that every kill falls inside the rollout.
    viaA.createSet(ns, Manifests.web("web", REPLICAS, 0, Map.of("SIM_READY_DELAY_MS", "1000", "SIM_TERMINATION_DELAY_MS", "300")));
    String before = viaB.awaitConverged(ns, "web", REPLICAS, TIMEOUT).at("/status/currentRevision").asText();

    viaA.setImage(ns, "web", "k8s.gcr.io/nginx-slim:0.9");
    for (String service : List.of("history", "frontend", "matching")) {
      awaitNextReplacement(viaA, ns, before);
      cluster.kill(service);
      Api.sleep(1_000);
      cluster.restart(service);
    }
    // node-b, not node-a: node-a's embedded PostgreSQL, which both use, comes back on another port.
    awaitNextReplacement(viaA, ns, before);
    nodeB.kill9();
    nodeB.start();

    JsonNode done = viaA.awaitRolledOut(ns, "web", REPLICAS, before, TIMEOUT);
    String after = done.at("/status/updateRevision").asText();
    for (JsonNode pod : viaA.pods(ns, "app=web")) {
      assertEquals(after, pod.at("/metadata/labels/controller-revision-hash").asText(), pod.toString());
    }
    Map<String, Long> operations = viaA.podOperations(ns).stream()
        .collect(Collectors.groupingBy(op -> op, TreeMap::new, Collectors.counting()));
    Map<String, Long> expected = new TreeMap<>();
    for (int i = 0; i < REPLICAS; i++) {
      expected.put("+web-" + i, 2L); // made, then its replacement
      expected.put("-web-" + i, 1L);
    }
    assertEquals(expected, operations, "pod creations (+) and deletions (-)");
    List<String> claims = viaA.get(Paths.core(ns, "persistentvolumeclaims")).json().findValuesAsText("uid");
    assertEquals(REPLICAS, claims.stream().distinct().count(), "one claim per identity, none replaced: " + claims);
  }

  /** Pause holds a rollout on the cluster (a workflow update), resume finishes it, undo rolls back. */
  @Test
  void pauseResumeAndUndoWorkOnTheCluster() throws Exception {
    String ns = "cluster-pause";
    Api viaA = nodeA.api();
    String set = Paths.set(ns, "web");
    viaA.createSet(ns, Manifests.web("web", 4, 0, Map.of("SIM_READY_DELAY_MS", "700")));
    String first = viaA.awaitConverged(ns, "web", 4, TIMEOUT).at("/status/currentRevision").asText();
    viaA.setImage(ns, "web", "k8s.gcr.io/nginx-slim:0.9");
    awaitNextReplacement(viaA, ns, first);
    assertEquals(200, viaA.post(set + "/rollout/pause", null, null).code());
    viaA.await(set + "/rollout/status", TIMEOUT, r -> r.json().path("phase").asText().equals("Paused"));
    List<String> atPause = viaA.podOperations(ns);
    Api.sleep(2_000);
    CrashRecoveryIT.assertNoPodDeletedSince(atPause, viaA.podOperations(ns));
    assertEquals(200, viaA.post(set + "/rollout/resume", null, null).code());
    String second = viaA.awaitRolledOut(ns, "web", 4, first, TIMEOUT).at("/status/currentRevision").asText();
    assertEquals(200, viaA.post(set + "/rollout/undo", null, null).code());
    assertEquals(first, viaA.awaitRolledOut(ns, "web", 4, second, TIMEOUT).at("/status/currentRevision").asText());
  }

  /** Ordinal's histories on the cluster: operations spread over its history shards, each findable by set. */
  @Test
  void operationsOnTheClusterAreFindableBySetAndOperation() throws Exception {
    String ns = "cluster-search";
    Api viaA = nodeA.api();
    viaA.createSet(ns, Manifests.web("web", 2, 0, Map.of()));
    viaA.awaitConverged(ns, "web", 2, TIMEOUT);
    List<String> ids = nodeA.withTemporal(client -> client.listExecutions(
            "OrdinalNamespace = '" + ns + "' AND OrdinalStatefulSet = 'web'").map(e -> e.getExecution().getWorkflowId())
        .sorted().toList());
    assertTrue(ids.contains("statefulset/" + ns + "/web"), ids.toString());
    assertTrue(ids.contains("statefulset/" + ns + "/web/scale-1"), ids.toString());
  }

  /** The next pod replacement of the rollout in progress: one more pod on the update revision, not the last. */
  private static void awaitNextReplacement(Api api, String ns, String before) {
    // A status of the rollout (updatedReplicas counts pods of the new revision), not one from before it.
    int updated = api.await(Paths.set(ns, "web") + "/status", TIMEOUT,
        r -> !r.json().at("/status/updateRevision").asText().equals(before)).at("/status/updatedReplicas").asInt();
    int now = api.await(Paths.set(ns, "web") + "/status", TIMEOUT,
        r -> r.json().at("/status/updatedReplicas").asInt() > updated).at("/status/updatedReplicas").asInt();
    assertTrue(now < REPLICAS, "the rollout finished before every fault was injected: make it slower");
  }
}
