package io.ordinal.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import io.ordinal.store.KubeJson;
import java.io.IOException;
import java.time.Duration;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/** {@code kubectl get pods -w} of one set (label {@code app=<set>}), each pod incarnation's events stamped on arrival. */
final class PodWatch implements AutoCloseable {
  private final Duration timeout;

  /** When the watch first saw a pod incarnation, saw it Ready and saw it deleted (0: not yet), in nanoTime. */
  record Seen(int ordinal, String uid, long added, long ready, long deleted, JsonNode pod) {}

  private final Process process;
  private final Map<String, Seen> byUid = new ConcurrentHashMap<>();
  private final Thread reader;

  PodWatch(Kubectl kubectl, String ns, String setName) throws IOException {
    this(kubectl, ns, setName, Duration.ofMinutes(2));
  }

  /** The same, waiting up to {@code timeout} in {@link #awaitReady} and {@link #awaitDeleted}. */
  PodWatch(Kubectl kubectl, String ns, String setName, Duration timeout) throws IOException {
    this.timeout = timeout;
    process = kubectl.startReading("-n", ns, "get", "pods", "-l", "app=" + setName, "-w", "--output-watch-events",
        "-o", "json");
    reader = Thread.ofPlatform().daemon().start(this::read);
  }

  private void read() {
    try (MappingIterator<JsonNode> events = KubeJson.JSON.readerFor(JsonNode.class).readValues(process.getInputStream())) {
      while (events.hasNext()) {
        long now = System.nanoTime();
        JsonNode event = events.next();
        JsonNode pod = event.path("object");
        String uid = pod.at("/metadata/uid").asText();
        String name = pod.at("/metadata/name").asText();
        int ordinal = Integer.parseInt(name.substring(name.lastIndexOf('-') + 1));
        boolean ready = false;
        for (JsonNode condition : pod.at("/status/conditions")) {
          ready |= "Ready".equals(condition.path("type").asText()) && "True".equals(condition.path("status").asText());
        }
        boolean isReady = ready;
        long deleted = "DELETED".equals(event.path("type").asText()) ? now : 0;
        byUid.compute(uid, (k, seen) -> seen == null
            ? new Seen(ordinal, uid, now, isReady ? now : 0, deleted, pod)
            : new Seen(ordinal, uid, seen.added(), seen.ready() == 0 && isReady ? now : seen.ready(),
                seen.deleted() == 0 ? deleted : seen.deleted(), pod));
        synchronized (this) {
          notifyAll();
        }
      }
    } catch (IOException | RuntimeException e) {
      // the watch was closed
    }
  }

  Set<String> uids() {
    return Set.copyOf(byUid.keySet());
  }

  /** Every incarnation seen so far, in the order the watch first saw them. */
  List<Seen> seen() {
    return byUid.values().stream().sorted(Comparator.comparingLong(Seen::added)).toList();
  }

  /** Waits until every ordinal has a Ready, not deleted incarnation not in {@code excluded}; those, by ordinal. */
  synchronized Map<Integer, Seen> awaitReady(int replicas, Set<String> excluded) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      Map<Integer, Seen> ready = new LinkedHashMap<>();
      byUid.values().stream().filter(seen -> seen.ready() != 0 && seen.deleted() == 0 && !excluded.contains(seen.uid()))
          .forEach(seen -> ready.put(seen.ordinal(), seen));
      if (ready.size() == replicas) {
        return ready;
      }
      long left = deadline - System.nanoTime();
      if (left <= 0 || !process.isAlive()) {
        throw new AssertionError("pods Ready after " + timeout + ": " + ready.keySet() + " (watch "
            + (process.isAlive() ? "running" : "ended") + ")");
      }
      wait(Math.max(1, left / 1_000_000));
    }
  }

  /** Waits until the incarnations in {@code uids} are all deleted; when each was, by uid. */
  synchronized Map<String, Long> awaitDeleted(Set<String> uids) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      Map<String, Long> deleted = new LinkedHashMap<>();
      uids.forEach(uid -> {
        Seen seen = byUid.get(uid);
        if (seen != null && seen.deleted() != 0) {
          deleted.put(uid, seen.deleted());
        }
      });
      if (deleted.size() == uids.size()) {
        return deleted;
      }
      long left = deadline - System.nanoTime();
      if (left <= 0 || !process.isAlive()) {
        throw new AssertionError("pods deleted after " + timeout + ": " + deleted.keySet() + " of " + uids);
      }
      wait(Math.max(1, left / 1_000_000));
    }
  }

  @Override
  public void close() throws InterruptedException {
    process.destroy();
    reader.join(5_000);
  }
}
