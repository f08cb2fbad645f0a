package io.ordinal.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import io.ordinal.store.KubeJson;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The service's log (text by default, JSON lines with ORDINAL_LOG_FORMAT=json) in its data directory,
 * each line with the set, pod, operation and workflow ids of what it is about; and the health checks
 * of PostgreSQL and Temporal answering DOWN within their timeout when either hangs.
 */
@E2eTest
class LogsAndHealthIT {
  static final Duration TIMEOUT = Duration.ofSeconds(90);
  /** The suite's shared service, which logs text. */
  static OrdinalService service;
  static Api api;
  private static OrdinalService json;

  @BeforeAll
  static void startJsonLoggingService() throws Exception {
    json = new OrdinalService("json-logs", Map.of("ORDINAL_LOG_FORMAT", "json"));
    json.start();
  }

  @AfterAll
  static void stopJsonLoggingService() {
    if (json != null) {
      json.close();
    }
  }

  @Test
  void jsonLogLinesParseAndCarryTheSetPodOperationAndWorkflowIds() throws Exception {
    Api jsonApi = json.api();
    jsonApi.createSet("logs", Manifests.web("web", 2, 0, Map.of()));
    jsonApi.awaitConverged("logs", "web", 2, TIMEOUT);
    Path file = json.dataDir.resolve("ordinal.log");
    JsonNode ended = awaitLine(file, line -> line.path("formattedMessage").asText().startsWith("scale of logs/web ended"));
    assertEquals("statefulset/logs/web", ended.at("/mdc/WorkflowId").asText());
    assertEquals("logs/web", ended.at("/mdc/set").asText());
    assertFalse(ended.at("/mdc/RunId").asText().isEmpty(), ended.toString());
    assertEquals("INFO", ended.path("level").asText());
    assertTrue(ended.path("timestamp").asLong() > 0, ended.toString());
    assertTrue(ended.path("loggerName").asText().startsWith("io.ordinal."), ended.toString());

    JsonNode created = awaitLine(file, line -> line.path("formattedMessage").asText().contains("create Pod web-1 "));
    assertEquals("logs/web", created.at("/mdc/set").asText());
    assertEquals("web-1", created.at("/mdc/pod").asText());
    assertEquals("scale", created.at("/mdc/operation").asText());
    assertEquals("CreatePod", created.at("/mdc/ActivityType").asText());
    assertTrue(created.at("/mdc/WorkflowId").asText().startsWith("statefulset/logs/web/scale-"), created.toString());
  }

  @Test
  void textLogIsKeptInTheDataDirectoryWithDatesAndContext(@Namespace String ns) throws Exception {
    api.createSet(ns, Manifests.web("web", 1, 0, Map.of()));
    api.awaitConverged(ns, "web", 1, TIMEOUT);
    Path file = service.dataDir.resolve("ordinal.log");
    Instant deadline = Instant.now().plus(TIMEOUT);
    String line;
    while ((line = lines(file).stream().filter(l -> l.contains("create Pod web-0 ") && l.contains("set=" + ns + "/web"))
        .findFirst().orElse(null)) == null) {
      assertTrue(Instant.now().isBefore(deadline), "no line about web-0's creation in " + file);
      Api.sleep(200);
    }
    assertTrue(line.matches("^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}(Z|[+-]\\d\\d:\\d\\d) INFO .*"), line);
    assertTrue(line.contains("pod=web-0") && line.contains("operation=scale") && line.contains("WorkflowId=statefulset/" + ns + "/web/scale-"),
        line);
  }

  @Test
  void healthAnswersDownWithinItsTimeoutWhilePostgresAndTemporalHang() throws Exception {
    Api jsonApi = json.api();
    assertEquals(200, jsonApi.get("/health").code());
    List<ProcessHandle> postgres = json.postgres().map(p -> Stream.concat(Stream.of(p), p.descendants()).toList())
        .orElseThrow();
    assertDownWithin(jsonApi, "jdbc", postgres);
    ProcessHandle temporal = OrdinalService.fromPidFile(json.dataDir.resolve("temporal/temporal.pid")).orElseThrow();
    assertDownWithin(jsonApi, "temporal", List.of(temporal));
    jsonApi.await("/health", TIMEOUT, reply -> reply.code() == 200);
  }

  /** Stops {@code processes} (SIGSTOP: they hang, holding their connections) and expects {@code check} DOWN quickly. */
  private static void assertDownWithin(Api api, String check, List<ProcessHandle> processes) throws Exception {
    signal("STOP", processes);
    try {
      Instant start = Instant.now();
      Api.Reply health = api.get("/health");
      Duration took = Duration.between(start, Instant.now());
      assertEquals(503, health.code(), health.body());
      assertEquals("DOWN", health.json().at("/details/" + check + "/status").asText(), health.body());
      // The check gives up after 3 s; the API's own 30 s client timeout would be the failure otherwise.
      assertTrue(took.compareTo(Duration.ofSeconds(10)) < 0, check + " took " + took);
    } finally {
      signal("CONT", processes);
    }
  }

  private static void signal(String signal, List<ProcessHandle> processes) throws Exception {
    List<String> command = new ArrayList<>(List.of("kill", "-" + signal));
    processes.forEach(p -> command.add(Long.toString(p.pid())));
    Command.Result kill = Command.run(Duration.ofSeconds(30), command.toArray(String[]::new));
    assertEquals(0, kill.code(), kill.output());
  }

  private static JsonNode awaitLine(Path file, Predicate<JsonNode> wanted) throws Exception {
    Instant deadline = Instant.now().plus(TIMEOUT);
    while (true) {
      List<JsonNode> parsed = new ArrayList<>();
      List<String> lines = lines(file);
      for (int i = 0; i < lines.size(); i++) {
        String line = lines.get(i);
        if (line.isBlank()) {
          continue;
        }
        try {
          parsed.add(KubeJson.JSON.readTree(line));
        } catch (JsonProcessingException e) {
          // Every line is one JSON object; only the last may be caught half written.
          assertEquals(lines.size() - 1, i, "line " + (i + 1) + " of " + file + " is not JSON: " + line);
        }
      }
      Optional<JsonNode> found = parsed.stream().filter(wanted).findFirst();
      if (found.isPresent()) {
        return found.get();
      }
      assertTrue(Instant.now().isBefore(deadline), "no such line in " + file);
      Api.sleep(200);
    }
  }

  private static List<String> lines(Path file) throws Exception {
    return Files.exists(file) ? Files.readAllLines(file) : List.of();
  }
}
