package io.ordinal.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import io.ordinal.store.KubeJson;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Watch latency with many watchers: {@code ordinal.bench.watchers} (default 100) pod watches are
 * open; a pod is deleted through the API ({@code ordinal.bench.changes} times, default 30), and for
 * every watcher the time from the DELETE being sent to its MODIFIED (Terminating) event arriving
 * is measured. Report: {@code app/target/benchmarks/watch-latency.md}.
 */
@E2eTest
@Tag("slow")
class WatchLatencyBenchmarkIT {
  static Api api;

  @Test
  void podChangeToEventOnTheWireWithManyWatches(@Namespace String ns) throws Exception {
    int watchers = Integer.getInteger("ordinal.bench.watchers", 100);
    int changes = Integer.getInteger("ordinal.bench.changes", 30);
    api.createSet(ns, Manifests.web("web", 3, 0, Map.of("SIM_TERMINATION_DELAY_MS", "200")));
    api.awaitConverged(ns, "web", 3, Duration.ofSeconds(90));
    long from = api.get(Paths.core(ns, "pods")).json().at("/metadata/resourceVersion").asLong();

    HttpClient client = api.client();
    // Per watcher: when it saw each pod incarnation (uid) start terminating.
    List<Map<String, Long>> arrivals = new ArrayList<>();
    List<InputStream> bodies = Collections.synchronizedList(new ArrayList<>());
    CountDownLatch open = new CountDownLatch(watchers);
    for (int w = 0; w < watchers; w++) {
      Map<String, Long> seen = new ConcurrentHashMap<>();
      arrivals.add(seen);
      Thread.ofVirtual().start(() -> {
        try {
          InputStream body = client.send(api.request(Paths.core(ns, "pods")
              + "?watch=true&timeoutSeconds=600&resourceVersion=" + from).build(), HttpResponse.BodyHandlers.ofInputStream()).body();
          bodies.add(body);
          open.countDown();
          BufferedReader reader = new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8));
          String line;
          while ((line = reader.readLine()) != null) {
            long now = System.nanoTime();
            if (line.isBlank()) {
              continue;
            }
            JsonNode event = KubeJson.JSON.readTree(line);
            if (!event.at("/object/metadata/deletionTimestamp").isMissingNode()) {
              seen.putIfAbsent(event.at("/object/metadata/uid").asText(), now);
            }
          }
        } catch (Exception e) {
          // closed at the end
        }
      });
    }
    open.await(60, TimeUnit.SECONDS);
    Thread.sleep(500);

    List<Long> micros = new ArrayList<>();
    for (int i = 0; i < changes; i++) {
      String pod = "web-" + (i % 3);
      api.await(Paths.core(ns, "pods/" + pod), Duration.ofSeconds(60),
          reply -> reply.code() == 200 && reply.json().at("/metadata/deletionTimestamp").isMissingNode());
      String uid = api.get(Paths.core(ns, "pods/" + pod)).json().at("/metadata/uid").asText();
      long sent = System.nanoTime();
      api.delete(Paths.core(ns, "pods/" + pod));
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (arrivals.stream().anyMatch(seen -> !seen.containsKey(uid)) && System.nanoTime() < deadline) {
        Thread.sleep(5);
      }
      for (Map<String, Long> seen : arrivals) {
        Long at = seen.get(uid);
        micros.add(at == null ? Long.MAX_VALUE : (at - sent) / 1000);
      }
    }
    bodies.forEach(body -> {
      try {
        body.close();
      } catch (Exception e) {
        // ignore
      }
    });

    List<Long> sorted = micros.stream().sorted().toList();
    long missed = sorted.stream().filter(v -> v == Long.MAX_VALUE).count();
    String report = "# Watch latency\n\n"
        + watchers + " open pod watches, " + changes + " pod deletions through the API; per watcher and deletion, the time"
        + " from sending DELETE to receiving the pod's MODIFIED (Terminating) event.\n\n"
        + "| samples | missed (10 s) | p50 ms | p90 ms | p99 ms | max ms |\n|---|---|---|---|---|---|\n"
        + sorted.size() + " | " + missed + " | " + ms(sorted, 50) + " | " + ms(sorted, 90) + " | " + ms(sorted, 99)
        + " | " + ms(sorted, 100) + "\n\nReproduce: `./ordinal mvn verify -pl app -am -Dtest=none"
        + " -Dsurefire.failIfNoSpecifiedTests=false -Dit.test=WatchLatencyBenchmarkIT`"
        + " (-Dordinal.bench.watchers=N -Dordinal.bench.changes=N)\n";
    Path out = Path.of("target", "benchmarks", "watch-latency.md");
    Files.createDirectories(out.getParent());
    Files.writeString(out, report);
    System.out.println(report);
  }

  private static String ms(List<Long> sorted, int percentile) {
    long value = sorted.get(Math.min(sorted.size() - 1, (int) Math.ceil(percentile / 100.0 * sorted.size()) - 1));
    return value == Long.MAX_VALUE ? "missed" : String.format("%.1f", value / 1000.0);
  }
}
