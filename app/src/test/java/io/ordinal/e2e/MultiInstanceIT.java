package io.ordinal.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.client.WorkflowClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Two instances of Ordinal, nodes {@code node-a} and {@code node-b}, against one Temporal dev server
 * and one PostgreSQL (node-a's): any instance runs any set's workflow, while a local set's pods, and
 * every step that starts or stops them, stay on the node it was placed on.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class MultiInstanceIT {
  static final Duration TIMEOUT = Duration.ofSeconds(120);
  static OrdinalService nodeA;
  static OrdinalService nodeB;
  static Api viaA;
  static Api viaB;

  @BeforeAll
  static void startTwoInstances() throws Exception {
    nodeA = new OrdinalService("node-a", Map.of("ORDINAL_NODE_NAME", "node-a"));
    nodeA.start();
    nodeB = new OrdinalService("node-b", nodeA.sharedInfrastructure()).withEnv("ORDINAL_NODE_NAME", "node-b");
    nodeB.start();
    viaA = nodeA.api();
    viaB = nodeB.api();
  }

  @AfterAll
  static void stopBoth() {
    if (nodeB != null) {
      nodeB.close();
    }
    if (nodeA != null) {
      nodeA.close();
    }
  }

  static ObjectNode sleeper(String name, String node) {
    ObjectNode set = Manifests.commandSet(name, 3, "sleep", "3600");
    if (node != null) {
      ((ObjectNode) set.at("/metadata/annotations")).put("ordinal.io/node", node);
    }
    return set;
  }

  @Test
  @Order(1)
  void aSetIsPlacedOnANodeThatSharesTheDatabaseAndStaysThere() {
    String ns = "placement";
    var unknown = viaA.post(Paths.sets(ns), "application/json", Manifests.json(sleeper("nowhere", "node-z")));
    assertEquals(422, unknown.code(), unknown.body());
    assertEquals("metadata.annotations[ordinal.io/node]", unknown.json().at("/details/causes/0/field").asText());
    assertTrue(unknown.json().at("/details/causes/0/message").asText().contains("the nodes are: node-a, node-b"),
        unknown.body());
    ObjectNode simulated = Manifests.web("sim", 1, 0, Map.of());
    viaB.createSet(ns, simulated);
    assertEquals("node-b", viaA.set(ns, "sim").at("/metadata/annotations/ordinal.io~1node").asText(),
        "a set without a node is placed on the instance that took the request");
    var moved = viaA.patch(Paths.set(ns, "sim"), "application/merge-patch+json",
        "{\"metadata\":{\"annotations\":{\"ordinal.io/node\":\"node-a\"}}}");
    assertEquals(422, moved.code(), moved.body());
    assertTrue(moved.body().contains("field is immutable"), moved.body());
    // A replace that leaves the annotation out keeps the set where it is. (Read, change, PUT with its
    // resourceVersion, again on a 409: the set's controller may write its status in between.)
    Api.Reply replaced = null;
    for (int attempt = 0; attempt < 20 && (replaced == null || replaced.code() == 409); attempt++) {
      JsonNode stored = viaA.set(ns, "sim");
      ((ObjectNode) stored.at("/metadata/annotations")).remove("ordinal.io/node");
      ((ObjectNode) stored.get("spec")).put("replicas", 2);
      replaced = viaA.put(Paths.set(ns, "sim"), "application/json", Manifests.json(stored));
    }
    assertEquals(200, replaced.code(), replaced.body());
    assertEquals("node-b", viaA.set(ns, "sim").at("/metadata/annotations/ordinal.io~1node").asText());
    viaA.awaitConverged(ns, "sim", 2, TIMEOUT);
    assertEquals(Set.of("node-b"), viaA.pods(ns, "app=sim").stream()
        .map(p -> p.at("/spec/nodeName").asText()).collect(Collectors.toSet()));
  }

  /** Both instances read the one key file, so a Secret written through one is read and watched through the other. */
  @Test
  @Order(1)
  void aSecretWrittenThroughOneInstanceIsReadThroughTheOther() {
    String secrets = "/api/v1/namespaces/sealed/secrets";
    String from = viaB.get(secrets).json().at("/metadata/resourceVersion").asText();
    Api.Reply created = viaA.post(secrets, "application/json", "{\"metadata\":{\"name\":\"s\"},\"stringData\":{\"k\":\"v\"}}");
    assertEquals(201, created.code(), created.body());
    assertEquals("dg==", viaB.get(secrets + "/s").json().at("/data/k").asText());
    String events = viaB.get(secrets + "?watch=true&resourceVersion=" + from + "&timeoutSeconds=1").body();
    assertTrue(events.contains("\"ADDED\"") && events.contains("dg=="), events);
  }

  @Test
  @Order(2)
  void aPodDeletedThroughAnotherInstanceIsStoppedByItsNodeAndItsLogsAreServedThere() throws Exception {
    String ns = "cross";
    viaA.createSet(ns, Manifests.commandSet("echo", 1, "sh", "-c", "echo hello; sleep 3600"));
    viaB.awaitConverged(ns, "echo", 1, TIMEOUT);
    JsonNode pod = viaB.pod(ns, "echo-0");
    assertEquals("node-a", pod.at("/spec/nodeName").asText());
    var elsewhere = viaB.get(Paths.pod(ns, "echo-0") + "/log");
    assertEquals(503, elsewhere.code(), elsewhere.body());
    assertTrue(elsewhere.body().contains("runs on node node-a (" + nodeA.url()), elsewhere.body());
    awaitLog(viaA, ns, "echo-0", "hello");

    String uid = pod.at("/metadata/uid").asText();
    Path runtime = nodeA.dataDir.resolve("local/pods/" + ns + "/echo-0");
    assertTrue(Files.isDirectory(runtime), "node-a runs the pod");
    assertEquals(200, viaB.delete(Paths.pod(ns, "echo-0")).code());
    // node-b cannot stop node-a's process: node-a's watch does, and the set makes the pod again there.
    viaA.await(Paths.pod(ns, "echo-0"), TIMEOUT, r -> r.code() == 200
        && !r.json().at("/metadata/uid").asText().equals(uid) && ready(r.json()));
    assertEquals(List.of("+echo-0", "-echo-0", "+echo-0"), viaA.podOperations(ns));
    assertFalse(Files.exists(nodeB.dataDir.resolve("local/pods/" + ns + "/echo-0")), "node-b never ran it");
  }

  /**
   * Four local sets, two on each node, created through both instances, scaled up and rolled out;
   * node-b is killed -9 in the middle of every rollout. node-a finishes its own sets' rollouts at
   * once (it takes over the workflows node-b was running), node-b's sets wait with their pods
   * running until node-b is back, then finish. No pod is created twice, no identity runs twice, and
   * every pod step ran on its set's node whichever instance ran the workflow.
   */
  @Test
  @Order(3)
  void twoInstancesShareTheWorkAndKillingOneMidRolloutLetsTheOtherFinish() throws Exception {
    String ns = "shared";
    Map<String, String> nodeOf = Map.of("alpha", "node-a", "beta", "node-a", "gamma", "node-b", "delta", "node-b");
    viaA.createSet(ns, sleeper("alpha", null));
    viaB.createSet(ns, sleeper("beta", "node-a"));
    viaB.createSet(ns, sleeper("gamma", null));
    viaA.createSet(ns, sleeper("delta", "node-b"));
    for (String set : nodeOf.keySet()) {
      viaA.awaitConverged(ns, set, 3, TIMEOUT);
      assertEquals(nodeOf.get(set), viaB.set(ns, set).at("/metadata/annotations/ordinal.io~1node").asText());
      for (JsonNode pod : viaA.pods(ns, "app=" + set)) {
        String name = pod.at("/metadata/name").asText();
        assertEquals(nodeOf.get(set), pod.at("/spec/nodeName").asText(), name);
        OrdinalService runs = nodeOf.get(set).equals("node-a") ? nodeA : nodeB;
        OrdinalService other = runs == nodeA ? nodeB : nodeA;
        assertTrue(Files.isDirectory(runs.dataDir.resolve("local/pods/" + ns + "/" + name)), name);
        assertFalse(Files.exists(other.dataDir.resolve("local/pods/" + ns + "/" + name)), name);
      }
    }

    Map<String, String> before = new HashMap<>();
    for (String set : nodeOf.keySet()) {
      before.put(set, viaA.set(ns, set).at("/status/currentRevision").asText());
      var patched = viaA.patchSet(ns, set,
          "{\"spec\":{\"minReadySeconds\":2,\"template\":{\"metadata\":{\"annotations\":{\"rollout\":\"2\"}}}}}");
      assertEquals(200, patched.code(), patched.body());
    }
    for (String set : nodeOf.keySet()) {
      // Mid-rollout: the new generation observed (the status before it counts every pod as updated) and a pod on it.
      viaA.await(Paths.set(ns, set) + "/status", TIMEOUT, r -> r.json().at("/status/observedGeneration").asLong()
          == r.json().at("/metadata/generation").asLong() && r.json().at("/status/updatedReplicas").asInt() >= 1);
    }
    nodeB.kill9();

    for (String set : List.of("alpha", "beta")) {
      awaitRolledOut(ns, set, before.get(set));
    }
    // node-b's sets are held (their pods and processes are node-b's), not failed: they keep their pods.
    for (String set : List.of("gamma", "delta")) {
      JsonNode status = viaA.set(ns, set).get("status");
      assertNotEquals(3, status.path("updatedReplicas").asInt(), set + " cannot finish without node-b: " + status);
      assertTrue(viaA.pods(ns, "app=" + set).size() >= 2, set + " keeps its running pods");
    }
    nodeB.start();
    for (String set : List.of("gamma", "delta")) {
      awaitRolledOut(ns, set, before.get(set));
    }

    for (String set : nodeOf.keySet()) {
      List<String> operations = viaA.podOperations(ns).stream().filter(op -> op.substring(1).startsWith(set + "-"))
          .toList();
      // Scale-up in order, then the rollout from the highest ordinal down, each pod gone before its successor.
      assertEquals(List.of("+" + set + "-0", "+" + set + "-1", "+" + set + "-2", "-" + set + "-2", "+" + set + "-2",
          "-" + set + "-1", "+" + set + "-1", "-" + set + "-0", "+" + set + "-0"), operations, set);
    }
    Histories histories = nodeA.withTemporal(client -> Histories.of(client, ns));
    System.out.println("MultiInstanceIT: workflow tasks by " + histories.workflowTaskNodes + "; pod steps " + histories.podSteps);
    assertEquals(Set.of("node-a", "node-b"), histories.workflowTaskNodes,
        "both instances ran workflow tasks of these sets");
    for (String set : nodeOf.keySet()) {
      String node = nodeOf.get(set);
      String other = node.equals("node-a") ? "node-b" : "node-a";
      Set<String> ran = histories.podSteps.getOrDefault(set, Set.of());
      assertTrue(ran.contains("local by " + node) || ran.contains("ordinal-node-" + node + " by " + node), set + ": " + ran);
      // Every step ran on the set's node: in its worker's workflow tasks, or on its queue after the other refused.
      assertTrue(Set.of("local by " + node, "ordinal-node-" + node + " by " + node, "refused by " + other).containsAll(ran),
          set + ": where its pod steps ran: " + ran);
    }
  }

  /** The log as text (Api.await reads JSON). */
  private static void awaitLog(Api api, String ns, String pod, String text) {
    long deadline = System.nanoTime() + TIMEOUT.toNanos();
    Api.Reply last;
    do {
      last = api.get(Paths.pod(ns, pod) + "/log");
      if (last.code() == 200 && last.body().contains(text)) {
        return;
      }
      Api.sleep(100);
    } while (System.nanoTime() < deadline);
    throw new AssertionError("no \"" + text + "\" in the log of " + pod + ": " + last.code() + " " + last.body());
  }

  private static boolean ready(JsonNode pod) {
    for (JsonNode condition : pod.at("/status/conditions")) {
      if (condition.path("type").asText().equals("Ready")) {
        return condition.path("status").asText().equals("True");
      }
    }
    return false;
  }

  private static void awaitRolledOut(String ns, String set, String previousRevision) {
    viaA.await(Paths.set(ns, set) + "/status", TIMEOUT, r -> {
      JsonNode s = r.json().path("status");
      return s.path("updatedReplicas").asInt() == 3 && s.path("readyReplicas").asInt() == 3
          && !s.path("currentRevision").asText().equals(previousRevision)
          && s.path("currentRevision").asText().equals(s.path("updateRevision").asText());
    });
  }

  /**
   * What the sets' workflow histories say of where work ran: the nodes whose workers completed
   * workflow tasks, and for each set how each pod and claim step ran: "local by node-a" (a local
   * activity in a workflow task node-a's worker completed), "refused by node-b" (asked of node-b's
   * worker, which is not the set's node), "ordinal-node-node-a by node-a" (on that task queue).
   */
  record Histories(Set<String> workflowTaskNodes, Map<String, Set<String>> podSteps) {
    static final Set<String> POD_STEPS = Set.of("CreateClaims", "CreatePod", "CreatePods", "DeletePod", "DeletePods",
        "UpdateClaims", "DeleteClaim");

    static Histories of(WorkflowClient client, String ns) {
      Set<String> nodes = new TreeSet<>();
      Map<String, Set<String>> steps = new HashMap<>();
      client.listExecutions("").forEach(execution -> {
        String id = execution.getExecution().getWorkflowId();
        String[] parts = id.split("/");
        if (parts.length < 3 || !parts[1].equals(ns)) {
          return;
        }
        Map<Long, HistoryEvent> scheduled = new HashMap<>();
        String taskBy = null;
        for (HistoryEvent event : client.fetchHistory(id, execution.getExecution().getRunId()).getEvents()) {
          Set<String> ofSet = steps.computeIfAbsent(parts[2], k -> new TreeSet<>());
          if (event.getEventType() == EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED) {
            taskBy = node(event.getWorkflowTaskCompletedEventAttributes().getIdentity());
            nodes.add(taskBy);
          } else if (event.getEventType() == EventType.EVENT_TYPE_MARKER_RECORDED) {
            var marker = event.getMarkerRecordedEventAttributes();
            var type = marker.getDetailsMap().get("type");
            if (type != null && POD_STEPS.contains(type.getPayloads(0).getData().toStringUtf8().replace("\"", ""))) {
              ofSet.add((marker.hasFailure() ? "refused by " : "local by ") + taskBy);
            }
          } else if (event.getEventType() == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED) {
            scheduled.put(event.getEventId(), event);
          } else if (event.getEventType() == EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED) {
            var attributes = scheduled.get(event.getActivityTaskStartedEventAttributes().getScheduledEventId())
                .getActivityTaskScheduledEventAttributes();
            if (POD_STEPS.contains(attributes.getActivityType().getName())) {
              ofSet.add(attributes.getTaskQueue().getName() + " by "
                  + node(event.getActivityTaskStartedEventAttributes().getIdentity()));
            }
          }
        }
      });
      return new Histories(nodes, steps);
    }

    /** A worker identity is {@code pid@node}. */
    private static String node(String identity) {
      return identity.substring(identity.indexOf('@') + 1);
    }
  }
}
