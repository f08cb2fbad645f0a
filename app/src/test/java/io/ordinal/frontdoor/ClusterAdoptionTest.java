package io.ordinal.frontdoor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** What makes a running apps/v1 set unsafe to adopt: anything that would move or restart a pod. */
class ClusterAdoptionTest {
  private static StatefulSet set(int replicas, String current, String update, int ready) {
    return new StatefulSetBuilder().withNewMetadata().withName("web").withNamespace("ns").withUid("set-uid")
        .withGeneration(2L).endMetadata()
        .withNewSpec().withReplicas(replicas).withNewSelector().withMatchLabels(Map.of("app", "web")).endSelector()
        .endSpec()
        .withNewStatus().withObservedGeneration(2L).withReplicas(replicas).withReadyReplicas(ready)
        .withUpdatedReplicas(replicas).withCurrentRevision(current).withUpdateRevision(update).endStatus().build();
  }

  private static Pod pod(int ordinal, String revision, boolean ready) {
    return new PodBuilder().withNewMetadata().withName("web-" + ordinal).withUid("pod-" + ordinal)
        .withLabels(Map.of("app", "web", "controller-revision-hash", revision)).endMetadata()
        .withNewStatus().addNewCondition().withType("Ready").withStatus(ready ? "True" : "False").endCondition()
        .endStatus().build();
  }

  private static List<Pod> pods(int n, String revision) {
    return IntStream.range(0, n).mapToObj(i -> pod(i, revision, true)).toList();
  }

  @Test
  void aCurrentSetWithEveryPodReadyAndTheSameRevisionNameIsAdoptable() {
    assertEquals(List.of(), ClusterAdoption.refusals(set(3, "web-a", "web-a", 3), pods(3, "web-a"), "web-a"));
  }

  @Test
  void aRolloutInProgressIsRefused() {
    List<String> refusals = ClusterAdoption.refusals(set(3, "web-a", "web-b", 3), pods(3, "web-a"), "web-b");
    assertTrue(refusals.stream().anyMatch(r -> r.contains("a rollout is in progress (from web-a to web-b)")), refusals.toString());
    assertTrue(refusals.stream().anyMatch(r -> r.contains("pod web-0 runs revision web-a")), refusals.toString());
  }

  @Test
  void aTemplateOrdinalWouldNameOtherwiseIsRefusedItsPodsWouldRoll() {
    List<String> refusals = ClusterAdoption.refusals(set(2, "web-a", "web-a", 2), pods(2, "web-a"), "web-z");
    assertEquals(List.of("Ordinal names its template's revision web-z, upstream's controller named it web-a: its pods would be rolled"),
        refusals);
  }

  @Test
  void aPodNotReadyNotMatchingOrMissingIsRefused() {
    List<Pod> pods = List.of(pod(0, "web-a", true), pod(1, "web-a", false));
    List<String> refusals = ClusterAdoption.refusals(set(3, "web-a", "web-a", 1), pods, "web-a");
    assertTrue(refusals.stream().anyMatch(r -> r.startsWith("not all 3 pods are there, Ready and current (2 pods, 1 Ready")),
        refusals.toString());
    assertTrue(refusals.contains("pod web-1 is not Ready"), refusals.toString());
    Pod stray = new PodBuilder(pod(0, "web-a", true)).editMetadata().withLabels(Map.of("controller-revision-hash", "web-a"))
        .endMetadata().build();
    assertTrue(ClusterAdoption.refusals(set(1, "web-a", "web-a", 1), List.of(stray), "web-a")
        .contains("pod web-0 does not match the selector"));
  }

  @Test
  void aSetWhoseControllerHasNotCaughtUpIsRefusedFirst() {
    StatefulSet behind = set(1, "web-a", "web-a", 1);
    behind.getMetadata().setGeneration(3L);
    assertEquals(List.of("its controller has not observed generation 3 yet"),
        ClusterAdoption.refusals(behind, pods(1, "web-a"), "web-a"));
  }
}
