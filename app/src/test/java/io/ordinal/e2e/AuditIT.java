package io.ordinal.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.temporal.api.common.v1.Payloads;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.client.WorkflowClient;
import io.temporal.common.converter.DataConverter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The audit log (one audit.k8s.io/v1 event per write or refusal, matched to the response by its
 * Audit-Id) and who asked for a change, as the workflow history records it.
 */
@E2eTest
class AuditIT {
  static final Duration TIMEOUT = Duration.ofSeconds(90);
  static OrdinalService service;
  static Api api;

  @Test
  void eachWriteAndEachRefusalIsOneEventWithItsUserVerbObjectAndCode(@Namespace String ns) throws IOException {
    Api.Reply issued = api.post("/apis/auth.ordinal.io/v1/tokens", "application/json",
        "{\"spec\":{\"user\":\"alice-" + ns + "\",\"groups\":[\"dev\"]}}");
    assertEquals(201, issued.code(), issued.body());
    String token = issued.json().at("/status/token").asText();
    Api alice = api.as(token);
    String user = "alice-" + ns;
    api.bind(user, "edit", ns);
    String set = Paths.set(ns, "web");

    JsonNode tokenEvent = onlyEvent(issued);
    assertEquals(List.of("create", "tokens", "auth.ordinal.io", "201"), List.of(tokenEvent.path("verb").asText(),
        tokenEvent.at("/objectRef/resource").asText(), tokenEvent.at("/objectRef/apiGroup").asText(),
        tokenEvent.at("/responseStatus/code").asText()));

    Api.Reply created = alice.post(Paths.sets(ns), "application/json", Manifests.json(Manifests.web("web", 2, 0, Map.of())));
    assertEquals(201, created.code(), created.body());
    JsonNode create = assertEvent(created, user, "create", ns, "", "", 201);
    assertEquals("statefulset/" + ns + "/web", create.at("/annotations/ordinal.io~1workflow").asText());
    assertEquals("specChanged", create.at("/annotations/ordinal.io~1workflow-signal").asText());
    assertEquals("Metadata", create.path("level").asText());
    assertEquals("ResponseComplete", create.path("stage").asText());
    assertEquals("apps", create.at("/objectRef/apiGroup").asText());
    assertEquals("v1", create.at("/objectRef/apiVersion").asText());
    assertEquals("127.0.0.1", create.at("/sourceIPs/0").asText());
    assertTrue(create.at("/user/groups").toString().contains("system:authenticated"), create.toString());
    assertTrue(create.path("requestReceivedTimestamp").asText().matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{6}Z"));
    assertTrue(create.path("stageTimestamp").asText().compareTo(create.path("requestReceivedTimestamp").asText()) >= 0);

    Api.Reply scaled = alice.patch(set + "/scale", "application/merge-patch+json", "{\"spec\":{\"replicas\":3}}");
    assertEquals(200, scaled.code(), scaled.body());
    assertEvent(scaled, user, "patch", ns, "web", "scale", 200);

    Api.Reply patched = alice.patch(set, "application/merge-patch+json", "{\"metadata\":{\"annotations\":{\"a\":\"b\"}}}");
    assertEquals(200, patched.code(), patched.body());
    assertEvent(patched, user, "patch", ns, "web", "", 200);

    Api.Reply paused = alice.post(set + "/rollout/pause", null, null);
    assertEquals(200, paused.code(), paused.body());
    JsonNode pause = assertEvent(paused, user, "pause", ns, "web", "rollout", 200);
    assertTrue(pause.path("requestURI").asText().endsWith("/statefulsets/web/rollout/pause"), pause.toString());
    assertTrue(pause.at("/annotations/ordinal.io~1workflow-signal").asText().contains("specChanged"), pause.toString());

    Api.Reply forbidden = alice.post("/apis/auth.ordinal.io/v1/tokens", "application/json", "{\"spec\":{\"user\":\"eve\"}}");
    assertEquals(403, forbidden.code(), forbidden.body());
    JsonNode refusal = onlyEvent(forbidden);
    assertEquals(user, refusal.at("/user/username").asText());
    assertEquals("forbid", refusal.at("/annotations/authorization.k8s.io~1decision").asText());
    assertEquals("Forbidden", refusal.at("/responseStatus/reason").asText());
    assertEquals("Failure", refusal.at("/responseStatus/status").asText());
    assertEquals(forbidden.json().path("message").asText(), refusal.at("/responseStatus/message").asText());

    Api.Reply unauthorized = api.as("nonsense").post(Paths.sets(ns), "application/json", "{}");
    assertEquals(401, unauthorized.code());
    JsonNode unauthenticated = onlyEvent(unauthorized);
    assertEquals("{}", unauthenticated.path("user").toString());
    assertEquals("Unauthorized", unauthenticated.at("/responseStatus/reason").asText());

    Api.Reply deleted = alice.delete(set);
    assertEquals(200, deleted.code(), deleted.body());
    assertEvent(deleted, user, "delete", ns, "web", "", 200);

    // A read has an Audit-Id too, but no event; nor has a failed write that is not a refusal.
    Api.Reply read = alice.get(Paths.sets(ns));
    assertTrue(read.headers().firstValue("Audit-Id").isPresent());
    Api.Reply missing = alice.delete(Paths.set(ns, "nope"));
    assertEquals(404, missing.code());
    assertEquals(1, AuditTrail.eventsOf(service.dataDir, missing.headers().firstValue("Audit-Id").orElseThrow()).size());
    assertTrue(AuditTrail.events(service.dataDir).stream()
        .noneMatch(e -> e.path("auditID").asText().equals(read.headers().firstValue("Audit-Id").orElseThrow())));

    // The log is private, and no token is anywhere in it or in the service's own log.
    Path log = service.dataDir.resolve("audit").resolve("audit.log");
    assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(log)));
    assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(log.getParent())));
    List<Path> logs = logFiles(service.dataDir);
    assertTrue(logs.contains(log) && logs.contains(service.dataDir.resolve("service.log")), logs.toString());
    for (Path file : logs) {
      String text = Files.readString(file, java.nio.charset.StandardCharsets.ISO_8859_1);
      assertFalse(text.contains(token), "the created token is in " + file);
      assertFalse(text.contains(api.token()), "the admin token is in " + file);
      assertFalse(text.contains(token.substring(token.length() - 16)), "part of the created token is in " + file);
    }
    AuditTrail.assertComplete(service.dataDir, AuditTrail.successfulWritesSentTo(ns), AuditTrail.inNamespace(ns));
  }

  @Test
  void whoPausedAndResumedARolloutIsInTheWorkflowHistory(@Namespace String ns) {
    String user = "carol-" + ns;
    Api carol = api.as(api.post("/apis/auth.ordinal.io/v1/tokens", "application/json",
        "{\"spec\":{\"user\":\"" + user + "\"}}").json().at("/status/token").asText());
    api.bind(user, "edit", ns);
    String set = Paths.set(ns, "web");
    assertEquals(201, carol.post(Paths.sets(ns), "application/json",
        Manifests.json(Manifests.web("web", 3, 0, Map.of("SIM_READY_DELAY_MS", "1500")))).code());
    String first = api.awaitConverged(ns, "web", 3, TIMEOUT).at("/status/currentRevision").asText();
    carol.setImage(ns, "web", "k8s.gcr.io/nginx-slim:0.9");
    // The rollout has started: one pod is on the new revision (and the rest take 1.5 s each).
    api.await(set + "/status", TIMEOUT, r -> r.json().at("/status/updatedReplicas").asInt() >= 1
        && !r.json().at("/status/updateRevision").asText().equals(r.json().at("/status/currentRevision").asText()));
    Api.Reply paused = carol.post(set + "/rollout/pause", null, null);
    assertEquals(200, paused.code(), paused.body());
    assertEquals(200, carol.post(set + "/rollout/resume", null, null).code());
    api.awaitRolledOut(ns, 3, first);

    String controller = "statefulset/" + ns + "/web";
    List<String> signalledBy = service.withTemporal(client -> specChanges(client, controller)).stream()
        .map(SpecChange::requestedBy).filter(Objects::nonNull).toList(); // null: the service's own resync
    // create, image, pause, resume: four spec writes by carol, each signal saying so.
    assertEquals(List.of(user, user, user, user), signalledBy);

    // The rollout carol's image change started names her in its memo, and took her pause as an update.
    JsonNode pause = onlyEvent(paused);
    String rollout = Stream.of(pause.at("/annotations/ordinal.io~1workflow").asText().split(","))
        .filter(id -> id.startsWith(controller + "/rollout-")).findFirst()
        .orElseThrow(() -> new AssertionError("the pause reached no rollout: " + pause));
    assertEquals("specChanged,pause", pause.at("/annotations/ordinal.io~1workflow-signal").asText());
    service.withTemporal(client -> {
      DataConverter converter = client.getOptions().getDataConverter();
      var memo = client.fetchHistory(rollout).getEvents().get(0).getWorkflowExecutionStartedEventAttributes().getMemo();
      assertEquals(user, converter.fromPayload(memo.getFieldsOrThrow("requestedBy"), String.class, String.class));
      List<String> pausedBy = client.fetchHistory(rollout).getEvents().stream()
          .filter(e -> e.getEventType() == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED)
          .map(e -> e.getWorkflowExecutionUpdateAcceptedEventAttributes().getAcceptedRequest().getInput())
          .filter(input -> input.getName().equals("pause"))
          .map(input -> converter.fromPayloads(0, Optional.of(input.getArgs()), String.class, String.class))
          .toList();
      assertEquals(List.of(user), pausedBy);
      return null;
    });
  }

  /** A specChanged signal in a controller's history: the generation and who wrote it (null: the service itself). */
  record SpecChange(long generation, String requestedBy) {}

  static List<SpecChange> specChanges(WorkflowClient client, String controllerWorkflowId) {
    DataConverter converter = client.getOptions().getDataConverter();
    List<SpecChange> changes = new ArrayList<>();
    for (HistoryEvent event : client.fetchHistory(controllerWorkflowId).getEvents()) {
      if (event.getEventType() == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED
          && event.getWorkflowExecutionSignaledEventAttributes().getSignalName().equals("specChanged")) {
        Payloads input = event.getWorkflowExecutionSignaledEventAttributes().getInput();
        changes.add(new SpecChange(converter.fromPayloads(0, Optional.of(input), Long.class, Long.class),
            converter.fromPayloads(1, Optional.of(input), String.class, String.class)));
      }
    }
    return changes;
  }

  /** The one event of the reply's Audit-Id, checked against who sent what. */
  static JsonNode assertEvent(Api.Reply reply, String user, String verb, String ns, String name, String subresource,
      int code) {
    JsonNode event = onlyEvent(reply);
    assertEquals(user, event.at("/user/username").asText(), event.toString());
    assertEquals(verb, event.path("verb").asText(), event.toString());
    assertEquals("statefulsets", event.at("/objectRef/resource").asText(), event.toString());
    assertEquals(ns, event.at("/objectRef/namespace").asText(), event.toString());
    assertEquals(name, event.at("/objectRef/name").asText(), event.toString());
    assertEquals(subresource, event.at("/objectRef/subresource").asText(), event.toString());
    assertEquals(code, event.at("/responseStatus/code").asInt(), event.toString());
    assertEquals("allow", event.at("/annotations/authorization.k8s.io~1decision").asText(), event.toString());
    return event;
  }

  static JsonNode onlyEvent(Api.Reply reply) {
    String id = reply.headers().firstValue("Audit-Id").orElseThrow(() -> new AssertionError("no Audit-Id: " + reply));
    List<JsonNode> events = AuditTrail.eventsOf(service.dataDir, id);
    assertEquals(1, events.size(), "events of " + id + ": " + events);
    return events.get(0);
  }

  /** The service's log files: its own (stdout), the audit log, and whatever else writes a *.log under the data dir. */
  static List<Path> logFiles(Path dataDir) throws IOException {
    try (Stream<Path> files = Files.walk(dataDir)) {
      return files.filter(Files::isRegularFile).filter(f -> f.getFileName().toString().contains(".log")
          || f.getFileName().toString().endsWith(".out")).toList();
    }
  }
}
