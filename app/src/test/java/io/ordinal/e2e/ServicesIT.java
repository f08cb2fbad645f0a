package io.ordinal.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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
