package io.ordinal.audit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micronaut.http.HttpRequest;
import io.ordinal.request.RequestAttributes;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AuditLogTest {
  @TempDir
  Path dataDir;

  static AuditEvent event(int i) {
    HttpRequest<?> request = HttpRequest.DELETE("/apis/apps/v1/namespaces/ns/statefulsets/web-" + i);
    return AuditFilter.event(request, RequestAttributes.of("DELETE", request.getPath(), null, null),
        new AuditContext("id-" + i, Instant.now()), 200, null, Instant.now());
  }

  @Test
  void defaultsFollowUpstreamsFlagsAndTheDataDir() {
    AuditLog.Settings settings = AuditLog.settings(Map.of(), dataDir);
    assertEquals(new AuditLog.Settings(dataDir.resolve("audit/audit.log"), 100L * 1024 * 1024, 10), settings);
    assertEquals(null, AuditLog.settings(Map.of("ORDINAL_AUDIT_LOG_PATH", "-"), dataDir).path());
    assertEquals(new AuditLog.Settings(Path.of("/tmp/a.log"), 1024 * 1024, 3), AuditLog.settings(Map.of(
        "ORDINAL_AUDIT_LOG_PATH", "/tmp/a.log", "ORDINAL_AUDIT_LOG_MAX_SIZE_MB", "1", "ORDINAL_AUDIT_LOG_MAX_BACKUPS", "3"),
        dataDir));
  }

  /** A tiny size cap: the log rolls over, keeps the configured number of backups, loses nothing it keeps. */
  @Test
  void rotatesBySizeKeepsTheBackupsCappedAndWritesPrivateFiles() throws Exception {
    Path file = dataDir.resolve("audit").resolve("audit.log");
    int events = 400;
    try (AuditLog log = new AuditLog(new AuditLog.Settings(file, 4 * 1024, 3))) {
      for (int i = 0; i < events; i++) {
        log.write(event(i));
        if (i % 5 == 0) {
          Thread.sleep(15); // past the size check's increment, so that rollovers happen along the way
        }
      }
    } // close: everything queued is written
    List<Path> files;
    try (Stream<Path> listed = Files.list(file.getParent())) {
      files = listed.sorted().toList();
    }
    assertEquals(List.of(file, Path.of(file + ".1"), Path.of(file + ".2"), Path.of(file + ".3")), files);
    assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file.getParent())));
    Set<String> ids = new HashSet<>();
    List<Integer> numbers = new ArrayList<>();
    for (Path f : files) {
      assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(f)), f.toString());
      assertTrue(Files.size(f) < 8 * 1024, // the size is checked every 10 ms at most
           f + " is " + Files.size(f) + " bytes");
      for (String line : Files.readAllLines(f)) {
        String id = AuditEventTest.JSON.readTree(line).path("auditID").asText();
        assertTrue(ids.add(id), "twice: " + id);
        numbers.add(Integer.parseInt(id.substring(3)));
      }
    }
    // The newest events are all there (the oldest went with the dropped backups).
    assertTrue(numbers.contains(events - 1));
    int oldestKept = numbers.stream().mapToInt(Integer::intValue).min().orElseThrow();
    assertEquals(events - oldestKept, ids.size(), "a gap among the kept events");
    assertTrue(oldestKept > 0, "nothing rotated away");
  }

  @Test
  void appendsToAnExistingLogAcrossRestarts() throws IOException {
    Path file = dataDir.resolve("audit.log");
    try (AuditLog log = new AuditLog(new AuditLog.Settings(file, 1024 * 1024, 2))) {
      log.write(event(1));
    }
    try (AuditLog log = new AuditLog(new AuditLog.Settings(file, 1024 * 1024, 2))) {
      log.write(event(2));
    }
    List<String> lines = Files.readAllLines(file);
    assertEquals(2, lines.size());
    assertFalse(Files.exists(Path.of(file + ".1")));
  }
}
