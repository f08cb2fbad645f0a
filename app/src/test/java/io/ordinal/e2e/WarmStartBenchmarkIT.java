package io.ordinal.e2e;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * How long the packaged service takes from {@code java -jar} to a healthy {@code /health} (its
 * PostgreSQL, Temporal dev server and worker up): the first start on an empty data dir, then
 * warm starts on the same data dir with a few sets in it.
 */
@E2eTest
@Tag("slow")
class WarmStartBenchmarkIT {

  @Test
  void startToHealthy() throws Exception {
    Bench.Figure cold = new Bench.Figure("first start, empty data dir", "s", "");
    Bench.Figure warm = new Bench.Figure("warm start, same data dir, 3 converged sets", "s", "≤ 5 s");
    try (OrdinalService service = new OrdinalService("warm-start").withClassArchive()) {
      cold.add(timedStart(service));
      Api api = service.api();
      for (int i = 0; i < 3; i++) {
        api.createSet("default", Manifests.web("web-" + i, 3, 0, Map.of()));
        api.awaitConverged("default", "web-" + i, 3, Duration.ofSeconds(60));
      }
      for (int run = 0; run < Bench.runs(5); run++) {
        service.stop();
        warm.add(timedStart(service));
      }
    }
    new Bench.Report("warm-start", "Start to healthy")
        .text("""
            `java -jar` of the packaged service (as `./ordinal server` runs it, with the class archive it keeps in
            the data dir) until `GET /health` answers 200, polled every 50 ms; the service starts its embedded
            PostgreSQL and the Temporal dev server itself, one after the other. A warm start follows a clean stop on
            the same data dir.""")
        .figures(List.of(cold, warm))
        .write();
  }

  private static double timedStart(OrdinalService service) throws Exception {
    long start = System.nanoTime();
    service.start();
    return (System.nanoTime() - start) / 1e9;
  }
}
