package io.ordinal.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.ordinal.store.KubeJson;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Services: the Kubernetes documentation's manifest (a headless Service and its StatefulSet, one
 * file) applied by kubectl as it is, the Service's Endpoints made from its selector, and ClusterIPs
 * allocated from the service network, each held by one Service at a time. The service here runs the
 * sim driver, so that the manifest's nginx needs no command.
 */
class ServicesIT {
  static OrdinalService service;
  static Api api;

  @BeforeAll
  static void start() throws Exception {
    service = new OrdinalService("services", Map.of("ORDINAL_DRIVER", "sim"));
    service.start();
    api = service.api();
  }

  @AfterAll
  static void stop() {
    if (service != null) {
      service.close();
    }
  }

  @Test
  void theDocumentationsManifestAppliesAsItIsAndItsServiceListsTheSetsPods() throws Exception {
    String ns = "docs";
    Kubectl kubectl = new Kubectl(api.base(), api.caCertificate(), api.token(), ns);
    String manifest = Files.readString(Path.of("..", "deploy", "examples", "docs-web.yaml"));
    Kubectl.Result applied = kubectl.run(manifest, Map.of(), "apply", "-f", "-");
    assertEquals(0, applied.code(), applied.toString());
    assertTrue(applied.out().contains("service/nginx created") && applied.out().contains("statefulset.apps/web created"),
        applied.toString());
    api.awaitConverged(ns, "web", 3, Duration.ofSeconds(120));

    Kubectl.Result services = kubectl.run("get", "service", "nginx");
    assertTrue(services.out().matches("(?s)NAME\\s+TYPE\\s+CLUSTER-IP\\s+EXTERNAL-IP\\s+PORT\\(S\\)\\s+AGE\\s+"
        + "nginx\\s+ClusterIP\\s+None\\s+<none>\\s+80/TCP\\s+\\S+\\s*"), services.toString());
    // Simulated pods have no address, so the Service has Endpoints without members (as upstream for pods without IPs).
    assertEquals(0, kubectl.run("get", "endpoints", "nginx").code());
    // And one placeholder EndpointSlice, without ports or endpoints, as upstream's controller writes then.
    String placeholder = "(?s)NAME\\s+ADDRESSTYPE\\s+PORTS\\s+ENDPOINTS\\s+AGE\\s+nginx-\\S{5}\\s+IPv4\\s+<unset>\\s+<unset>\\s+\\S+\\s*";
    Kubectl.Result slices = awaitOutput(kubectl, placeholder, "get", "endpointslices", "-l", "kubernetes.io/service-name=nginx");
    assertTrue(slices.out().matches(placeholder), slices.toString());

    Kubectl.Result again = kubectl.run(manifest, Map.of(), "apply", "-f", "-");
    assertTrue(again.out().contains("service/nginx unchanged"), again.toString());
  }

  /**
   * Local pods have addresses: the Service's Endpoints are the pods its selector matches (the set's
   * pods are labelled app=db), by hostname, as their subdomain is the Service (serviceName nginx).
   */
  @Test
  void aServicesEndpointsAreThePodsItsSelectorMatchesWithTheirAddresses() {
    String ns = "members";
    Api.Reply service = api.post("/api/v1/namespaces/" + ns + "/services", "application/json", """
        {"metadata":{"name":"nginx"},"spec":{"clusterIP":"None","selector":{"app":"db"},
         "ports":[{"name":"pg","port":5432}]}}""");
    assertEquals(201, service.code(), service.body());
    api.createSet(ns, Manifests.commandSet("db", 2, "sleep", "3600"));
    api.awaitConverged(ns, "db", 2, Duration.ofSeconds(120));
    JsonNode endpoints = api.get("/api/v1/namespaces/" + ns + "/endpoints/nginx").json();
    List<String> hostnames = new ArrayList<>();
    endpoints.at("/subsets/0/addresses").forEach(a -> {
      hostnames.add(a.path("hostname").asText());
      assertTrue(a.path("ip").asText().matches("\\d+\\.\\d+\\.\\d+\\.\\d+"), a.toString());
    });
    assertEquals(List.of("db-0", "db-1"), hostnames.stream().sorted().toList(), endpoints.toString());
    assertEquals(5432, endpoints.at("/subsets/0/ports/0/port").asInt(), endpoints.toString());
    assertEquals("pg", endpoints.at("/subsets/0/ports/0/name").asText(), endpoints.toString());
    assertEquals(200, api.delete(Paths.set(ns, "db")).code());
  }

  /**
   * EndpointSlices as upstream's controller publishes them: the ready local pods the Service selects,
   * with their addresses and the named targetPort resolved; a pod that goes unready flips its
   * endpoint's {@code ready} to false, under the same slice name, and a watch (kubectl's) sees it;
   * view may read them.
   */
  @Test
  void aServicesEndpointSlicesListItsPodsAndFollowTheirReadiness() throws Exception {
    String ns = "slices";
    Api.Reply created = api.post("/api/v1/namespaces/" + ns + "/services", "application/json", """
        {"metadata":{"name":"db","labels":{"tier":"data"}},"spec":{"clusterIP":"None","selector":{"app":"db"},
         "ports":[{"name":"pg","port":15432,"targetPort":"pg"}]}}""");
    assertEquals(201, created.code(), created.body());
    String serviceUid = created.json().at("/metadata/uid").asText();
    // Ready while /data/ready exists, so that a test can take a pod out by removing it.
    ObjectNode set = Manifests.commandSet("db", 2, "/bin/sh", "-c", "touch /data/ready; exec sleep 3600");
    ((ObjectNode) set.get("spec")).put("serviceName", "db");
    ObjectNode container = (ObjectNode) set.at("/spec/template/spec/containers/0");
    container.putArray("ports").addObject().put("name", "pg").put("containerPort", 5432);
    container.putArray("volumeMounts").addObject().put("name", "www").put("mountPath", "/data");
    container.putObject("readinessProbe").put("periodSeconds", 1).putObject("exec").putArray("command")
        .add("test").add("-f").add("/data/ready");
    api.createSet(ns, set);
    api.awaitConverged(ns, "db", 2, Duration.ofSeconds(120));
    List<String> ips = List.of(api.pod(ns, "db-0").at("/status/podIP").asText(),
        api.pod(ns, "db-1").at("/status/podIP").asText());

    Kubectl kubectl = new Kubectl(api.base(), api.caCertificate(), api.token(), ns);
    String row = "(?s)NAME\\s+ADDRESSTYPE\\s+PORTS\\s+ENDPOINTS\\s+AGE\\s+db-[bcdfghjklmnpqrstvwxz2456789]{5}\\s+IPv4\\s+5432\\s+"
        + Pattern.quote(String.join(",", ips)) + "\\s+\\S+\\s*";
    Kubectl.Result table = awaitOutput(kubectl, row, "get", "endpointslices", "-l", "kubernetes.io/service-name=db");
    assertTrue(table.out().matches(row), table.toString());

    String list = "/apis/discovery.k8s.io/v1/namespaces/" + ns + "/endpointslices?labelSelector=kubernetes.io/service-name%3Ddb";
    JsonNode slice = api.get(list).json().at("/items/0");
    String name = slice.at("/metadata/name").asText();
    assertEquals("db-", slice.at("/metadata/generateName").asText());
    assertEquals("endpointslice-controller.k8s.io", slice.at("/metadata/labels/endpointslice.kubernetes.io~1managed-by").asText());
    assertEquals("data", slice.at("/metadata/labels/tier").asText(), "the Service's labels are the slice's");
    assertEquals("", slice.at("/metadata/labels/service.kubernetes.io~1headless").asText("absent"));
    assertEquals(List.of("Service", "db", serviceUid, "true"), List.of(slice.at("/metadata/ownerReferences/0/kind").asText(),
        slice.at("/metadata/ownerReferences/0/name").asText(), slice.at("/metadata/ownerReferences/0/uid").asText(),
        slice.at("/metadata/ownerReferences/0/controller").asText()));
    assertEquals("IPv4", slice.at("/addressType").asText());
    assertEquals(List.of("pg", "5432", "TCP"), List.of(slice.at("/ports/0/name").asText(),
        slice.at("/ports/0/port").asText(), slice.at("/ports/0/protocol").asText()), "the named targetPort resolved");
    for (int i = 0; i < 2; i++) {
      JsonNode endpoint = slice.at("/endpoints/" + i);
      assertEquals(List.of(ips.get(i)), List.of(endpoint.at("/addresses/0").asText()), endpoint.toString());
      assertEquals("db-" + i, endpoint.at("/hostname").asText(), "its subdomain is the Service (serviceName db)");
      assertEquals("db-" + i, endpoint.at("/targetRef/name").asText());
      assertEquals("Pod", endpoint.at("/targetRef/kind").asText());
      assertFalse(endpoint.at("/nodeName").asText().isEmpty(), endpoint.toString());
      assertEquals(List.of(true, true, false), List.of(endpoint.at("/conditions/ready").asBoolean(),
          endpoint.at("/conditions/serving").asBoolean(), endpoint.at("/conditions/terminating").asBoolean()));
    }
    String one = "/apis/discovery.k8s.io/v1/namespaces/" + ns + "/endpointslices/" + name;
    assertEquals(slice.at("/metadata/resourceVersion").asText(), api.get(one).json().at("/metadata/resourceVersion").asText(),
        "a slice that did not change keeps its resourceVersion");

    // kubectl's watch, as kubectl get -w --output-watch-events -o json prints it: one event after another.
    List<JsonNode> events = new CopyOnWriteArrayList<>();
    Process watch = kubectl.startReading("get", "endpointslices", "-l", "kubernetes.io/service-name=db", "-w",
        "--output-watch-events", "-o", "json");
    Thread.ofVirtual().start(() -> {
      try (MappingIterator<JsonNode> read = KubeJson.JSON.readerFor(JsonNode.class).readValues(watch.getInputStream())) {
        while (read.hasNext()) {
          events.add(read.next());
        }
      } catch (Exception e) {
        // the watch ended
      }
    });
    try {
      awaitEvent(events, "ADDED", name, true);
      assertEquals(0, kubectl.run("exec", "db-1", "--", "rm", "/data/ready").code());
      awaitEvent(events, "MODIFIED", name, false);
    } finally {
      watch.destroy();
    }
    JsonNode flipped = api.get(one).json();
    assertEquals(List.of(true, false), List.of(flipped.at("/endpoints/0/conditions/ready").asBoolean(),
        flipped.at("/endpoints/1/conditions/ready").asBoolean()), flipped.toString());
    assertTrue(flipped.at("/endpoints/1/conditions/serving").isBoolean());
    assertTrue(flipped.at("/metadata/generation").asLong() > slice.at("/metadata/generation").asLong());

    // As a user bound to view (by a token of theirs: Ordinal does not impersonate, so --as would ask as admin).
    Kubectl viewer = new Kubectl(api.base(), api.caCertificate(), token("slice-viewer"), ns);
    api.bind("slice-viewer", "view", ns);
    Kubectl.Result canI = viewer.run("auth", "can-i", "list", "endpointslices");
    assertEquals("yes", canI.out().strip(), canI.toString());
    assertEquals("yes", viewer.run("auth", "can-i", "watch", "endpointslices.discovery.k8s.io").out().strip());
    assertEquals("no", viewer.run("auth", "can-i", "create", "endpointslices").out().strip());
    assertTrue(viewer.run("get", "endpointslices").ok().out().contains(name));
    Kubectl unbound = new Kubectl(api.base(), api.caCertificate(), token("slice-stranger"), ns);
    assertEquals("no", unbound.run("auth", "can-i", "list", "endpointslices").out().strip());

    assertEquals(200, api.delete(Paths.set(ns, "db")).code());
    assertEquals(200, api.delete("/api/v1/namespaces/" + ns + "/services/db").code());
    api.await(list, Duration.ofSeconds(30), r -> r.code() == 200 && r.json().path("items").isEmpty());
  }

  private static Kubectl.Result awaitOutput(Kubectl kubectl, String regex, String... args) {
    Instant deadline = Instant.now().plusSeconds(30);
    Kubectl.Result result = kubectl.run(args);
    while (!result.out().matches(regex) && Instant.now().isBefore(deadline)) {
      Api.sleep(500);
      result = kubectl.run(args);
    }
    return result;
  }

  /** A bearer token of {@code user}'s, issued by the admin. */
  private static String token(String user) {
    Api.Reply token = api.post("/apis/auth.ordinal.io/v1/tokens", "application/json",
        "{\"spec\":{\"user\":\"" + user + "\"}}");
    assertEquals(201, token.code(), token.body());
    return token.json().at("/status/token").asText();
  }

  /** Waits for a watch event of the slice {@code name} in which db-1's endpoint has {@code ready}. */
  private static void awaitEvent(List<JsonNode> events, String type, String name, boolean ready) {
    Instant deadline = Instant.now().plusSeconds(60);
    while (events.stream().noneMatch(e -> e.path("type").asText().equals(type)
        && e.at("/object/metadata/name").asText().equals(name)
        && e.at("/object/endpoints/1/targetRef/name").asText().equals("db-1")
        && e.at("/object/endpoints/1/conditions/ready").asBoolean(!ready) == ready)) {
      assertTrue(Instant.now().isBefore(deadline), "no " + type + " event with db-1 ready " + ready + ": " + events);
      Api.sleep(200);
    }
  }

  @Test
  void aClusterIpIsAllocatedFromTheServiceNetworkAndHeldByOneServiceAtATime() {
    String services = "/api/v1/namespaces/ips/services";
    Api.Reply first = api.post(services, "application/json",
        "{\"metadata\":{\"name\":\"db\"},\"spec\":{\"selector\":{\"app\":\"db\"},\"ports\":[{\"port\":5432}]}}");
    assertEquals(201, first.code(), first.body());
    String ip = first.json().at("/spec/clusterIP").asText();
    assertTrue(ip.matches("10\\.(9[6-9]|10[0-9]|11[01])\\.\\d+\\.\\d+"), ip);
    assertEquals(ip, first.json().at("/spec/clusterIPs/0").asText());
    assertEquals(5432, first.json().at("/spec/ports/0/targetPort").asInt(), "targetPort defaults to the port");
    assertEquals("TCP", first.json().at("/spec/ports/0/protocol").asText());
    assertEquals("None", first.json().at("/spec/sessionAffinity").asText());
    assertEquals(List.of(), first.warnings(), "a TCP port is routed: nothing to warn of");

    String taking = "{\"metadata\":{\"name\":\"copy\"},\"spec\":{\"clusterIP\":\"" + ip + "\",\"ports\":[{\"port\":1}]}}";
    InvalidInputIT.assertRefused(api.post(services, "application/json", taking), 422, "spec.clusterIPs");
    InvalidInputIT.assertRefused(api.patch(services + "/db", "application/merge-patch+json",
        "{\"spec\":{\"clusterIP\":\"10.96.0.77\",\"clusterIPs\":[\"10.96.0.77\"]}}"), 422, "spec.clusterIPs[0]");
    InvalidInputIT.assertRefused(api.post(services, "application/json",
        "{\"metadata\":{\"name\":\"np\"},\"spec\":{\"type\":\"NodePort\",\"ports\":[{\"port\":1}]}}"), 422, "spec.type");
    InvalidInputIT.assertRefused(api.post(services, "application/json",
        "{\"metadata\":{\"name\":\"far\"},\"spec\":{\"clusterIP\":\"192.168.0.1\",\"ports\":[{\"port\":1}]}}"), 422,
        "spec.clusterIPs");
    InvalidInputIT.assertRefused(api.post(services, "application/json",
        "{\"metadata\":{\"name\":\"1bad\"},\"spec\":{\"ports\":[{\"port\":1}]}}"), 422, "metadata.name");

    assertEquals(200, api.delete(services + "/db").code());
    Api.Reply second = api.post(services, "application/json", taking);
    assertEquals(201, second.code(), "a deleted Service's address is free at once: " + second.body());
    Api.Reply other = api.post(services, "application/json",
        "{\"metadata\":{\"name\":\"other\"},\"spec\":{\"ports\":[{\"port\":1}]}}");
    assertEquals(201, other.code(), other.body());
    assertNotEquals(ip, other.json().at("/spec/clusterIP").asText());
    Api.Reply udp = api.post(services, "application/json",
        "{\"metadata\":{\"name\":\"udp\"},\"spec\":{\"selector\":{\"app\":\"x\"},\"ports\":[{\"port\":53,\"protocol\":\"UDP\"}]}}");
    assertEquals(201, udp.code(), udp.body());
    assertTrue(udp.warnings().stream().anyMatch(w -> w.contains("53/UDP") && w.contains("not routed")), udp.warnings().toString());
    Api.Reply dryRun = api.post(services + "?dryRun=All", "application/json",
        "{\"metadata\":{\"name\":\"dry\"},\"spec\":{\"ports\":[{\"port\":1}]}}");
    assertEquals(201, dryRun.code(), dryRun.body());
    assertEquals(404, api.get(services + "/dry").code(), "a dry run holds no address and stores nothing");
  }
}
