package io.ordinal.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Events as upstream's recorder and API server keep them: a repeat counts on the first
 * (count, lastTimestamp), many different messages of one reason are combined, and an event goes
 * its TTL after its last occurrence (here 30 s instead of an hour, checked every second).
 */
@E2eTest
class EventsIT {
  static final Duration TIMEOUT = Duration.ofSeconds(90);
  static OrdinalService service;
  static Api api;

  @BeforeAll
  static void start() throws Exception {
    service = new OrdinalService("events", Map.of("ORDINAL_EVENTS_TTL", "30s", "ORDINAL_EVENTS_EXPIRY_INTERVAL", "1s"));
    service.start();
    api = service.api();
  }

  @AfterAll
  static void stop() {
    if (service != null) {
      service.close();
    }
  }

  /** A pod that keeps failing: one RecreatingFailedPod event whose count grows, not one event per recreation. */
  @Test
  void aRepeatedEventCountsOnTheFirstWithItsLastTimestamp(@Namespace String ns) {
    api.createSet(ns, Manifests.web("web", 1, 0, Map.of("SIM_CRASH_AFTER_MS", "300")));
    JsonNode recreating = awaitEvent(ns, e -> e.path("reason").asText().equals("RecreatingFailedPod")
        && e.path("count").asInt() >= 3);
    assertEquals("Warning", recreating.path("type").asText());
    assertEquals("StatefulSet " + ns + "/web is recreating failed Pod web-0", recreating.path("message").asText());
    assertTrue(Instant.parse(recreating.path("lastTimestamp").asText())
        .isAfter(Instant.parse(recreating.path("firstTimestamp").asText())), recreating.toString());
    assertEquals(1, api.events(ns).stream().filter(e -> e.path("reason").asText().equals("RecreatingFailedPod")).count());
    // Each recreation is still a deletion and a creation of the pod.
    assertTrue(api.podOperations(ns).stream().filter(op -> op.equals("+web-0")).count() >= 3);
  }

  /** Twelve pods with claims: 24 SuccessfulCreate messages, the first nine as they are, the rest combined in one. */
  @Test
  void manyDifferentMessagesOfOneReasonAreCombined(@Namespace String ns) {
    JsonNode set = Manifests.web("web", 12, 0, Map.of());
    ((com.fasterxml.jackson.databind.node.ObjectNode) set.get("spec")).put("podManagementPolicy", "Parallel");
    api.createSet(ns, set);
    api.awaitConverged(ns, "web", 12, TIMEOUT);
    List<JsonNode> creates = api.events(ns).stream().filter(e -> e.path("reason").asText().equals("SuccessfulCreate")).toList();
    List<JsonNode> combined = creates.stream()
        .filter(e -> e.path("message").asText().startsWith("(combined from similar events): ")).toList();
    assertEquals(1, combined.size(), creates.toString());
    assertEquals(9, creates.size() - 1, creates.toString());
    assertEquals(24 - 9, combined.getFirst().path("count").asInt(), combined.toString());
  }

  /** An event goes its TTL after its last occurrence, and a watch of events sees it DELETED. */
  @Test
  void eventsExpireTheirTtlAfterTheirLastOccurrence(@Namespace String ns) throws Exception {
    api.createSet(ns, Manifests.web("web", 1, 0, Map.of()));
    api.awaitConverged(ns, "web", 1, TIMEOUT);
    List<JsonNode> recorded = api.events(ns);
    assertTrue(!recorded.isEmpty());
    List<String> deleted = new java.util.concurrent.CopyOnWriteArrayList<>();
    try (WatchStream watch = new WatchStream(api, Paths.core(ns, "events"), event -> {
      if (event.path("type").asText().equals("DELETED")) {
        deleted.add(event.at("/object/metadata/name").asText());
      }
    })) {
      api.await(Paths.core(ns, "events"), TIMEOUT, r -> r.json().path("items").isEmpty());
      long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
      while (deleted.size() < recorded.size() && System.nanoTime() < deadline) {
        Api.sleep(100);
      }
    }
    assertEquals(recorded.stream().map(e -> e.at("/metadata/name").asText()).sorted().toList(),
        deleted.stream().sorted().toList());
  }

  private static JsonNode awaitEvent(String ns, java.util.function.Predicate<JsonNode> matches) {
    long deadline = System.nanoTime() + TIMEOUT.toNanos();
    while (System.nanoTime() < deadline) {
      for (JsonNode event : api.events(ns)) {
        if (matches.test(event)) {
          return event;
        }
      }
      Api.sleep(200);
    }
    throw new AssertionError("no such event within " + TIMEOUT + ": " + api.events(ns));
  }
}
