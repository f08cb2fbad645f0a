package io.ordinal.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code ordinal.io/parallel-concurrency} end to end (sim driver): a Parallel scale with at most N pods on their way. */
@E2eTest
class ParallelConcurrencyIT {
  static final Duration TIMEOUT = Duration.ofSeconds(120);
  static Api api;

  @Test
  void aParallelScaleUpNeverHasMorePodsOnTheirWayThanItsConcurrency(@Namespace String ns) {
    ObjectNode set = Manifests.web("web", 20, 0, Map.of("SIM_READY_DELAY_MS", "1000"));
    ((ObjectNode) set.get("spec")).put("podManagementPolicy", "Parallel");
    ((ObjectNode) set.at("/metadata/annotations")).put("ordinal.io/parallel-concurrency", "25%");
    api.createSet(ns, set);
    api.awaitConverged(ns, "web", 20, TIMEOUT);
    // Each pod was on its way from its creation until it became Ready: at most 5 (25% of 20) at once.
    List<long[]> onTheirWay = new ArrayList<>();
    for (JsonNode pod : api.pods(ns, "app=web")) {
      onTheirWay.add(new long[] {Pods.created(pod), Pods.readySince(pod)});
    }
    int most = mostAtOnce(onTheirWay);
    assertTrue(most <= 5, most + " pods were on their way at once");
    assertTrue(most >= 2, "the pods were made one at a time, not in parallel: " + most);

    Api.Reply refused = api.patch(Paths.set(ns, "web"), "application/merge-patch+json",
        "{\"metadata\":{\"annotations\":{\"ordinal.io/parallel-concurrency\":\"0\"}}}");
    assertEquals(422, refused.code(), refused.body());
    assertEquals("metadata.annotations[ordinal.io/parallel-concurrency]",
        refused.json().at("/details/causes/0/field").asText(), refused.body());
  }

  /** The most intervals [from, to] that overlap at one instant. */
  static int mostAtOnce(List<long[]> intervals) {
    int most = 0;
    for (long[] interval : intervals) {
      long at = interval[0];
      int open = (int) intervals.stream().filter(other -> other[0] <= at && at < other[1]).count();
      most = Math.max(most, open);
    }
    return most;
  }
}
