package io.ordinal.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.ordinal.store.KubeJson;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * Two installations on one machine, each with its own data dir (and so its own ports, PostgreSQL,
 * Temporal, pod network block and runtime state), run deploy/examples/etcd.yaml at once under the
 * same namespace and names: what a development server and the test suite beside it do. Nothing of
 * one is the other's, and removing one's pods leaves the other's running.
 */
class TwoInstallationsIT {
  static final String NS = EtcdExampleIT.NS;

  /** What of the machine one installation's pods use. */
  record Footprint(String bridge, Map<String, String> podIps, Set<String> runtimeIds, Set<String> cgroups,
      Set<String> netns, Map<String, Long> pids) {}

  @Test
  void twoInstallationsRunTheEtcdExampleAtOnceWithoutSharingAnything() throws Exception {
    String manifest = Files.readString(Path.of("..", "deploy", "examples", "etcd.yaml"));
    try (OrdinalService a = new OrdinalService("two-a"); OrdinalService b = new OrdinalService("two-b")) {
      // Side by side, as two people would start them. A port picked for B is taken before it starts
      // (as by another suite's service on this machine): B refuses it before it starts anything,
      // naming it, and the harness picks others.
      CompletableFuture<Void> startA = CompletableFuture.runAsync(() -> start(a));
      int taken = b.httpPort;
      try (ServerSocket squatter = new ServerSocket(taken, 50, InetAddress.getLoopbackAddress())) {
        start(b);
      }
      startA.join();
      assertNotEquals(taken, b.httpPort);
      assertTrue(Files.readString(b.dataDir.resolve("service.log"))
          .contains("ordinal: port " + taken + " on 127.0.0.1 (the API) is in use"), "B's log says why it stopped");
      Api apiA = a.api();
      Api apiB = b.api();
      for (Api api : List.of(apiA, apiB)) {
        Api.Reply created = api.post(Paths.sets(NS), "application/yaml", manifest);
        assertEquals(201, created.code(), created.body());
      }
      apiA.awaitConverged(NS, "etcd", 3, EtcdExampleIT.TIMEOUT);
      apiB.awaitConverged(NS, "etcd", 3, EtcdExampleIT.TIMEOUT);

      Footprint onA = footprint(a, apiA);
      Footprint onB = footprint(b, apiB);
      assertNotEquals(onA.bridge(), onB.bridge());
      assertDisjoint(onA.podIps().values(), onB.podIps().values(), "pod addresses");
      assertDisjoint(onA.runtimeIds(), onB.runtimeIds(), "runtime containers");
      assertDisjoint(onA.cgroups(), onB.cgroups(), "cgroups");
      assertDisjoint(onA.netns(), onB.netns(), "network namespaces");
      assertEquals(6, onA.runtimeIds().size(), "a sandbox and a container per pod: " + onA.runtimeIds());
      // Each pod's veth is on its own installation's bridge.
      for (var installation : List.of(Map.entry(apiA, onA), Map.entry(apiB, onB))) {
        for (JsonNode pod : installation.getKey().pods(NS, "app=etcd")) {
          String veth = "ov" + pod.at("/metadata/uid").asText().replace("-", "").substring(0, 12);
          assertEquals(installation.getValue().bridge(),
              Files.readSymbolicLink(Path.of("/sys/class/net", veth, "master")).getFileName().toString(), veth);
        }
      }

      // Two healthy clusters of three, each of its own pods only (the member ids may well be the same:
      // etcd derives them from the peer URLs, which are names, and the cluster token).
      EtcdExampleIT.assertMembersArePods(apiA, 3);
      EtcdExampleIT.assertMembersArePods(apiB, 3);
      assertMembersAt(apiA, onA);
      assertMembersAt(apiB, onB);
      EtcdExampleIT.etcdctl(apiA, "put", "owner", "a");
      EtcdExampleIT.etcdctl(apiB, "put", "owner", "b");
      assertEquals("a", EtcdExampleIT.etcdctl(apiA, "get", "owner", "--print-value-only").strip());
      assertEquals("b", EtcdExampleIT.etcdctl(apiB, "get", "owner", "--print-value-only").strip());

      // A's namespace goes, then A itself: B's pods run on, the same processes, its cluster healthy.
      Api.Reply deleted = apiA.delete("/api/v1/namespaces/" + NS);
      assertEquals(200, deleted.code(), deleted.body());
      apiA.await(Paths.core(NS, "pods"), EtcdExampleIT.TIMEOUT, r -> r.code() == 200 && r.json().path("items").isEmpty());
      awaitNoContainers(a);
      a.close();
      Footprint after = footprint(b, apiB);
      assertEquals(onB, after, "B's pods after A's namespace and A are gone");
      for (long pid : onB.pids().values()) {
        assertTrue(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), "B's etcd process " + pid);
      }
      EtcdExampleIT.assertMembersArePods(apiB, 3);
      assertEquals("b", EtcdExampleIT.etcdctl(apiB, "get", "owner", "--print-value-only").strip());
      apiB.delete(Paths.set(NS, "etcd"));
    }
  }

  private static void start(OrdinalService service) {
    try {
      service.start();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** The bridge of the installation's claimed block, and what its runtime runs for the set's pods. */
  private static Footprint footprint(OrdinalService service, Api api) throws IOException {
    JsonNode claim = KubeJson.JSON.readTree(service.dataDir.resolve("local/network.json").toFile());
    String bridge = "ordinal" + claim.path("slot").asInt();
    assertTrue(Files.isDirectory(Path.of("/sys/class/net", bridge)), "no bridge " + bridge);
    Map<String, String> ips = new TreeMap<>();
    for (JsonNode pod : api.pods(NS, "app=etcd")) {
      ips.put(pod.at("/metadata/name").asText(), pod.at("/status/podIP").asText());
    }
    Set<String> ids = new HashSet<>();
    Set<String> cgroups = new HashSet<>();
    Set<String> netns = new HashSet<>();
    Map<String, Long> pids = new TreeMap<>();
    for (JsonNode container : service.localContainers()) {
      String id = container.path("id").asText();
      ids.add(id);
      JsonNode config = KubeJson.JSON.readTree(Path.of(container.path("bundle").asText(), "config.json").toFile());
      cgroups.add(config.at("/linux/cgroupsPath").asText());
      for (JsonNode namespace : config.at("/linux/namespaces")) {
        if (namespace.path("type").asText().equals("network") && namespace.has("path")) {
          netns.add(namespace.path("path").asText());
        }
      }
      if (!config.at("/process/args/0").asText().endsWith("catatonit")) {
        pids.put(id, container.path("pid").asLong());
      }
    }
    return new Footprint(bridge, ips, ids, cgroups, netns, pids);
  }

  /** {@code etcdctl member list}: every member's client URL is at one of this installation's pods. */
  private static void assertMembersAt(Api api, Footprint footprint) throws Exception {
    List<String> clients = new ArrayList<>();
    for (String line : EtcdExampleIT.etcdctl(api, "member", "list").lines().toList()) {
      String[] fields = line.split(", ");
      if (fields.length >= 5) {
        clients.add(fields[4]);
      }
    }
    List<String> expected = footprint.podIps().values().stream().map(ip -> "http://" + ip + ":2379").sorted().toList();
    assertEquals(expected, clients.stream().sorted().toList(), "client URLs of the members");
  }

  private static void awaitNoContainers(OrdinalService service) {
    for (int i = 0; i < 600 && !service.localContainers().isEmpty(); i++) {
      Api.sleep(100);
    }
    assertEquals(List.of(), service.localContainers().stream().map(c -> c.path("id").asText()).toList());
  }

  private static void assertDisjoint(Collection<String> a, Collection<String> b, String what) {
    Set<String> shared = new HashSet<>(a);
    shared.retainAll(b);
    assertEquals(Set.of(), shared, what + " of both installations: " + a + " and " + b);
  }
}
