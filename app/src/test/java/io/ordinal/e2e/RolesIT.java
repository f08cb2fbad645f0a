package io.ordinal.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code ordinal.io/leader-label} end to end: a rolling update replaces the followers first, the leader
 * last, whether the software labels its pod (sim driver) or a role probe does (local driver).
 */
@E2eTest
class RolesIT {
  static final Duration TIMEOUT = Duration.ofSeconds(90);
  static Api api;
  static OrdinalService service;

  @Test
  void aRollingUpdateReplacesTheFollowersFirstAndThePodLabelledLeaderLast(@Namespace String ns) {
    ObjectNode set = Manifests.web("web", 3, 0, Map.of());
    ((ObjectNode) set.at("/metadata/annotations")).put("ordinal.io/leader-label", "role=leader");
    api.createSet(ns, set);
    api.awaitConverged(ns, "web", 3, TIMEOUT);
    // As the software would: the leader labels its own pod.
    Api.Reply labelled = api.patch(Paths.pod(ns, "web-1"), "application/merge-patch+json",
        "{\"metadata\":{\"labels\":{\"role\":\"leader\"}}}");
    assertEquals(200, labelled.code(), labelled.body());
    assertARolloutReplaces(ns, "web", List.of("-web-2", "-web-0", "-web-1"));
    assertRefused(ns, "web", "{\"ordinal.io/leader-label\":\"role\"}", "ordinal.io/leader-label");
  }

  @Test
  void aRoleProbesOutputLabelsEachPodAndTheLeaderItFindsIsReplacedLast(@Namespace String ns) throws Exception {
    // Each member says its role from a file on its volume, which the test writes as a leader election would.
    ObjectNode set = Manifests.commandSet("roles", 3, "/bin/sh", "-c", "exec sleep 600");
    ObjectNode annotations = (ObjectNode) set.at("/metadata/annotations");
    annotations.put("ordinal.io/leader-label", "role=leader");
    annotations.put("ordinal.io/role-probe", """
        exec: {command: ["/bin/sh", "-c", "cat /usr/share/nginx/html/role 2>/dev/null || echo follower"]}
        periodSeconds: 1""");
    api.createSet(ns, set);
    api.awaitConverged(ns, "roles", 3, TIMEOUT);
    for (int i = 0; i < 3; i++) {
      awaitLabel(ns, "roles-" + i, "follower");
    }
    Files.writeString(service.dataDir.resolve("local/volumes/" + ns + "/www-roles-1/role"), "leader\n");
    awaitLabel(ns, "roles-1", "leader");
    assertTrue(api.events(ns).stream().anyMatch(e -> e.path("reason").asText().equals("RoleChanged")
        && e.path("message").asText().equals("role probe: role=leader (was follower)")), api.events(ns).toString());

    assertARolloutReplaces(ns, "roles", List.of("-roles-2", "-roles-0", "-roles-1"));
    assertRefused(ns, "roles", "{\"ordinal.io/leader-label\":null}", "ordinal.io/leader-label");
    assertRefused(ns, "roles", "{\"ordinal.io/role-probe\":\"tcpSocket: {port: 80}\"}", "ordinal.io/role-probe");
  }

  /** An image change rolls the set out, deleting its pods in this order. */
  private static void assertARolloutReplaces(String ns, String set, List<String> deletions) {
    String revision = api.set(ns, set).at("/status/currentRevision").asText();
    api.setImage(ns, set, "k8s.gcr.io/nginx-slim:0.9");
    api.awaitRolledOut(ns, set, 3, revision, TIMEOUT);
    assertEquals(deletions, api.podOperations(ns).stream().filter(op -> op.startsWith("-")).toList());
  }

  /** A change of the set's annotations is refused with a 422 on the annotation. */
  private static void assertRefused(String ns, String set, String annotations, String annotation) {
    Api.Reply refused = api.patch(Paths.set(ns, set), "application/merge-patch+json",
        "{\"metadata\":{\"annotations\":" + annotations + "}}");
    assertEquals(422, refused.code(), refused.body());
    assertEquals("metadata.annotations[" + annotation + "]", refused.json().at("/details/causes/0/field").asText());
  }

  private static void awaitLabel(String ns, String pod, String role) {
    api.await(Paths.pod(ns, pod), TIMEOUT, r -> r.code() == 200 && role.equals(r.json().at("/metadata/labels/role").asText()));
  }
}
