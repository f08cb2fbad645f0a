package io.ordinal.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.ordinal.store.KubeJson;
import io.temporal.api.enums.v1.EventType;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * deploy/examples/etcd.yaml end to end on the local driver: a real etcd cluster whose membership
 * follows the set through Ordinal's membership hooks, while a client keeps writing.
 */
@E2eTest
class EtcdExampleIT {
  static final Duration TIMEOUT = Duration.ofSeconds(120);
  static final String NS = "etcd-example";

  @Test
  void membershipFollowsTheSetThroughScalesAndAKilledServiceAndWritesKeepSucceeding() throws Exception {
    try (OrdinalService service = new OrdinalService("etcd")) {
      service.start();
      Api api = service.api();
      String manifest = Files.readString(Path.of("..", "deploy", "examples", "etcd.yaml"));
      Api.Reply created = api.post(Paths.sets(NS), "application/yaml", manifest);
      assertEquals(201, created.code(), created.body());
      api.awaitConverged(NS, "etcd", 3, TIMEOUT);
      assertMembersArePods(api, 3);

      StringBuilder timeline = new StringBuilder();
      Writer writer = new Writer(api);
      writer.start();
      StringBuilder report = new StringBuilder("# etcd example: scale timings (local driver, 2 cores)\n\n"
          + "| scale | wall | hooks | pod start to Ready | other (planning, timers, status) |\n|---|---|---|---|---|\n");
      for (int replicas : new int[] {5, 3, 1, 3}) {
        int from = api.set(NS, "etcd").at("/spec/replicas").asInt();
        Instant start = Instant.now();
        api.patchSet(NS, "etcd", "{\"spec\":{\"replicas\":" + replicas + "}}");
        api.awaitConverged(NS, "etcd", replicas, TIMEOUT);
        Duration wall = Duration.between(start, Instant.now());
        assertMembersArePods(api, replicas);
        report.append(timings(service, api, from, replicas, wall));
        if (from == 3 && replicas == 5) {
          timeline.append(timeline(api, start));
        }
      }
      report.append("\nThe 3 → 5 scale, event by event (ms after the PATCH):\n\n").append(timeline).append('\n');

      // A member whose pod is deleted comes back as itself, with its data: no hook, same member.
      String id = memberIds(api).get("etcd-1");
      String uid = api.pod(NS, "etcd-1").at("/metadata/uid").asText();
      assertEquals(200, api.delete(Paths.pod(NS, "etcd-1")).code());
      api.await(Paths.pod(NS, "etcd-1"), TIMEOUT, r -> r.code() == 200
          && !r.json().at("/metadata/uid").asText().equals(uid));
      api.awaitConverged(NS, "etcd", 3, TIMEOUT);
      assertEquals(id, memberIds(api).get("etcd-1"));

      // A rolling update: each member restarts with its data, highest first; the members stay the same.
      Map<String, String> before = memberIds(api);
      String revision = api.set(NS, "etcd").at("/status/updateRevision").asText();
      assertEquals(200, api.patch(Paths.set(NS, "etcd"), "application/strategic-merge-patch+json",
          "{\"spec\":{\"template\":{\"spec\":{\"containers\":[{\"name\":\"etcd\","
          + "\"env\":[{\"name\":\"GOMAXPROCS\",\"value\":\"2\"}]}]}}}}").code());
      api.await(Paths.set(NS, "etcd") + "/status", TIMEOUT, r -> {
        JsonNode status = r.json().path("status");
        return !status.path("updateRevision").asText().equals(revision)
            && status.path("currentRevision").asText().equals(status.path("updateRevision").asText())
            && status.path("availableReplicas").asInt() == 3 && status.path("updatedReplicas").asInt() == 3;
      });
      assertMembersArePods(api, 3);
      assertEquals(before, memberIds(api));
      // Each member ran its preUpdate hook before its pod went (the hooks' outputs are the rollout's
      // activity results); the leader handed leadership away first.
      List<String> preUpdates = hookOutputs(service, "rollout").stream()
          .filter(out -> out.contains("is a follower") || out.contains("moved leadership from")).toList();
      assertEquals(3, preUpdates.size(), preUpdates.toString());
      assertTrue(preUpdates.stream().anyMatch(out -> out.contains("moved leadership from")), preUpdates.toString());

      // kill -9 of Ordinal while a preCreate hook runs (made slow): after the restart the scale
      // finishes, the member was added once and the cluster is healthy.
      String hooks = api.set(NS, "etcd").at("/metadata/annotations/ordinal.io~1member-hooks").asText();
      String peerLine = hooks.lines().filter(l -> l.contains("peer=\"http://$ORDINAL_MEMBER_FQDN:2380\"")).findFirst()
          .orElseThrow();
      String indent = peerLine.substring(0, peerLine.indexOf("peer="));
      String slow = hooks.replace(peerLine + "\n", peerLine + "\n" + indent + "sleep 6\n");
      assertTrue(!slow.equals(hooks), "the preCreate hook could not be made slow");
      ObjectNode patch = KubeJson.JSON.createObjectNode();
      patch.putObject("metadata").putObject("annotations").put("ordinal.io/member-hooks", slow);
      patch.putObject("spec").put("replicas", 4);
      assertEquals(200, api.patch(Paths.set(NS, "etcd"), "application/merge-patch+json", KubeJson.JSON.writeValueAsString(patch)).code());
      Api.sleep(3_000);
      assertEquals(404, api.get(Paths.pod(NS, "etcd-3")).code(), "the hook should still be running");
      service.kill9();
      service.start();
      api.awaitConverged(NS, "etcd", 4, TIMEOUT);
      assertMembersArePods(api, 4);

      writer.stop();
      report.append("\nWrites during all of it: ").append(writer.acknowledged.get()).append(" acknowledged, ")
          .append(writer.retried.get()).append(" attempts retried (a leader change or a member restarting), ")
          .append(writer.lost.get()).append(" given up after 10 s\n");
      Path out = Path.of("target", "benchmarks", "etcd-scale.md");
      Files.createDirectories(out.getParent());
      Files.writeString(out, report.toString());
      System.out.println(report);
      assertEquals(0, writer.lost.get(), "writes failed for 10 s in a row");
      assertTrue(writer.acknowledged.get() > 20, "too few writes: " + writer.acknowledged.get());
      // Every acknowledged write is there.
      String keys = etcdctl(api, "get", "--prefix", "--keys-only", "key-");
      int found = (int) keys.lines().filter(line -> !line.isBlank()).count();
      assertEquals(writer.acknowledged.get(), found, "acknowledged writes missing");
      api.delete(Paths.set(NS, "etcd"));
    }
  }

  /** The results of the activities (the hooks) of the first {@code operation} of the namespace. */
  static List<String> hookOutputs(OrdinalService service, String operation) {
    return service.withTemporal(client -> {
      String id = client.listExecutions("OrdinalNamespace = '" + NS + "' AND OrdinalOperation = '" + operation + "'")
          .map(e -> e.getExecution().getWorkflowId()).min(java.util.Comparator.naturalOrder()).orElseThrow();
      List<String> outputs = new ArrayList<>();
      for (var event : client.fetchHistory(id).getEvents()) {
        if (event.getEventType() == EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED) {
          event.getActivityTaskCompletedEventAttributes().getResult().getPayloadsList()
              .forEach(payload -> outputs.add(payload.getData().toStringUtf8()));
        }
      }
      return outputs;
    });
  }

  /** {@code etcdctl member list} names exactly the set's pods, every member started, and the cluster is healthy. */
  static void assertMembersArePods(Api api, int replicas) throws Exception {
    List<String> pods = new ArrayList<>();
    for (int i = 0; i < replicas; i++) {
      pods.add("etcd-" + i);
    }
    assertMembersAre(api, NS, pods);
  }

  /** {@code etcdctl member list} in namespace {@code ns} names exactly {@code pods} (sorted), and all are healthy. */
  static void assertMembersAre(Api api, String ns, List<String> pods) throws Exception {
    Instant deadline = Instant.now().plus(TIMEOUT);
    List<String> members = List.of();
    while (Instant.now().isBefore(deadline)) {
      members = new ArrayList<>(new TreeSet<>(memberIds(api, ns).keySet()));
      if (members.equals(pods)) {
        break;
      }
      Thread.sleep(500);
    }
    assertEquals(pods, members, "etcdctl member list");
    String health = etcdctlAt(endpoints(api, ns), "endpoint", "health", "--cluster");
    assertEquals(pods.size(), health.lines().filter(line -> line.contains("is healthy")).count(), health);
  }

  /** Member name to id, from {@code etcdctl member list} (an unstarted member has no name yet: "?"). */
  static Map<String, String> memberIds(Api api) throws Exception {
    return memberIds(api, NS);
  }

  static Map<String, String> memberIds(Api api, String ns) throws Exception {
    Map<String, String> ids = new java.util.TreeMap<>();
    for (String line : etcdctlAt(endpoints(api, ns), "member", "list").lines().toList()) {
      String[] fields = line.split(", ");
      if (fields.length >= 3) {
        ids.put(fields[2].isEmpty() ? "?" + fields[0] : fields[2], fields[0]);
      }
    }
    return ids;
  }

  static String endpoints(Api api) {
    return endpoints(api, NS);
  }

  /** The client URLs of the etcd pods of {@code ns}. */
  static String endpoints(Api api, String ns) {
    List<String> endpoints = new ArrayList<>();
    for (JsonNode pod : api.pods(ns, "app=etcd")) {
      if (pod.at("/metadata/deletionTimestamp").isMissingNode() && pod.at("/status/podIP").isTextual()) {
        endpoints.add("http://" + pod.at("/status/podIP").asText() + ":2379");
      }
    }
    return String.join(",", endpoints);
  }

  static String etcdctl(Api api, String... args) throws IOException, InterruptedException {
    return etcdctlAt(endpoints(api), args);
  }

  static String etcdctlAt(String endpoints, String... args) throws IOException, InterruptedException {
    List<String> argv = new ArrayList<>(List.of("etcdctl", "--endpoints=" + endpoints, "--dial-timeout=2s",
        "--command-timeout=5s"));
    argv.addAll(List.of(args));
    Command.Result result;
    try {
      result = Command.run(Duration.ofSeconds(20), Map.of("ETCDCTL_API", "3"), null, null, argv);
    } catch (AssertionError e) {
      throw new IOException(e.getMessage(), e); // as a failed write: the writer retries those
    }
    if (result.code() != 0) {
      throw new IOException("etcdctl " + String.join(" ", args) + ": " + result.output());
    }
    return result.output();
  }

  /**
   * One scale's wall time split into the membership hooks (their activities in the operation's
   * history), the pods' start to Ready, and the rest.
   */
  static String timings(OrdinalService service, Api api, int from, int to, Duration wall) {
    long hookMillis = service.withTemporal(client -> {
      long total = 0;
      var executions = client.listExecutions("OrdinalNamespace = '" + NS + "' AND OrdinalOperation = 'scale'");
      String latest = executions.map(e -> e.getExecution().getWorkflowId())
          .max(java.util.Comparator.comparingLong(id -> Long.parseLong(id.substring(id.lastIndexOf('-') + 1))))
          .orElse(null);
      if (latest == null) {
        return 0L;
      }
      Map<Long, Long> scheduled = new java.util.HashMap<>();
      for (var event : client.fetchHistory(latest).getEvents()) {
        // From scheduled to completed: a hook's retries and their back-off count as the hook's time.
        if (event.getEventType() == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED) {
          scheduled.put(event.getEventId(), millis(event.getEventTime()));
        } else if (event.getEventType() == EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED) {
          Long started = scheduled.get(event.getActivityTaskCompletedEventAttributes().getScheduledEventId());
          total += started == null ? 0 : millis(event.getEventTime()) - started;
        }
      }
      return total;
    });
    long podMillis = 0;
    for (int i = from; i < to; i++) {
      JsonNode pod = api.pod(NS, "etcd-" + i);
      podMillis += Math.max(0, Pods.readySince(pod) - Pods.created(pod));
    }
    long wallMillis = wall.toMillis();
    return "| %d → %d | %.1f s | %.1f s | %.1f s | %.1f s |%n".formatted(from, to, wallMillis / 1000.0,
        hookMillis / 1000.0, podMillis / 1000.0, Math.max(0, wallMillis - hookMillis - podMillis) / 1000.0);
  }

  /** The set's and its pods' events since {@code start}, and when each pod became Ready. */
  static String timeline(Api api, Instant start) {
    java.util.TreeMap<Long, String> lines = new java.util.TreeMap<>();
    for (JsonNode event : api.events(NS)) {
      String at = event.path("eventTime").asText(event.path("lastTimestamp").asText());
      long t = Instant.parse(at.isEmpty() ? event.path("lastTimestamp").asText() : at).toEpochMilli() - start.toEpochMilli();
      if (t >= 0) {
        String message = event.path("message").asText();
        lines.merge(t, "- " + t + " ms " + event.path("reason").asText() + ": "
            + (message.length() > 100 ? message.substring(0, 100) + "…" : message), (a, b) -> a + "\n" + b);
      }
    }
    for (JsonNode pod : api.pods(NS, "app=etcd")) {
      long ready = Pods.readySince(pod) - start.toEpochMilli();
      if (ready >= 0) {
        lines.merge(ready, "- " + ready + " ms Ready: " + pod.at("/metadata/name").asText(), (a, b) -> a + "\n" + b);
      }
    }
    return String.join("\n", lines.values()) + "\n";
  }

  static long millis(com.google.protobuf.Timestamp t) {
    return t.getSeconds() * 1000 + t.getNanos() / 1_000_000;
  }

  /** A client writing key-N every 100 ms, each write retried for up to 10 s across the current members. */
  static final class Writer {
    final Api api;
    final AtomicBoolean running = new AtomicBoolean(true);
    final AtomicInteger acknowledged = new AtomicInteger();
    final AtomicInteger retried = new AtomicInteger();
    final AtomicInteger lost = new AtomicInteger();
    String endpoints = "";
    Thread thread;

    Writer(Api api) {
      this.api = api;
    }

    void start() {
      thread = Thread.ofPlatform().daemon().name("etcd-writer").start(() -> {
        for (int n = 0; running.get(); n++) {
          Instant giveUp = Instant.now().plusSeconds(10);
          boolean done = false;
          while (!done && Instant.now().isBefore(giveUp)) {
            try {
              try {
                endpoints = endpoints(api);
              } catch (RuntimeException e) {
                // Ordinal is down (killed on purpose): etcd is not, write to the members last seen.
              }
              etcdctlAt(endpoints, "put", "key-" + n, Integer.toString(n));
              done = true;
            } catch (IOException | RuntimeException e) {
              retried.incrementAndGet();
              Api.sleep(200);
            } catch (InterruptedException e) {
              return;
            }
          }
          (done ? acknowledged : lost).incrementAndGet();
          Api.sleep(100);
        }
      });
    }

    void stop() throws InterruptedException {
      running.set(false);
      thread.join(30_000);
    }
  }
}
