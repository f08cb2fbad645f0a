package io.ordinal.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.ordinal.store.KubeJson;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** Watches over HTTP: a watcher that drops and resumes its connection sees exactly what an unbroken one sees. */
@E2eTest
class WatchIT {
  static final Duration TIMEOUT = Duration.ofSeconds(90);
  static Api api;
  private static HttpClient client;

  private static synchronized HttpClient client() {
    if (client == null) {
      client = api.client();
    }
    return client;
  }

  /** One event as a watcher saw it. */
  record Seen(String type, String name, long resourceVersion) {}

  @Test
  void resumingFromTheLastResourceVersionMidRolloutLosesAndDoublesNothing(@Namespace String ns) throws Exception {
    api.createSet(ns, Manifests.web("web", 3, 0, Map.of("SIM_READY_DELAY_MS", "150")));
    api.awaitConverged(ns, "web", 3, TIMEOUT);
    long start = api.get(Paths.core(ns, "pods")).json().at("/metadata/resourceVersion").asLong();

    List<Seen> unbroken = Collections.synchronizedList(new ArrayList<>());
    List<Seen> resumed = Collections.synchronizedList(new ArrayList<>());
    AtomicBoolean running = new AtomicBoolean(true);
    InputStream referenceBody = open(Paths.core(ns, "pods") + "?watch=true&timeoutSeconds=600&resourceVersion=" + start);
    Thread reference = Thread.ofVirtual().start(() -> {
      try {
        readLines(referenceBody, unbroken, Integer.MAX_VALUE);
      } catch (IOException e) {
        // closed by the test once the other watcher has caught up
      }
    });
    Thread dropping = Thread.ofVirtual().start(() -> {
      Random random = new Random(20261123);
      long cursor = start;
      int connections = 0;
      while (running.get() || lastVersion(resumed, cursor) < lastVersion(unbroken, start)) {
        int before = resumed.size();
        // A few events, then the connection is dropped and the watch resumed from the last one.
        try (InputStream body = open(Paths.core(ns, "pods") + "?watch=true&timeoutSeconds=2&resourceVersion=" + cursor)) {
          readLines(body, resumed, 1 + random.nextInt(4));
        } catch (IOException e) {
          throw new IllegalStateException(e);
        }
        cursor = lastVersion(resumed, cursor);
        connections++;
        if (resumed.size() == before) {
          sleep(50);
        }
      }
      System.out.println("WatchIT: " + connections + " connections");
    });

    // A rollout, a scale up and a scale down, while both watch.
    api.setImage(ns, "web", "nginx:resumed");
    api.awaitConverged(ns, "web", 3, TIMEOUT);
    api.patchSet(ns, "web", "{\"spec\":{\"replicas\":5}}");
    api.awaitConverged(ns, "web", 5, TIMEOUT);
    api.patchSet(ns, "web", "{\"spec\":{\"replicas\":2}}");
    api.awaitConverged(ns, "web", 2, TIMEOUT);
    sleep(1500);
    running.set(false);
    dropping.join(TIMEOUT.toMillis());
    referenceBody.close();
    reference.join(TIMEOUT.toMillis());

    assertTrue(unbroken.size() > 20, "the rollout and scales made events: " + unbroken.size());
    assertTrue(unbroken.stream().anyMatch(s -> s.type().equals("DELETED")));
    assertEquals(unbroken, resumed, "the resumed watch saw the same events, each once, in order");
    for (int i = 1; i < unbroken.size(); i++) {
      assertTrue(unbroken.get(i).resourceVersion() > unbroken.get(i - 1).resourceVersion());
    }
  }

  @Test
  void aMalformedResourceVersionIs400AndAWatchWithoutOneStartsWithTheCurrentPods(@Namespace String ns) throws Exception {
    assertEquals(400, api.get(Paths.core(ns, "pods") + "?watch=true&resourceVersion=abc").code());
    api.createSet(ns, Manifests.web("web", 2, 0, Map.of()));
    api.awaitConverged(ns, "web", 2, TIMEOUT);
    List<Seen> seen = new ArrayList<>();
    try (InputStream body = open(Paths.core(ns, "pods") + "?watch=true&timeoutSeconds=1")) {
      readLines(body, seen, Integer.MAX_VALUE);
    }
    assertEquals(List.of("ADDED web-0", "ADDED web-1"), seen.stream().map(s -> s.type() + " " + s.name()).toList());
  }

  private static InputStream open(String path) throws IOException {
    try {
      HttpResponse<InputStream> response = client().send(api.request(path).build(),
          HttpResponse.BodyHandlers.ofInputStream());
      if (response.statusCode() != 200) {
        throw new IllegalStateException(path + " answered " + response.statusCode()
            + ": " + new String(response.body().readAllBytes(), StandardCharsets.UTF_8));
      }
      return response.body();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(e);
    }
  }

  private static int readLines(InputStream body, List<Seen> into, int limit) throws IOException {
    BufferedReader reader = new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8));
    int read = 0;
    String line;
    while (read < limit && (line = reader.readLine()) != null) {
      if (line.isBlank()) {
        continue; // whitespace between events
      }
      JsonNode event = KubeJson.JSON.readTree(line);
      assertTrue(List.of("ADDED", "MODIFIED", "DELETED").contains(event.path("type").asText()), line);
      into.add(new Seen(event.path("type").asText(), event.at("/object/metadata/name").asText(),
          event.at("/object/metadata/resourceVersion").asLong()));
      read++;
    }
    return read;
  }

  private static long lastVersion(List<Seen> seen, long otherwise) {
    synchronized (seen) {
      return seen.isEmpty() ? otherwise : seen.getLast().resourceVersion();
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
