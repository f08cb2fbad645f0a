package io.ordinal.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code ordinal.io/leader-label} end to end (sim driver): a rolling update replaces the followers first, the leader last. */
@E2eTest
class RolesIT {
  static final Duration TIMEOUT = Duration.ofSeconds(90);
  static Api api;

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
    String revision = api.set(ns, "web").at("/status/currentRevision").asText();
    api.setImage(ns, "web", "k8s.gcr.io/nginx-slim:0.9");
    api.awaitRolledOut(ns, "web", 3, revision, TIMEOUT);
    List<String> deletions = api.podOperations(ns).stream().filter(op -> op.startsWith("-")).toList();
    assertEquals(List.of("-web-2", "-web-0", "-web-1"), deletions);

    Api.Reply refused = api.patch(Paths.set(ns, "web"), "application/merge-patch+json",
        "{\"metadata\":{\"annotations\":{\"ordinal.io/leader-label\":\"role\"}}}");
    assertEquals(422, refused.code(), refused.body());
    assertEquals("metadata.annotations[ordinal.io/leader-label]", refused.json().at("/details/causes/0/field").asText());
  }
}
