package io.ordinal.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.ordinal.request.RequestAttributes;
import io.ordinal.store.KubeJson;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * The audit log of a test's service, and the requests this JVM sent through {@link Api}: for the
 * completeness checks (every successful write has exactly one audit event, and no event claims a
 * write nobody sent).
 */
final class AuditTrail {
  static final String HEADER = "Audit-Id";
  /** Verbs that only read: any other (create ... deletecollection, the rollout verbs) is a write. */
  static final Set<String> READING = Set.of("get", "list", "watch");

  /** A request {@link Api} sent, with the Audit-Id its response carried (null: none). */
  record Sent(String method, String path, int code, String auditId) {
    RequestAttributes attributes() {
      URI uri = URI.create("http://x" + path);
      return RequestAttributes.of(method, uri.getPath(), null, null);
    }

    boolean successfulWrite() {
      return code >= 200 && code < 300 && attributes().resourceRequest() && !READING.contains(attributes().verb());
    }
  }

  private static final ConcurrentLinkedQueue<Sent> SENT = new ConcurrentLinkedQueue<>();

  private AuditTrail() {}

  static void sent(String method, String path, int code, String auditId) {
    SENT.add(new Sent(method, path, code, auditId));
  }

  /** The audit ids of the successful writes {@link Api} sent into {@code namespace}. */
  static List<String> successfulWritesSentTo(String namespace) {
    return SENT.stream().filter(s -> s.successfulWrite() && s.attributes().namespace().equals(namespace))
        .map(Sent::auditId).toList();
  }

  /** Every event of the audit log (current file and backups) of the service with {@code dataDir}. */
  static List<JsonNode> events(Path dataDir) {
    Path dir = dataDir.resolve("audit");
    List<JsonNode> events = new ArrayList<>();
    if (!Files.isDirectory(dir)) {
      return events;
    }
    try (var files = Files.list(dir)) {
      for (Path file : files.filter(f -> f.getFileName().toString().startsWith("audit.log")).sorted().toList()) {
        for (String line : Files.readAllLines(file)) {
          if (!line.isBlank()) {
            events.add(KubeJson.JSON.readTree(line));
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return events;
  }

  /** The events with this audit id, waiting briefly for the log's writer thread. */
  static List<JsonNode> eventsOf(Path dataDir, String auditId) {
    return awaitEvents(dataDir, e -> e.path("auditID").asText().equals(auditId), 1);
  }

  /** The events {@code selected} picks, once there are at least {@code atLeast} (or after 10 s). */
  static List<JsonNode> awaitEvents(Path dataDir, Predicate<JsonNode> selected, int atLeast) {
    Instant deadline = Instant.now().plus(Duration.ofSeconds(10));
    while (true) {
      List<JsonNode> found = events(dataDir).stream().filter(selected).toList();
      if (found.size() >= atLeast || Instant.now().isAfter(deadline)) {
        Api.sleep(300); // and a moment for any duplicate to land
        return events(dataDir).stream().filter(selected).toList();
      }
      Api.sleep(100);
    }
  }

  static boolean successfulWrite(JsonNode event) {
    int code = event.at("/responseStatus/code").asInt();
    return code >= 200 && code < 300 && !READING.contains(event.path("verb").asText());
  }

  /**
   * Completeness: each id in {@code sentIds} (the successful writes a test sent) is in exactly one
   * event, and the events among {@code candidates} that record a successful write are exactly those.
   */
  static void assertComplete(Path dataDir, Collection<String> sentIds, Predicate<JsonNode> candidates) {
    assertTrue(sentIds.stream().allMatch(id -> id != null && !id.isEmpty()), "a successful write without an Audit-Id");
    assertEquals(sentIds.size(), Set.copyOf(sentIds).size(), "an Audit-Id twice");
    List<JsonNode> events = awaitEvents(dataDir, e -> candidates.test(e) && successfulWrite(e), sentIds.size());
    Map<String, Long> counts = events.stream().collect(Collectors.groupingBy(e -> e.path("auditID").asText(),
        TreeMap::new, Collectors.counting()));
    List<String> missing = sentIds.stream().filter(id -> !counts.containsKey(id)).toList();
    List<String> twice = counts.entrySet().stream().filter(c -> c.getValue() > 1).map(Map.Entry::getKey).toList();
    List<String> unsent = counts.keySet().stream().filter(id -> !sentIds.contains(id)).toList();
    assertTrue(missing.isEmpty() && twice.isEmpty() && unsent.isEmpty(), "audit of " + sentIds.size()
        + " successful writes: missing " + missing + ", logged twice " + twice + ", logged but not sent " + unsent);
  }

  /** Events about objects in {@code namespace}. */
  static Predicate<JsonNode> inNamespace(String namespace) {
    return e -> e.at("/objectRef/namespace").asText().equals(namespace);
  }
}
