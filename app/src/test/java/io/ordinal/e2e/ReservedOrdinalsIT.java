package io.ordinal.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.ordinal.store.KubeJson;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * {@code ordinal.io/reserved-ordinals} end to end on the local driver: a reserved member goes (after
 * the ordinal that takes its place), the set keeps its size, and the member comes back with its data
 * when the reservation is lifted; a real etcd cluster loses a member whose disk failed through its
 * preDelete hook and gets it back through preCreate.
 */
@E2eTest
class ReservedOrdinalsIT {
  static final Duration TIMEOUT = Duration.ofSeconds(180);
  static Api api;
  static OrdinalService service;

  @Test
  void aReservedMemberIsReplacedByTheNextFreeOrdinalAndComesBackWithItsDataWhenUnreserved(@Namespace String ns) {
    ObjectNode set = Manifests.volumeIdSet("vol", 3);
    api.createSet(ns, set);
    api.awaitConverged(ns, "vol", 3, TIMEOUT);
    String id = api.awaitLog(ns, "vol-1");
    long generation = api.set(ns, "vol").at("/metadata/generation").asLong();

    reserve(ns, "vol", "1");
    awaitPods(ns, "vol", List.of("vol-0", "vol-2", "vol-3"));
    assertEquals(generation + 1, api.set(ns, "vol").at("/metadata/generation").asLong(),
        "a reservation is a spec change");
    List<String> operations = api.podOperations(ns);
    assertTrue(operations.indexOf("-vol-1") < operations.indexOf("+vol-3"),
        "the reserved member goes before the ordinal taking its place comes: " + operations);
    assertTrue(api.events(ns).stream().anyMatch(e -> e.at("/involvedObject/name").asText().equals("vol")
        && e.path("message").asText().contains("ordinal 1 is reserved")), "an event says why vol-1 went");
    assertEquals(200, api.get(Paths.core(ns, "persistentvolumeclaims/www-vol-1")).code(), "whenScaled: Retain keeps it");

    reserve(ns, "vol", null);
    awaitPods(ns, "vol", List.of("vol-0", "vol-1", "vol-2"));
    assertEquals(id, api.awaitLog(ns, "vol-1"), "vol-1 came back with its volume");
    operations = api.podOperations(ns);
    assertTrue(operations.lastIndexOf("+vol-1") < operations.indexOf("-vol-3"), operations.toString());
  }

  @Test
  void aReservationThatIsNotAListOfOrdinalsIsRefusedWithItsFieldPath(@Namespace String ns) {
    api.createSet(ns, Manifests.web("web", 1, 0, java.util.Map.of()));
    for (String value : List.of("1,x", "5-3", "0-5000", "-1")) {
      Api.Reply reply = api.patch(Paths.set(ns, "web"), "application/merge-patch+json",
          "{\"metadata\":{\"annotations\":{\"ordinal.io/reserved-ordinals\":\"" + value + "\"}}}");
      assertEquals(422, reply.code(), value + ": " + reply.body());
      assertEquals("metadata.annotations[ordinal.io/reserved-ordinals]",
          reply.json().at("/details/causes/0/field").asText(), reply.body());
    }
    // A pod name past 63 characters because the reservation moves the highest ordinal up.
    String longName = "w".repeat(61);
    api.createSet(ns, Manifests.web(longName, 10, 0, java.util.Map.of()));
    Api.Reply tooFar = api.patch(Paths.set(ns, longName), "application/merge-patch+json",
        "{\"metadata\":{\"annotations\":{\"ordinal.io/reserved-ordinals\":\"3\"}}}");
    assertEquals(422, tooFar.code(), tooFar.body());
    assertTrue(tooFar.body().contains(longName + "-10"), tooFar.body());
  }

  /**
   * deploy/examples/etcd.yaml at 5 members. Member 2 loses its disk: it restarts empty and cannot
   * rejoin, and etcd refuses to add a member while one is down. Reserving ordinal 2 removes etcd-2
   * first (preDelete: member remove) with its claim (whenScaled: Delete), then adds etcd-5
   * (preCreate: member add). Lifting the reservation adds
   * etcd-2 back as a new, empty member and removes etcd-5; the cluster is healthy at each stage.
   */
  @Test
  void anEtcdMemberWhoseDiskFailedIsRemovedThroughItsHookAndAddedBackWhenUnreserved(@Namespace String ns)
      throws Exception {
    String manifest = Files.readString(Path.of("..", "deploy", "examples", "etcd.yaml"))
        .replace("  replicas: 3\n", "  replicas: 5\n");
    Api.Reply created = api.post(Paths.sets(ns), "application/yaml", manifest);
    assertEquals(201, created.code(), created.body());
    api.awaitConverged(ns, "etcd", 5, TIMEOUT);
    EtcdExampleIT.assertMembersAre(api, ns, List.of("etcd-0", "etcd-1", "etcd-2", "etcd-3", "etcd-4"));

    // The disk of etcd-2 fails: its pod comes back with an empty volume and never becomes Ready.
    Path volume = service.dataDir.resolve("local/volumes/" + ns + "/data-etcd-2");
    try (Stream<Path> files = Files.walk(volume.resolve("data"))) {
      files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
    }
    String uid = api.pod(ns, "etcd-2").at("/metadata/uid").asText();
    assertEquals(200, api.delete(Paths.pod(ns, "etcd-2")).code());
    api.await(Paths.pod(ns, "etcd-2"), TIMEOUT, r -> r.code() == 200
        && !r.json().at("/metadata/uid").asText().equals(uid));
    Api.sleep(5_000);
    assertTrue(!isReady(api.pod(ns, "etcd-2")), "etcd-2 cannot rejoin without its data");

    reserve(ns, "etcd", "2");
    awaitPods(ns, "etcd", List.of("etcd-0", "etcd-1", "etcd-3", "etcd-4", "etcd-5"));
    EtcdExampleIT.assertMembersAre(api, ns, List.of("etcd-0", "etcd-1", "etcd-3", "etcd-4", "etcd-5"));
    api.await(Paths.core(ns, "persistentvolumeclaims/data-etcd-2"), TIMEOUT, r -> r.code() == 404);

    reserve(ns, "etcd", null);
    awaitPods(ns, "etcd", List.of("etcd-0", "etcd-1", "etcd-2", "etcd-3", "etcd-4"));
    EtcdExampleIT.assertMembersAre(api, ns, List.of("etcd-0", "etcd-1", "etcd-2", "etcd-3", "etcd-4"));
    List<String> operations = api.podOperations(ns);
    assertTrue(operations.lastIndexOf("+etcd-2") < operations.indexOf("-etcd-5"), operations.toString());
    api.delete(Paths.set(ns, "etcd"));
  }

  /** Sets (or, with null, removes) the set's reserved ordinals. */
  static void reserve(String ns, String name, String ordinals) {
    ObjectNode patch = KubeJson.JSON.createObjectNode();
    ObjectNode annotations = patch.putObject("metadata").putObject("annotations");
    if (ordinals == null) {
      annotations.putNull("ordinal.io/reserved-ordinals");
    } else {
      annotations.put("ordinal.io/reserved-ordinals", ordinals);
    }
    Api.Reply reply = api.patch(Paths.set(ns, name), "application/merge-patch+json", KubeJson.write(patch));
    assertEquals(200, reply.code(), reply.body());
  }

  static List<String> podNames(String ns, String app) {
    return api.pods(ns, "app=" + app).stream().map(p -> p.at("/metadata/name").asText()).sorted().toList();
  }

  /** Waits until the set's pods are exactly {@code names}, each Ready, and its status has caught up. */
  static void awaitPods(String ns, String app, List<String> names) {
    api.await(Paths.core(ns, "pods") + "?labelSelector=app%3D" + app, TIMEOUT, r -> {
      List<String> ready = new java.util.ArrayList<>();
      r.json().path("items").forEach(p -> {
        if (isReady(p) && p.at("/metadata/deletionTimestamp").isMissingNode()) {
          ready.add(p.at("/metadata/name").asText());
        }
      });
      return r.json().path("items").size() == names.size() && ready.stream().sorted().toList().equals(names);
    });
    api.awaitConverged(ns, app, names.size(), TIMEOUT);
  }

  static boolean isReady(JsonNode pod) {
    for (JsonNode condition : pod.at("/status/conditions")) {
      if (condition.path("type").asText().equals("Ready")) {
        return condition.path("status").asText().equals("True");
      }
    }
    return false;
  }
}
