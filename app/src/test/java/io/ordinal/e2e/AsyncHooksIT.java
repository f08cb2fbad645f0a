package io.ordinal.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpServer;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/**
 * Asynchronous membership hooks ({@code completionDeadlineSeconds}) end to end: a preDelete hook that
 * answers 202 (a decommission that takes its time) holds the member's pod until the member's
 * completion is reported through {@code POST .../rollout/complete}, through a pause and a kill -9 of
 * the service, without being called again; a newer spec ends the wait; a missed deadline fails the
 * hook as its policy says.
 */
@E2eTest
class AsyncHooksIT {
  static final Duration TIMEOUT = Duration.ofSeconds(120);
  static final String NS = "async-hooks";

  @Test
  void aDecommissionThatAnswersAcceptedHoldsItsPodUntilItsMemberReportsCompletionThroughAKill9() throws Exception {
    List<String> calls = new CopyOnWriteArrayList<>();
    HttpServer endpoint = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    endpoint.createContext("/leave", exchange -> {
      calls.add(new String(exchange.getRequestBody().readAllBytes()));
      exchange.sendResponseHeaders(202, -1); // accepted: the decommission runs on and reports back
      exchange.close();
    });
    endpoint.start();
    try (OrdinalService service = new OrdinalService("async-hooks", Map.of("ORDINAL_DRIVER", "sim"))) {
      service.start();
      Api api = service.api();
      ObjectNode set = Manifests.web("web", 3, 0, Map.of());
      ((ObjectNode) set.at("/metadata/annotations")).put("ordinal.io/member-hooks", hooks(endpoint, 600));
      api.createSet(NS, set);
      api.awaitConverged(NS, "web", 3, TIMEOUT);

      // web-2 leaves: its hook accepts, and the scale waits for its report with web-2 still there.
      api.patchSet(NS, "web", "{\"spec\":{\"replicas\":2}}");
      awaitUntil(() -> calls.size() == 1, "the preDelete hook of web-2 is called");
      assertTrue(calls.getFirst().contains("\"ORDINAL_MEMBER_POD\":\"web-2\""), calls.getFirst());
      awaitEvent(api, "MemberHookAccepted", "PreDelete hook of web-2 (ScaleDown) accepted");
      Api.sleep(2_000);
      assertEquals(200, api.get(Paths.pod(NS, "web-2")).code(), "web-2 stays while its decommission runs");
      // A pause is taken at once while the hook waits.
      assertEquals(200, api.post(Paths.set(NS, "web") + "/rollout/pause", null, null).code());
      assertEquals(200, api.post(Paths.set(NS, "web") + "/rollout/resume", null, null).code());

      // The service dies mid-wait; the wait survives in the database and the hook is not called again.
      service.kill9();
      service.start();
      Api.Reply completed = api.post(Paths.set(NS, "web") + "/rollout/complete", "application/json",
              "{\"member\":\"web-2\",\"message\":\"decommissioned, 12 GiB moved\"}");
      assertEquals(200, completed.code(), completed.body());
      assertEquals("PreDelete", completed.json().path("hook").asText());
      api.await(Paths.pod(NS, "web-2"), TIMEOUT, r -> r.code() == 404);
      api.awaitConverged(NS, "web", 2, TIMEOUT);
      assertEquals(1, calls.size(), "the hook was called once: " + calls);
      awaitEvent(api, "MemberHookSucceeded", "completed: decommissioned, 12 GiB moved");

      // A newer spec ends a wait: web-1's decommission is abandoned when replicas go back to 2.
      api.patchSet(NS, "web", "{\"spec\":{\"replicas\":1}}");
      awaitUntil(() -> calls.size() == 2, "the preDelete hook of web-1 is called");
      awaitEvent(api, "MemberHookAccepted", "PreDelete hook of web-1 (ScaleDown) accepted");
      api.patchSet(NS, "web", "{\"spec\":{\"replicas\":2}}");
      api.awaitConverged(NS, "web", 2, TIMEOUT);
      awaitUntil(() -> api.post(Paths.set(NS, "web") + "/rollout/complete", "application/json",
          "{\"member\":\"web-1\"}").code() == 404, "web-1's hook no longer waits");
      assertEquals(200, api.get(Paths.pod(NS, "web-1")).code());

      // A deadline missed is a failed attempt: after the second, membership changes are held.
      ObjectNode shortDeadline = io.ordinal.store.KubeJson.JSON.createObjectNode();
      shortDeadline.putObject("metadata").putObject("annotations").put("ordinal.io/member-hooks", hooks(endpoint, 2));
      assertEquals(200, api.patch(Paths.set(NS, "web"), "application/merge-patch+json", shortDeadline.toString()).code());
      api.patchSet(NS, "web", "{\"spec\":{\"replicas\":1}}");
      // The hold is two writes (the annotation, then the condition with the cause): wait for both.
      JsonNode held = api.await(Paths.set(NS, "web"), TIMEOUT,
          r -> r.json().at("/metadata/annotations/ordinal.io~1held-hook").isTextual()
              && condition(r.json(), "MembershipHook").path("status").asText().equals("False"));
      assertEquals("PreDelete hook of web-1 failed", held.at("/metadata/annotations/ordinal.io~1held-hook").asText());
      assertTrue(condition(held, "MembershipHook").path("message").asText().contains("reported no completion"),
          held.toString());
      assertEquals(200, api.get(Paths.pod(NS, "web-1")).code());
      Api.Reply invalid = api.post(Paths.set(NS, "web") + "/rollout/complete", "application/json", "{}");
      assertEquals(422, invalid.code(), invalid.body());
      assertEquals("member", invalid.json().at("/details/causes/0/field").asText());
    } finally {
      endpoint.stop(0);
    }
  }

  /** A preDelete HTTP hook on {@code endpoint} that may finish asynchronously within {@code deadline} seconds. */
  static String hooks(HttpServer endpoint, int deadline) {
    return "preDelete:\n  http: {url: 'http://127.0.0.1:" + endpoint.getAddress().getPort() + "/leave'}\n"
        + "  maxAttempts: 2\n  backoffSeconds: 1\n  completionDeadlineSeconds: " + deadline + "\n";
  }

  static JsonNode condition(JsonNode set, String type) {
    for (JsonNode c : set.at("/status/conditions")) {
      if (c.path("type").asText().equals(type)) {
        return c;
      }
    }
    return com.fasterxml.jackson.databind.node.MissingNode.getInstance();
  }

  static void awaitEvent(Api api, String reason, String text) {
    awaitUntil(() -> api.events(NS).stream().anyMatch(e -> e.path("reason").asText().equals(reason)
        && e.path("message").asText().contains(text)), reason + ": " + text);
  }

  static void awaitUntil(BooleanSupplier condition, String what) {
    Instant deadline = Instant.now().plus(TIMEOUT);
    while (!condition.getAsBoolean()) {
      assertTrue(Instant.now().isBefore(deadline), "timed out: " + what);
      Api.sleep(200);
    }
  }
}
