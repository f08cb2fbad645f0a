package io.ordinal.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A set's workflow reads only what changed since its last reading, by resourceVersion, and reads
 * everything once a minute. A change written past the versions (and past the notification that wakes
 * the workflow: a lost one) is found by that complete reading, said in the log and counted.
 */
@E2eTest
class IncrementalObservationIT {
  static final Duration TIMEOUT = Duration.ofSeconds(150);

  @Test
  void aPodChangeWrittenWithoutAVersionIsFoundByThePeriodicCompleteReading(@Namespace String ns) throws Exception {
    try (OrdinalService service = new OrdinalService("missed")) {
      service.expectIncrementalReadingMisses();
      service.start();
      Api api = service.api();
      api.createSet(ns, Manifests.web("web", 2, 0, Map.of("SIM_NEVER_READY", "true")));
      api.await(Paths.pod(ns, "web-0"), TIMEOUT, r -> r.code() == 200 && "Running".equals(r.json().at("/status/phase").asText()));
      // A write through the API wakes the scale, which reads web-0 as it is now (Running, not Ready; the
      // driver does not wake it for that) and waits for it.
      assertEquals(200, api.patch(Paths.pod(ns, "web-0"), "application/merge-patch+json",
          "{\"metadata\":{\"annotations\":{\"seen\":\"yes\"}}}").code());
      Thread.sleep(3_000);

      // web-0 turns Ready in the store with no new resourceVersion, no watch event and no signal: the
      // triggers that give them are off for this one transaction.
      Instant hiddenAt = Instant.now();
      try (Connection c = DriverManager.getConnection(service.jdbcUrl("ordinal"), "ordinal",
          service.databasePassword("ordinal")); Statement s = c.createStatement()) {
        c.setAutoCommit(false);
        s.execute("ALTER TABLE pods DISABLE TRIGGER USER");
        assertEquals(1, s.executeUpdate("UPDATE pods SET ready = true, ready_since = now() WHERE id = '" + ns + "/web-0'"));
        s.execute("ALTER TABLE pods ENABLE TRIGGER USER");
        c.commit();
      }

      api.await(Paths.pod(ns, "web-1"), TIMEOUT, r -> r.code() == 200);
      Duration seenAfter = Duration.between(hiddenAt, Instant.parse(api.pod(ns, "web-1").at("/metadata/creationTimestamp").asText()));
      assertTrue(seenAfter.compareTo(Duration.ofSeconds(14)) > 0,
          "web-1 was made " + seenAfter + " after web-0 turned Ready unseen: an incremental reading saw it");
      assertTrue(service.log().contains("otherwise than the incremental readings had said"), "the miss is logged");
      // The SDK's meters reach the registry once a second.
      Instant deadline = Instant.now().plusSeconds(15);
      while (Exposition.parse(api.get("/metrics").body())
          .sum("ordinal_incremental_reading_misses_total", Map.of("namespace", ns, "statefulset", "web")) < 1) {
        assertTrue(Instant.now().isBefore(deadline), "the miss is counted in /metrics");
        Api.sleep(250);
      }
    }
  }
}
