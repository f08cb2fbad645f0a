package io.ordinal.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpServer;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Data dirs made by the releases CHANGELOG.md records (each built from its commit) taken over by this
 * build: the newest release's with operations in flight, and 0.1.0's, which named revisions by a hash
 * of its own.
 */
class UpgradeIT {
  private static final String NS = "upgrade";
  private static final Duration TIMEOUT = Duration.ofSeconds(120);
  private static final Path JAVA = Path.of(ProcessHandle.current().info().command().orElseThrow());

  /**
   * 0.1.0's data dir, taken over by this build, which names revisions as upstream's controller does:
   * the set's pods keep running (same uids, same processes), its revision stays its revision (found by
   * its template, not by its name), a scale adds pods of that revision, and only a change of the
   * template makes a new one, named by upstream's hash, which undo leaves for the old one again.
   */
  @Test
  void aSetMadeByRelease010KeepsItsPodsAndItsRevisionAcrossTheUpgrade() throws Exception {
    try (OrdinalService service = new OrdinalService("upgrade").runningOn(JAVA, Release.named("0.1.0").jar())) {
      service.start();
      Api api = service.api();
      ObjectNode sleeper = Manifests.commandSet("sleeper", 2, "sleep", "600");
      // The claim mounted outside /usr: the previous release cannot mount where this machine has no such path.
      ((ObjectNode) sleeper.at("/spec/template/spec/containers/0/volumeMounts/0")).put("mountPath", "/data");
      assertEquals(201, api.createSet(NS, sleeper).code());
      JsonNode before = api.awaitConverged(NS, "sleeper", 2, TIMEOUT);
      String revision = before.at("/status/updateRevision").asText();
      Map<String, String> started = running(api);
      assertEquals(2, started.size(), started.toString());

      service.stop();
      assertTrue(Files.exists(service.dataDir), "the data dir stays for the next release");
      service.runningOn(null, null).start(); // this build, on the same data dir

      api.patchSet(NS, "sleeper", "{\"spec\":{\"replicas\":3}}");
      JsonNode scaled = api.awaitConverged(NS, "sleeper", 3, TIMEOUT);
      assertEquals(revision, scaled.at("/status/updateRevision").asText(), "the set's revision is the same");
      assertEquals(revision, scaled.at("/status/currentRevision").asText());
      Map<String, String> after = running(api);
      started.forEach((pod, identity) -> assertEquals(identity, after.get(pod), pod + " was not restarted"));
      for (JsonNode pod : api.pods(NS, "app=sleeper")) {
        assertEquals(revision, pod.at("/metadata/labels/controller-revision-hash").asText(),
            pod.at("/metadata/name").asText() + " runs the set's one revision");
      }

      // A changed template is a new revision, named by upstream's hash; undo goes back to the old one.
      assertEquals(200, api.patch(Paths.set(NS, "sleeper"), "application/json-patch+json",
          "[{\"op\":\"replace\",\"path\":\"/spec/template/spec/containers/0/command\",\"value\":[\"sleep\",\"601\"]}]")
          .code());
      JsonNode rolled = api.await(Paths.set(NS, "sleeper") + "/status", TIMEOUT, r -> {
        JsonNode s = r.json().path("status");
        return !s.path("updateRevision").asText().equals(revision) && s.path("updatedReplicas").asInt() == 3
            && s.path("currentRevision").asText().equals(s.path("updateRevision").asText())
            && s.path("availableReplicas").asInt() == 3;
      });
      String next = rolled.at("/status/updateRevision").asText();
      JsonNode nextRevision = api.get(Paths.apps(NS, "controllerrevisions/" + next)).json();
      assertEquals(next.substring("sleeper-".length()),
          nextRevision.at("/metadata/labels").path("controller.kubernetes.io/hash").asText(),
          "upstream's hash label: " + nextRevision);
      assertEquals(200, api.post(Paths.set(NS, "sleeper") + "/rollout/undo", null, null).code());
      JsonNode undone = api.await(Paths.set(NS, "sleeper") + "/status", TIMEOUT, r -> {
        JsonNode s = r.json().path("status");
        return s.path("updateRevision").asText().equals(revision) && s.path("updatedReplicas").asInt() == 3
            && s.path("currentRevision").asText().equals(revision) && s.path("availableReplicas").asInt() == 3;
      });
      assertNotEquals(next, undone.at("/status/currentRevision").asText());
      List<String> revisions = new ArrayList<>();
      api.get(Paths.apps(NS, "controllerrevisions")).json().path("items")
          .forEach(item -> revisions.add(item.at("/metadata/name").asText()));
      revisions.sort(null);
      assertEquals(List.of(revision, next).stream().sorted().toList(), revisions, "no third revision");
    }
  }

  /**
   * The newest release's data dir, with three operations in flight when it stops: a rollout paused
   * after its first replacement, a scale-up of an OrderedReady set between two pods, and a scale-up
   * whose preCreate hook waits on its endpoint. This build starts on it (its migrations run forward on
   * that database, its workflow code replays the old one's histories) and finishes each: the rollout
   * stays paused until resumed, the scale ends with each pod made once, and the hook, called again by
   * this build, lets its member join. Each identity is made once; each pod of the rollout replaced once.
   */
  @Test
  void operationsInFlightWhenTheNewestReleaseStopsFinishUnderThisBuild() throws Exception {
    Release previous = Release.newest();
    String paused = "upgrade-paused";
    String hooked = "upgrade-hooked";
    String scaling = "upgrade-scaling";
    List<Instant> hookCalls = new CopyOnWriteArrayList<>();
    CountDownLatch answer = new CountDownLatch(1);
    HttpServer endpoint = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    endpoint.setExecutor(Executors.newCachedThreadPool());
    endpoint.createContext("/join", exchange -> {
      hookCalls.add(Instant.now());
      try {
        answer.await(5, TimeUnit.MINUTES);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      exchange.sendResponseHeaders(200, -1);
      exchange.close();
    });
    endpoint.start();
    try (OrdinalService service = new OrdinalService("upgrade-in-flight").runningOn(JAVA, previous.jar())) {
      service.start();
      Api api = service.api();

      api.createSet(paused, Manifests.web("web", 4, 0, Map.of("SIM_READY_DELAY_MS", "500")));
      String first = api.awaitConverged(paused, "web", 4, TIMEOUT).at("/status/currentRevision").asText();
      api.setImage(paused, "web", "k8s.gcr.io/nginx-slim:0.9");
      api.await(Paths.set(paused, "web") + "/status", TIMEOUT, r -> !r.json().at("/status/updateRevision").asText().equals(first)
          && r.json().at("/status/updatedReplicas").asInt() >= 1);
      assertEquals(200, api.post(Paths.set(paused, "web") + "/rollout/pause", null, null).code());
      api.await(Paths.set(paused, "web") + "/rollout/status", TIMEOUT, r -> r.json().path("phase").asText().equals("Paused"));
      // Its pods once a replacement under way at the pause is done (the release's watches say nothing
      // of having caught up, so its pods are compared rather than its watch log).
      api.await(Paths.set(paused, "web") + "/status", TIMEOUT, r -> r.json().at("/status/readyReplicas").asInt() == 4);
      Map<String, String> atPause = pods(api, paused);

      ObjectNode withHook = Manifests.web("web", 1, 0, Map.of());
      ((ObjectNode) withHook.get("metadata")).with("annotations").put("ordinal.io/member-hooks",
          "preCreate:\n  http: {url: 'http://127.0.0.1:" + endpoint.getAddress().getPort() + "/join'}\n  timeoutSeconds: 600\n");
      api.createSet(hooked, withHook);
      api.awaitConverged(hooked, "web", 1, TIMEOUT); // the founder joins without a hook
      api.patchSet(hooked, "web", "{\"spec\":{\"replicas\":2}}");
      awaitUntil(() -> hookCalls.size() == 1, "the preCreate hook of web-1 is called");

      // The scale last, its pods slow: it is between two when the release stops.
      api.createSet(scaling, Manifests.web("web", 1, 0, Map.of("SIM_READY_DELAY_MS", "3000")));
      api.awaitConverged(scaling, "web", 1, TIMEOUT);
      api.patchSet(scaling, "web", "{\"spec\":{\"replicas\":5}}");
      api.await(Paths.pod(scaling, "web-2"), TIMEOUT, r -> r.code() == 200);
      assertEquals(404, api.get(Paths.pod(scaling, "web-4")).code(), "the scale is still running at the stop");
      service.stop();

      Instant upgraded = Instant.now();
      service.runningOn(null, null).start(); // this build, on the same data dir
      api.awaitConverged(scaling, "web", 5, TIMEOUT);
      assertEquals("Paused", api.get(Paths.set(paused, "web") + "/rollout/status").json().path("phase").asText());
      assertEquals(atPause, pods(api, paused), "the paused rollout's pods, none replaced since the pause");
      // The hook's attempt ran in the stopped release: this build calls it again (write hooks idempotent).
      awaitUntil(() -> hookCalls.getLast().isAfter(upgraded), "this build calls the hook again");
      answer.countDown();
      api.awaitConverged(hooked, "web", 2, TIMEOUT);
      assertEquals(200, api.post(Paths.set(paused, "web") + "/rollout/resume", null, null).code());
      api.awaitRolledOut(paused, "web", 4, first, TIMEOUT);

      assertEquals(made("web", 5, 1), operations(api, scaling), scaling);
      assertEquals(made("web", 2, 1), operations(api, hooked), hooked);
      Map<String, Long> replacedOnce = made("web", 4, 2);
      for (int i = 0; i < 4; i++) {
        replacedOnce.put("-web-" + i, 1L);
      }
      assertEquals(replacedOnce, operations(api, paused), paused);
    } finally {
      answer.countDown();
      endpoint.stop(0);
    }
  }

  private static void awaitUntil(BooleanSupplier condition, String what) {
    Instant deadline = Instant.now().plus(TIMEOUT);
    while (!condition.getAsBoolean()) {
      assertTrue(Instant.now().isBefore(deadline), "timed out: " + what);
      Api.sleep(200);
    }
  }

  /** Each pod's uid and revision, by name. */
  private static Map<String, String> pods(Api api, String ns) {
    Map<String, String> pods = new TreeMap<>();
    api.pods(ns, "app=web").forEach(pod -> pods.put(pod.at("/metadata/name").asText(),
        pod.at("/metadata/uid").asText() + " " + pod.at("/metadata/labels/controller-revision-hash").asText()));
    return pods;
  }

  /** Pod creations (+) and deletions (-) by pod name, from the watch log. */
  private static Map<String, Long> operations(Api api, String ns) {
    return api.podOperations(ns).stream().collect(Collectors.groupingBy(op -> op, TreeMap::new, Collectors.counting()));
  }

  private static Map<String, Long> made(String set, int replicas, long times) {
    Map<String, Long> made = new TreeMap<>();
    for (int i = 0; i < replicas; i++) {
      made.put("+" + set + "-" + i, times);
    }
    return made;
  }

  /** Each pod's uid and container start, by pod name: what a restart or a replacement changes. */
  private static Map<String, String> running(Api api) {
    Map<String, String> running = new TreeMap<>();
    for (JsonNode pod : api.pods(NS, "app=sleeper")) {
      running.put(pod.at("/metadata/name").asText(), pod.at("/metadata/uid").asText() + " "
          + pod.at("/status/containerStatuses/0/state/running/startedAt").asText());
    }
    return running;
  }
}
