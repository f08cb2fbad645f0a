package io.ordinal.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** Canary, OnDelete, undo of a stuck rollout, auto-rollback, roll forward, restart: over HTTP, sim driver. */
@E2eTest
class RolloutControlIT {
  static final Duration TIMEOUT = Duration.ofSeconds(90);
  static Api api;

  @Test
  void canaryWithPartitionTwoThenOneThenZero(@Namespace String ns) {
    ObjectNode set = Manifests.web("web", 3, 0, Map.of());
    ((ObjectNode) set.at("/spec")).putObject("updateStrategy").put("type", "RollingUpdate")
        .putObject("rollingUpdate").put("partition", 2);
    api.createSet(ns, set);
    String old = api.awaitConverged(ns, "web", 3, TIMEOUT).at("/status/currentRevision").asText();
    api.setImage(ns, "web", "k8s.gcr.io/nginx-slim:0.9");

    String canary = awaitRevisions(ns, Map.of(0, old, 1, old, 2, "new"));
    JsonNode rollout = api.await(Paths.set(ns, "web") + "/rollout/status", TIMEOUT,
        r -> r.json().path("phase").asText().equals("Complete"));
    assertEquals("partitioned roll out complete: 1 new pods have been updated...", rollout.get("message").asText());
    assertEquals(old, api.set(ns, "web").at("/status/currentRevision").asText(), "currentRevision waits for the whole set");

    api.patchSet(ns, "web", "{\"spec\":{\"updateStrategy\":{\"rollingUpdate\":{\"partition\":1}}}}");
    awaitRevisions(ns, Map.of(0, old, 1, canary, 2, canary));
    api.patchSet(ns, "web", "{\"spec\":{\"updateStrategy\":{\"rollingUpdate\":{\"partition\":0}}}}");
    JsonNode done = api.awaitRolledOut(ns, 3, old);
    assertEquals(canary, done.at("/status/currentRevision").asText());
    assertEquals(List.of("-web-2", "+web-2", "-web-1", "+web-1", "-web-0", "+web-0"), api.podOperations(ns).subList(3, 9));
  }

  @Test
  void onDeleteReplacesOnlyThePodsThatAreDeleted(@Namespace String ns) {
    ObjectNode set = Manifests.web("web", 3, 0, Map.of());
    ((ObjectNode) set.at("/spec")).putObject("updateStrategy").put("type", "OnDelete");
    api.createSet(ns, set);
    String old = api.awaitConverged(ns, "web", 3, TIMEOUT).at("/status/currentRevision").asText();
    api.setImage(ns, "web", "k8s.gcr.io/nginx-slim:0.9");
    String update = awaitObserved(ns).at("/status/updateRevision").asText();
    Api.sleep(1_500); // long enough for a RollingUpdate to have replaced web-2
    assertEquals(3, api.podOperations(ns).size(), "nothing is replaced automatically");
    assertEquals(200, api.delete(Paths.pod(ns, "web-1")).code());
    awaitRevisions(ns, Map.of(0, old, 1, update, 2, old));
    assertEquals(List.of("-web-1", "+web-1"), api.podOperations(ns).subList(3, 5));
  }

  @Test
  void stuckRolloutFailsAtItsDeadlineAndUndoReplacesTheBrokenPodWithoutManualDeletion(@Namespace String ns) {
    ObjectNode set = Manifests.web("web", 3, 0, Map.of());
    ((ObjectNode) set.at("/metadata/annotations")).put("ordinal.io/progress-deadline-seconds", "2")
        .put("kubernetes.io/change-cause", "first release");
    api.createSet(ns, set);
    String good = api.awaitConverged(ns, "web", 3, TIMEOUT).at("/status/currentRevision").asText();
    api.patchSet(ns, "web", """
        {"metadata":{"annotations":{"kubernetes.io/change-cause":"broken release"}},
         "spec":{"template":{"spec":{"containers":[{"name":"nginx","image":"k8s.gcr.io/nginx-slim:0.8",
           "env":[{"name":"SIM_NEVER_READY","value":"true"}]}]}}}}""");

    JsonNode failed = api.await(Paths.set(ns, "web") + "/rollout/status", TIMEOUT,
        r -> r.json().path("phase").asText().equals("Failed"));
    assertTrue(failed.get("message").asText().startsWith("ProgressDeadlineExceeded: rollout from revision " + good),
        failed.toString());
    assertEquals(List.of("-web-2", "+web-2"), api.podOperations(ns).subList(3, 5), "stuck on web-2; web-1 untouched");
    JsonNode condition = api.set(ns, "web").at("/status/conditions/0");
    assertEquals("Progressing", condition.get("type").asText());
    assertEquals("False", condition.get("status").asText());
    assertEquals("ProgressDeadlineExceeded", condition.get("reason").asText());
    assertTrue(api.events(ns).stream().anyMatch(e -> e.path("reason").asText().equals("ProgressDeadlineExceeded")
        && e.path("type").asText().equals("Warning")));

    JsonNode history = api.get(Paths.set(ns, "web") + "/rollout/history").json().get("revisions");
    assertEquals(2, history.size());
    assertEquals("first release", history.get(0).get("changeCause").asText());
    assertEquals("broken release", history.get(1).get("changeCause").asText());

    Api.Reply undo = api.post(Paths.set(ns, "web") + "/rollout/undo", null, null);
    assertEquals(200, undo.code(), undo.body());
    assertEquals("first release", undo.json().at("/metadata/annotations/kubernetes.io~1change-cause").asText());
    JsonNode back = api.awaitConverged(ns, "web", 3, TIMEOUT);
    assertEquals(good, back.at("/status/currentRevision").asText());
    assertEquals(Set.of(good), revisionsOfPods(ns));
    assertEquals("Complete", rolloutStatus(ns).get("phase").asText());
    assertEquals("True", api.set(ns, "web").at("/status/conditions/0/status").asText());
    // The broken web-2 was replaced by the controller; nothing was deleted through the API.
    assertTrue(api.events(ns).stream().noneMatch(e -> e.path("message").asText().contains("deleted through the API")));
    history = api.get(Paths.set(ns, "web") + "/rollout/history").json().get("revisions");
    assertEquals(List.of(2L, 3L), List.of(history.get(0).get("revision").asLong(), history.get(1).get("revision").asLong()));
    assertEquals(good, history.get(1).get("name").asText(), "the good revision came back as number 3");
  }

  @Test
  void rolloutPastItsDeadlineRollsItselfBackWhenAutoRollbackIsSet(@Namespace String ns) {
    ObjectNode set = Manifests.web("web", 3, 0, Map.of());
    ((ObjectNode) set.at("/metadata/annotations")).put("ordinal.io/progress-deadline-seconds", "2")
        .put("ordinal.io/auto-rollback", "true");
    api.createSet(ns, set);
    String good = api.awaitConverged(ns, "web", 3, TIMEOUT).at("/status/currentRevision").asText();
    assertEquals(200, api.patch(Paths.set(ns, "web"), "application/json-patch+json",
        "[{\"op\":\"add\",\"path\":\"/spec/template/spec/containers/0/env\",\"value\":[{\"name\":\"SIM_NEVER_READY\",\"value\":\"true\"}]}]").code());
    awaitEvent(ns, "RollingBack");
    JsonNode back = api.awaitConverged(ns, "web", 3, TIMEOUT);
    assertEquals(good, back.at("/status/currentRevision").asText());
    assertEquals(Set.of(good), revisionsOfPods(ns));
    assertFalse(back.at("/spec/template/spec/containers/0/env").toString().contains("SIM_NEVER_READY"),
        "the template itself was reverted");
    List<String> reasons = api.events(ns).stream().map(e -> e.path("reason").asText())
        .filter(r -> r.equals("ProgressDeadlineExceeded") || r.equals("RollingBack")).toList();
    assertEquals(List.of("ProgressDeadlineExceeded", "RollingBack"), reasons);
    assertEquals(List.of("-web-2", "+web-2", "-web-2", "+web-2"), api.podOperations(ns).subList(3, 7));
  }

  @Test
  void twoUpdatesInQuickSuccessionRollForwardToTheLast(@Namespace String ns) throws Exception {
    api.createSet(ns, Manifests.web("web", 3, 0, Map.of("SIM_READY_DELAY_MS", "300")));
    String first = api.awaitConverged(ns, "web", 3, TIMEOUT).at("/status/currentRevision").asText();
    api.setImage(ns, "web", "k8s.gcr.io/nginx-slim:0.9");
    // The first rollout has replaced a pod: the status names the new revision and counts a pod on it
    // (before the controller observes the template, the old status counts every pod as updated).
    api.await(Paths.set(ns, "web") + "/status", TIMEOUT, r -> !first.equals(r.json().at("/status/updateRevision").asText())
        && r.json().at("/status/updatedReplicas").asInt() >= 1);
    api.setImage(ns, "web", "k8s.gcr.io/nginx-slim:1.0");
    JsonNode done = api.awaitRolledOut(ns, 3, first);
    String last = done.at("/status/currentRevision").asText();
    assertEquals(Set.of(last), revisionsOfPods(ns));
    assertEquals("k8s.gcr.io/nginx-slim:1.0", api.pod(ns, "web-0").at("/spec/containers/0/image").asText());
    // Two rollout workflows: the first gave way to the second, which went from the first revision to the last.
    Map<String, String> outcomes = rolloutOutcomes(ns);
    assertEquals(2, outcomes.size(), outcomes.toString());
    assertTrue(outcomes.values().stream().anyMatch(o -> o.startsWith("superseded")), outcomes.toString());
    assertTrue(outcomes.values().stream().anyMatch(o -> o.startsWith("converged") && o.endsWith(last)), outcomes.toString());
  }

  @Test
  void restartReplacesEveryPodHighestOrdinalFirst(@Namespace String ns) {
    api.createSet(ns, Manifests.web("web", 3, 0, Map.of()));
    String before = api.awaitConverged(ns, "web", 3, TIMEOUT).at("/status/currentRevision").asText();
    Api.Reply restart = api.post(Paths.set(ns, "web") + "/rollout/restart", null, null);
    assertEquals(200, restart.code(), restart.body());
    assertFalse(restart.json().at("/spec/template/metadata/annotations/kubectl.kubernetes.io~1restartedAt").asText().isEmpty());
    api.awaitRolledOut(ns, 3, before);
    assertEquals(List.of("-web-2", "+web-2", "-web-1", "+web-1", "-web-0", "+web-0"), api.podOperations(ns).subList(3, 9));
  }

  @Test
  void declarativePauseInTheManifestHoldsTheRollout(@Namespace String ns) {
    api.createSet(ns, Manifests.web("web", 2, 0, Map.of()));
    String old = api.awaitConverged(ns, "web", 2, TIMEOUT).at("/status/currentRevision").asText();
    api.patchSet(ns, "web", """
        {"spec":{"updateStrategy":{"rollingUpdate":{"paused":true}},
                 "template":{"metadata":{"annotations":{"release":"2"}}}}}""");
    awaitObserved(ns);
    Api.sleep(1_000);
    assertEquals(Set.of(old), revisionsOfPods(ns));
    assertEquals("Paused", rolloutStatus(ns).get("phase").asText());
    assertEquals(true, api.set(ns, "web").at("/spec/updateStrategy/rollingUpdate/paused").asBoolean());
    api.patchSet(ns, "web", "{\"spec\":{\"updateStrategy\":{\"rollingUpdate\":{\"paused\":false}}}}");
    api.awaitRolledOut(ns, 2, old);
  }

  @Test
  void rolloutControlRejectsBadRequestsWithClearMessages(@Namespace String ns) {
    api.createSet(ns, Manifests.web("web", 1, 0, Map.of()));
    api.awaitConverged(ns, "web", 1, TIMEOUT);
    String base = Paths.set(ns, "web") + "/rollout/";

    Api.Reply nothing = api.post(base + "undo", null, null);
    assertEquals(400, nothing.code());
    assertTrue(nothing.json().get("message").asText().contains("nothing to undo"), nothing.body());

    Api.Reply missing = api.post(base + "undo", "application/json", "{\"toRevision\": 7}");
    assertEquals(422, missing.code());
    assertEquals("toRevision", missing.json().at("/details/causes/0/field").asText());

    Api.Reply negative = api.post(base + "undo", "application/json", "{\"toRevision\": -1}");
    assertEquals(422, negative.code());

    Api.Reply malformed = api.post(base + "undo", "application/json", "{\"toRevision\": \"two\"}");
    assertEquals(400, malformed.code());
    assertTrue(malformed.json().get("message").asText().contains("toRevision"), malformed.body());

    Api.Reply badPaused = api.patch(Paths.set(ns, "web"), "application/merge-patch+json",
        "{\"spec\":{\"updateStrategy\":{\"rollingUpdate\":{\"paused\":\"yes\"}}}}");
    assertEquals(422, badPaused.code());
    assertEquals("spec.updateStrategy.rollingUpdate.paused", badPaused.json().at("/details/causes/0/field").asText());

    Api.Reply badDeadline = api.patch(Paths.set(ns, "web"), "application/merge-patch+json",
        "{\"metadata\":{\"annotations\":{\"ordinal.io/progress-deadline-seconds\":\"soon\"}}}");
    assertEquals(422, badDeadline.code());
    assertEquals("metadata.annotations[ordinal.io/progress-deadline-seconds]",
        badDeadline.json().at("/details/causes/0/field").asText());

    assertEquals(404, api.post(Paths.set(ns, "nope") + "/rollout/pause", null, null).code());
    assertEquals(404, api.get(Paths.set(ns, "nope") + "/rollout/history").code());

    api.patchSet(ns, "web", "{\"spec\":{\"updateStrategy\":{\"type\":\"OnDelete\",\"rollingUpdate\":null}}}");
    Api.Reply onDelete = api.post(base + "pause", null, null);
    assertEquals(400, onDelete.code());
    assertTrue(onDelete.json().get("message").asText().contains("OnDelete"), onDelete.body());
  }

  static JsonNode rolloutStatus(String ns) {
    return api.get(Paths.set(ns, "web") + "/rollout/status").json();
  }

  static JsonNode awaitObserved(String ns) {
    return api.await(Paths.set(ns, "web") + "/status", TIMEOUT, r -> r.json().at("/status/observedGeneration").asLong()
        == r.json().at("/metadata/generation").asLong());
  }

  static void awaitEvent(String ns, String reason) {
    api.await(Paths.core(ns, "events"), TIMEOUT, r -> r.body().contains("\"" + reason + "\""));
  }

  static Set<String> revisionsOfPods(String ns) {
    return api.pods(ns, "app=web").stream().map(p -> p.at("/metadata/labels/controller-revision-hash").asText())
        .collect(Collectors.toSet());
  }

  /**
   * Waits until the pods run the given revisions by ordinal, "new" meaning the update revision
   * (returned), each pod Ready, and nothing terminating.
   */
  static String awaitRevisions(String ns, Map<Integer, String> wanted) {
    awaitObserved(ns); // so that the update revision read below is the newest
    String[] update = new String[1];
    String[] last = new String[1];
    try {
      api.await(Paths.set(ns, "web") + "/status", TIMEOUT, r -> {
        update[0] = r.json().at("/status/updateRevision").asText();
        List<JsonNode> pods = api.pods(ns, "app=web");
        last[0] = pods.toString();
        if (pods.size() != wanted.size()) {
          return false;
        }
        for (JsonNode pod : pods) {
          int ordinal = Integer.parseInt(pod.at("/metadata/name").asText().substring(4));
          String expected = wanted.get(ordinal).equals("new") ? update[0] : wanted.get(ordinal);
          boolean ready = false;
          for (JsonNode condition : pod.at("/status/conditions")) {
            ready |= condition.path("type").asText().equals("Ready") && condition.path("status").asText().equals("True");
          }
          ready &= pod.at("/metadata/deletionTimestamp").isMissingNode();
          if (!expected.equals(pod.at("/metadata/labels/controller-revision-hash").asText()) || !ready
              || !pod.at("/status/phase").asText().equals("Running")) {
            return false;
          }
        }
        return true;
      });
    } catch (AssertionError e) {
      throw new AssertionError(e.getMessage() + "\npods: " + last[0], e);
    }
    return update[0];
  }

  /** Outcome of each rollout workflow of {@code ns}/web, by workflow id, from Temporal's visibility. */
  static Map<String, String> rolloutOutcomes(String ns) throws Exception {
    return OrdinalService.shared().withTemporal(client -> {
      Map<String, String> outcomes = new TreeMap<>();
      for (int i = 0; i < 50 && outcomes.size() < 2; i++) {
        client.listExecutions("OrdinalNamespace = '" + ns + "' AND OrdinalOperation = 'rollout' AND ExecutionStatus = 'Completed'")
            .forEach(e -> outcomes.put(e.getExecution().getWorkflowId(),
                client.newUntypedWorkflowStub(e.getExecution().getWorkflowId()).getResult(String.class)));
        Api.sleep(200);
      }
      return outcomes;
    });
  }
}
