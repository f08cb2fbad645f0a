package io.ordinal.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.ordinal.store.KubeJson;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code ordinal.io/member-overrides} end to end: each ordinal range runs its own template, a change
 * to one range's override rolls only that range (highest first, the others keep their pods), the
 * overrides are part of the revision ({@code kubectl rollout undo} brings them back), a template
 * change rolls every member and keeps the overrides, and an override that cannot be a pod template is
 * refused with its field path.
 */
@E2eTest
class MemberOverridesIT {
  static final Duration TIMEOUT = Duration.ofSeconds(120);
  static final String ANNOTATION = "ordinal.io/member-overrides";
  static Api api;

  static final String BIG = """
      - ordinals: "3-4"
        template:
          metadata:
            annotations: {tier: big}
          spec:
            containers:
            - name: nginx
              env: [{name: SIZE, value: big}]
              resources: {limits: {memory: %s}}
      """;

  @Test
  void eachRangeRunsItsOwnTemplateAndAChangeToOneRangeRollsOnlyIt(@Namespace String ns) throws Exception {
    ObjectNode set = Manifests.web("web", 5, 0, Map.of());
    ((ObjectNode) set.get("metadata")).with("annotations").put(ANNOTATION, BIG.formatted("2Gi"));
    // No history beyond what is live: the first revision stays while web-0 to web-2 were made from it.
    ((ObjectNode) set.get("spec")).put("revisionHistoryLimit", 0);
    assertEquals(201, api.createSet(ns, set).code());
    JsonNode status = api.awaitConverged(ns, "web", 5, TIMEOUT).path("status");
    String first = status.path("updateRevision").asText();
    Map<String, String> uids = uids(ns);
    for (int i = 0; i < 5; i++) {
      JsonNode pod = api.pod(ns, "web-" + i);
      boolean big = i >= 3;
      assertEquals(big ? "2Gi" : "", pod.at("/spec/containers/0/resources/limits/memory").asText(), "web-" + i);
      assertEquals(big ? "big" : "", pod.at("/metadata/annotations/tier").asText(), "web-" + i);
      assertEquals(big ? "SIZE" : "", pod.at("/spec/containers/0/env/0/name").asText(), "web-" + i);
      assertEquals(first, pod.at("/metadata/labels/controller-revision-hash").asText());
    }

    // One range's override changes: a rollout of that range alone, highest first.
    assertEquals(200, api.patchSet(ns, "web", mergeAnnotation(BIG.formatted("4Gi"))).code());
    status = api.awaitRolledOut(ns, "web", 5, first, TIMEOUT).path("status");
    String second = status.path("updateRevision").asText();
    assertEquals(5, status.path("updatedReplicas").asInt());
    assertEquals(List.of("-web-4", "+web-4", "-web-3", "+web-3"), operationsAfterCreation(ns));
    for (int i = 0; i < 3; i++) {
      assertEquals(uids.get("web-" + i), api.pod(ns, "web-" + i).at("/metadata/uid").asText(), "web-" + i + " kept its pod");
    }
    for (int i = 3; i < 5; i++) {
      JsonNode pod = api.pod(ns, "web-" + i);
      assertEquals("4Gi", pod.at("/spec/containers/0/resources/limits/memory").asText());
      assertEquals(second, pod.at("/metadata/labels/controller-revision-hash").asText());
    }

    // The overrides are the revision's: undoing brings them back, and again only their range rolls.
    Kubectl kubectl = new Kubectl(api.base(), api.caCertificate(), api.token(), ns);
    kubectl.run("rollout", "undo", "sts/web").ok();
    kubectl.run("rollout", "status", "sts/web", "--timeout=120s").ok();
    JsonNode undone = api.set(ns, "web");
    assertEquals(first, undone.at("/status/updateRevision").asText(), "the first revision, brought back");
    assertTrue(undone.at("/metadata/annotations").path(ANNOTATION).asText().contains("2Gi"),
        undone.at("/metadata/annotations").toString());
    assertEquals(List.of("-web-4", "+web-4", "-web-3", "+web-3", "-web-4", "+web-4", "-web-3", "+web-3"),
        operationsAfterCreation(ns));
    assertEquals("2Gi", api.pod(ns, "web-4").at("/spec/containers/0/resources/limits/memory").asText());
    assertEquals(uids.get("web-0"), api.pod(ns, "web-0").at("/metadata/uid").asText());

    // The set's template changes: every member rolls, and the range keeps its override on the new template.
    String undoneRevision = api.set(ns, "web").at("/status/currentRevision").asText();
    uids = uids(ns);
    assertEquals(200, api.setImage(ns, "web", "k8s.gcr.io/nginx-slim:0.9").code());
    api.awaitRolledOut(ns, "web", 5, undoneRevision, TIMEOUT);
    for (int i = 0; i < 5; i++) {
      JsonNode pod = api.pod(ns, "web-" + i);
      assertEquals("k8s.gcr.io/nginx-slim:0.9", pod.at("/spec/containers/0/image").asText());
      assertEquals(i >= 3 ? "2Gi" : "", pod.at("/spec/containers/0/resources/limits/memory").asText(), "web-" + i);
      assertFalse(uids.get("web-" + i).equals(pod.at("/metadata/uid").asText()), "web-" + i + " was replaced");
    }
  }

  @Test
  void belowThePartitionAChangedOverrideWaitsAndAboveItRolls(@Namespace String ns) throws Exception {
    ObjectNode set = Manifests.web("part", 5, 0, Map.of());
    ((ObjectNode) set.get("metadata")).with("annotations").put(ANNOTATION, """
        - ordinals: "1"
          template: {metadata: {annotations: {canary: "no"}}}
        - ordinals: "3-4"
          template: {metadata: {annotations: {canary: "no"}}}
        """);
    ((ObjectNode) set.get("spec")).putObject("updateStrategy").put("type", "RollingUpdate")
        .putObject("rollingUpdate").put("partition", 3);
    assertEquals(201, api.createSet(ns, set).code());
    api.awaitConverged(ns, "part", 5, TIMEOUT);
    assertEquals(200, api.patchSet(ns, "part", mergeAnnotation("""
        - ordinals: "1"
          template: {metadata: {annotations: {canary: "yes"}}}
        - ordinals: "3-4"
          template: {metadata: {annotations: {canary: "yes"}}}
        """)).code());
    JsonNode status = api.await(Paths.set(ns, "part") + "/status", TIMEOUT,
        r -> r.json().at("/status/observedGeneration").asInt() == 2 && r.json().at("/status/updatedReplicas").asInt() == 2
            && r.json().at("/status/readyReplicas").asInt() == 5)
        .path("status");
    // As upstream counts a partitioned rollout: the two above the partition are updated, the three below
    // current (0 and 2, whose template both revisions give alike, among them: they stay where they are).
    assertEquals(3, status.path("currentReplicas").asInt());
    assertEquals(List.of("-part-4", "+part-4", "-part-3", "+part-3"), operationsAfterCreation(ns));
    assertEquals("no", api.pod(ns, "part-1").at("/metadata/annotations/canary").asText(), "below the partition");
    assertEquals("yes", api.pod(ns, "part-3").at("/metadata/annotations/canary").asText());
    assertFalse(status.path("currentRevision").asText().equals(status.path("updateRevision").asText()));

    assertEquals(200, api.patchSet(ns, "part", "{\"spec\":{\"updateStrategy\":{\"rollingUpdate\":{\"partition\":0}}}}").code());
    api.await(Paths.set(ns, "part") + "/status", TIMEOUT, r -> r.json().at("/status/updatedReplicas").asInt() == 5
        && r.json().at("/status/currentRevision").asText().equals(r.json().at("/status/updateRevision").asText()));
    assertEquals("yes", api.pod(ns, "part-1").at("/metadata/annotations/canary").asText());
    assertEquals(List.of("-part-4", "+part-4", "-part-3", "+part-3", "-part-1", "+part-1"), operationsAfterCreation(ns));
  }

  @Test
  void aResourcesChangeOfOneMembersOverrideIsMadeInPlaceOnThatMemberAlone(@Namespace String ns) throws Exception {
    ObjectNode set = Manifests.httpSet("sized", 2);
    ((ObjectNode) set.get("metadata")).with("annotations").put("ordinal.io/pod-update-policy", "InPlaceIfPossible")
        .put(ANNOTATION, SIZED.formatted("256Mi"));
    // Burstable at either size: a resize never changes a pod's QoS class.
    ((ObjectNode) set.at("/spec/template/spec/containers/0")).putObject("resources").putObject("requests")
        .put("memory", "64Mi");
    assertEquals(201, api.createSet(ns, set).code());
    String first = api.awaitConverged(ns, "sized", 2, TIMEOUT).at("/status/updateRevision").asText();
    JsonNode zero = api.pod(ns, "sized-0");
    JsonNode one = api.pod(ns, "sized-1");
    assertEquals("256Mi", one.at("/spec/containers/0/resources/limits/memory").asText());
    assertTrue(zero.at("/spec/containers/0/resources/limits").isMissingNode());

    assertEquals(200, api.patchSet(ns, "sized", mergeAnnotation(SIZED.formatted("512Mi"))).code());
    api.awaitRolledOut(ns, "sized", 2, first, TIMEOUT);
    JsonNode resized = api.pod(ns, "sized-1");
    assertEquals(one.at("/metadata/uid").asText(), resized.at("/metadata/uid").asText(), "the same pod");
    assertEquals(one.at("/status/podIP").asText(), resized.at("/status/podIP").asText());
    assertEquals("512Mi", resized.at("/spec/containers/0/resources/limits/memory").asText());
    assertEquals(1, resized.at("/status/containerStatuses/0/restartCount").asInt(), "its container restarted once");
    JsonNode untouched = api.pod(ns, "sized-0");
    assertEquals(zero.at("/status/containerStatuses/0/containerID").asText(),
        untouched.at("/status/containerStatuses/0/containerID").asText(), "sized-0 kept its container");
    assertEquals(0, untouched.at("/status/containerStatuses/0/restartCount").asInt());
    assertEquals(List.of("+sized-0", "+sized-1"), api.podOperations(ns), "no pod was replaced");
  }

  static final String SIZED = """
      - ordinals: "1"
        template:
          spec:
            containers:
            - name: server
              resources: {limits: {memory: %s}}
      """;

  @Test
  void anOverrideThatCannotMakeAPodTemplateIsRefusedAtItsField(@Namespace String ns) {
    assertRefused(ns, "overlap", """
        - {ordinals: "1-3", template: {}}
        - {ordinals: "3", template: {}}
        """, "metadata.annotations[ordinal.io/member-overrides]", "3 is in two overrides");
    assertRefused(ns, "typo", """
        - ordinals: "1"
          template: {spec: {containerz: []}}
        """, "metadata.annotations[ordinal.io/member-overrides][0].template.spec.containerz", "unknown field");
    assertRefused(ns, "labels", """
        - ordinals: "1"
          template: {metadata: {labels: {app: other}}}
        """, "metadata.annotations[ordinal.io/member-overrides][0].template.metadata.labels",
        "`selector` does not match template `labels`");
    // A container only the patch has comes first, as kubectl patch orders a merged list.
    assertRefused(ns, "noname", """
        - ordinals: "0"
          template: {spec: {containers: [{name: sidecar}]}}
        """, "metadata.annotations[ordinal.io/member-overrides][0].template.spec.containers[0].image", "Required value");
    assertRefused(ns, "notalist", "ordinals: 1", "metadata.annotations[ordinal.io/member-overrides]", "must be a list");
    assertEquals(404, api.get(Paths.set(ns, "overlap")).code(), "nothing was stored");
  }

  private static void assertRefused(String ns, String name, String overrides, String field, String message) {
    ObjectNode set = Manifests.web(name, 2, 0, Map.of());
    ((ObjectNode) set.get("metadata")).with("annotations").put(ANNOTATION, overrides);
    Api.Reply reply = api.post(Paths.sets(ns), "application/json", Manifests.json(set));
    assertEquals(422, reply.code(), reply.body());
    boolean found = false;
    for (JsonNode cause : reply.json().at("/details/causes")) {
      found |= cause.path("field").asText().equals(field) && cause.path("message").asText().contains(message);
    }
    assertTrue(found, field + ": " + message + " in " + reply.body());
  }

  private static String mergeAnnotation(String overrides) {
    ObjectNode patch = KubeJson.JSON.createObjectNode();
    patch.putObject("metadata").putObject("annotations").put(ANNOTATION, overrides);
    return patch.toString();
  }

  private static Map<String, String> uids(String ns) {
    Map<String, String> uids = new HashMap<>();
    for (JsonNode pod : api.pods(ns, "")) {
      uids.put(pod.at("/metadata/name").asText(), pod.at("/metadata/uid").asText());
    }
    return uids;
  }

  /** The pod operations after the set's first pods were created. */
  private static List<String> operationsAfterCreation(String ns) {
    List<String> all = new ArrayList<>(api.podOperations(ns));
    return all.subList(5, all.size());
  }
}
