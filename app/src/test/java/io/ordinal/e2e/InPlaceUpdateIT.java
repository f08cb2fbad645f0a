package io.ordinal.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.ordinal.store.KubeJson;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code ordinal.io/pod-update-policy} end to end on the local driver: an image and resources change
 * restarts each member's container in the same pod (same uid, address and volume, a new process),
 * highest ordinal first, each once the last is Ready for minReadySeconds; a change beyond images and
 * resources replaces the pods (InPlaceIfPossible) or is refused (InPlaceOnly).
 */
@E2eTest
class InPlaceUpdateIT {
  static final Duration TIMEOUT = Duration.ofSeconds(120);
  static Api api;

  @Test
  void anImageAndResourcesChangeRestartsEachContainerInItsOwnPodHighestFirstKeepingUidAddressAndVolume(
      @Namespace String ns) throws Exception {
    ObjectNode set = Manifests.httpSet("inplace", 3);
    ((ObjectNode) set.get("metadata")).with("annotations").put("ordinal.io/pod-update-policy", "InPlaceIfPossible");
    ((ObjectNode) set.get("spec")).put("minReadySeconds", 2);
    // Burstable before and after: a resize never changes a pod's QoS class.
    ((ObjectNode) set.at("/spec/template/spec/containers/0")).putObject("resources").putObject("requests")
        .put("memory", "64Mi");
    ((ArrayNode) set.at("/spec/template/spec/containers/0/command")).set(2, KubeJson.JSON.getNodeFactory().textNode(
        "echo $(POD_NAME) > /data/whoami; echo start >> /data/starts; cd /data && exec python3 -m http.server 8080 --bind $(POD_IP)"));
    api.createSet(ns, set);
    api.awaitConverged(ns, "inplace", 3, TIMEOUT);
    List<JsonNode> before = pods(ns);
    String revision = api.set(ns, "inplace").at("/status/currentRevision").asText();

    Api.Reply patched = api.patch(Paths.set(ns, "inplace"), "application/json-patch+json", """
        [{"op":"replace","path":"/spec/template/spec/containers/0/image","value":"python:3.13"},
         {"op":"add","path":"/spec/template/spec/containers/0/resources/limits","value":{"memory":"512Mi"}}]""");
    assertEquals(200, patched.code(), patched.body());
    JsonNode status = api.awaitRolledOut(ns, "inplace", 3, revision, TIMEOUT).path("status");
    String updateRevision = status.path("updateRevision").asText();
    List<JsonNode> after = pods(ns);

    for (int i = 0; i < 3; i++) {
      JsonNode was = before.get(i);
      JsonNode is = after.get(i);
      String pod = "inplace-" + i;
      assertEquals(was.at("/metadata/uid").asText(), is.at("/metadata/uid").asText(), pod + " is the same pod");
      assertEquals(was.at("/status/podIP").asText(), is.at("/status/podIP").asText(), pod + " keeps its address");
      assertEquals(updateRevision, is.at("/metadata/labels/controller-revision-hash").asText());
      assertEquals("python:3.13", is.at("/spec/containers/0/image").asText());
      assertEquals("512Mi", is.at("/spec/containers/0/resources/limits/memory").asText());
      assertEquals("python:3.13", is.at("/status/containerStatuses/0/image").asText());
      assertEquals(1, is.at("/status/containerStatuses/0/restartCount").asInt(), pod + " restarted once");
      assertNotEquals(was.at("/status/containerStatuses/0/containerID").asText(),
          is.at("/status/containerStatuses/0/containerID").asText(), pod + " runs a new process");
      // The new process found the volume the old one wrote to.
      assertEquals("start\nstart\n", fetch("http://" + is.at("/status/podIP").asText() + ":8080/starts"), pod);
    }
    // Highest first, each once the one before had been Ready for minReadySeconds.
    for (int i = 2; i > 0; i--) {
      long readyBefore = Pods.readySince(after.get(i));
      assertTrue(readyBefore >= Pods.started(after.get(i)), "inplace-" + i + "'s Ready time is its new container's");
      long restarted = Pods.started(after.get(i - 1));
      assertTrue(restarted >= readyBefore + 2_000, "inplace-" + (i - 1) + " restarted at " + restarted
          + ", before inplace-" + i + " had been Ready for 2 s (since " + readyBefore + ")");
    }
    assertEquals(List.of("+inplace-0", "+inplace-1", "+inplace-2"), api.podOperations(ns), "no pod was replaced");
    long updatedInPlace = api.events(ns).stream().filter(e -> e.path("reason").asText().equals("SuccessfulUpdate")
        && e.path("message").asText().contains("in place from revision " + revision + " to " + updateRevision)).count();
    assertEquals(3, updatedInPlace, api.events(ns).toString());

    // A change beyond images and resources replaces the pods.
    String inPlaceRevision = updateRevision;
    api.patch(Paths.set(ns, "inplace"), "application/json-patch+json",
        "[{\"op\":\"add\",\"path\":\"/spec/template/spec/containers/0/env\",\"value\":[{\"name\":\"MODE\",\"value\":\"x\"}]}]");
    api.awaitRolledOut(ns, "inplace", 3, inPlaceRevision, TIMEOUT);
    List<JsonNode> replaced = pods(ns);
    for (int i = 0; i < 3; i++) {
      assertNotEquals(after.get(i).at("/metadata/uid").asText(), replaced.get(i).at("/metadata/uid").asText(),
          "inplace-" + i + " was replaced");
    }
  }

  @Test
  void inPlaceOnlyRefusesATemplateChangeThatCannotBeMadeInPlaceAndAnUnknownPolicyIsRefused(@Namespace String ns) {
    ObjectNode set = Manifests.web("only", 2, 0, Map.of());
    ((ObjectNode) set.get("metadata")).with("annotations").put("ordinal.io/pod-update-policy", "InPlaceOnly");
    api.createSet(ns, set);
    api.awaitConverged(ns, "only", 2, TIMEOUT);

    Api.Reply refused = api.patch(Paths.set(ns, "only"), "application/json-patch+json",
        "[{\"op\":\"add\",\"path\":\"/spec/template/spec/containers/0/args\",\"value\":[\"--debug\"]}]");
    assertEquals(422, refused.code(), refused.body());
    assertEquals("spec.template.spec.containers[0].args", refused.json().at("/details/causes/0/field").asText());
    assertTrue(refused.json().at("/details/causes/0/message").asText().contains("InPlaceOnly"), refused.body());
    // An image change is allowed; on the sim driver, which cannot update in place, the pods wait.
    api.setImage(ns, "only", "k8s.gcr.io/nginx-slim:0.9");
    Api.Reply unknown = api.patch(Paths.set(ns, "only"), "application/merge-patch+json",
        "{\"metadata\":{\"annotations\":{\"ordinal.io/pod-update-policy\":\"InPlace\"}}}");
    assertEquals(422, unknown.code(), unknown.body());
    assertEquals("metadata.annotations[ordinal.io/pod-update-policy]", unknown.json().at("/details/causes/0/field").asText());
    Api.sleep(3_000);
    assertEquals(List.of("+only-0", "+only-1"), api.podOperations(ns), "InPlaceOnly replaced no pod");
    assertTrue(api.set(ns, "only").at("/status/updatedReplicas").asInt() == 0);
  }

  @Test
  void aKill9BetweenStoringTheUpdateAndRestartingTheContainerIsHealedAtReadoption() throws Exception {
    // The container ignores SIGTERM: its in-place stop lasts the grace period, a window for the kill.
    ObjectNode set = Manifests.httpSet("slow", 1);
    ((ObjectNode) set.get("metadata")).with("annotations").put("ordinal.io/pod-update-policy", "InPlaceIfPossible");
    ((ObjectNode) set.at("/spec/template/spec")).put("terminationGracePeriodSeconds", 15);
    ((ArrayNode) set.at("/spec/template/spec/containers/0/command")).set(2, KubeJson.JSON.getNodeFactory().textNode(
        "trap '' TERM; echo $(POD_NAME) > /data/whoami; echo start >> /data/starts; cd /data && exec python3 -m http.server 8080 --bind $(POD_IP)"));
    String ns = "in-place-crash";
    try (OrdinalService service = new OrdinalService("in-place-crash")) {
      service.start();
      Api own = service.api();
      own.createSet(ns, set);
      own.awaitConverged(ns, "slow", 1, TIMEOUT);
      JsonNode before = own.pod(ns, "slow-0");
      String revision = own.set(ns, "slow").at("/status/currentRevision").asText();
      own.setImage(ns, "slow", "python:3.13");
      // Stored at the new revision, unready, its old container still stopping.
      own.await(Paths.pod(ns, "slow-0"), TIMEOUT, r -> !r.json().at("/metadata/labels/controller-revision-hash")
          .asText().equals(revision) && r.json().at("/status/containerStatuses/0/restartCount").asInt() == 0);
      service.kill9();
      service.start();
      own.awaitRolledOut(ns, "slow", 1, revision, TIMEOUT);
      JsonNode after = own.pod(ns, "slow-0");
      assertEquals(before.at("/metadata/uid").asText(), after.at("/metadata/uid").asText(), "the same pod");
      assertEquals(before.at("/status/podIP").asText(), after.at("/status/podIP").asText());
      assertEquals("python:3.13", after.at("/status/containerStatuses/0/image").asText());
      assertEquals(1, after.at("/status/containerStatuses/0/restartCount").asInt(), "restarted once, after the kill");
      assertEquals("start\nstart\n", fetch("http://" + after.at("/status/podIP").asText() + ":8080/starts"));
    }
  }

  private static List<JsonNode> pods(String ns) {
    return List.of(0, 1, 2).stream().map(i -> api.pod(ns, "inplace-" + i)).toList();
  }

  static String fetch(String url) throws Exception {
    return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(5)).build(),
        HttpResponse.BodyHandlers.ofString()).body();
  }
}
