package io.ordinal.frontdoor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ManagedFieldsEntry;
import io.fabric8.kubernetes.api.model.ManagedFieldsEntryBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.ordinal.cluster.ClusterObjects;
import io.ordinal.store.KubeJson;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** How the front door reads the cluster's objects of either kind. */
class ClusterFrontDoorTest {
  private static GenericKubernetesResource object(String apiVersion, List<ManagedFieldsEntry> managed) {
    GenericKubernetesResource object = KubeJson.read("""
        {"apiVersion":"%s","kind":"StatefulSet","metadata":{"name":"web","namespace":"shop","uid":"u1","generation":3},
         "spec":{"replicas":2,"selector":{"matchLabels":{"app":"web"}},"serviceName":"web",
                 "template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"c","image":"i"}]}}}}
        """.formatted(apiVersion), GenericKubernetesResource.class);
    object.getMetadata().setManagedFields(managed);
    return object;
  }

  private static ManagedFieldsEntry entry(String manager, String subresource, String time) {
    return new ManagedFieldsEntryBuilder().withManager(manager).withOperation("Update").withSubresource(subresource)
        .withTime(time).build();
  }

  @Test
  void anAppsV1ObjectIsMirroredAsOneWhosePodsTheAppsV1ObjectOwns() {
    StatefulSet mirrored = ClusterFrontDoor.toStatefulSet(object("apps/v1", null));
    assertEquals("apps/v1", ClusterObjects.clusterApiVersion(mirrored));
    assertTrue(ClusterObjects.mirrorsBuiltin(mirrored));
    assertEquals("u1", ClusterObjects.clusterUid(mirrored).orElseThrow());
    mirrored.getMetadata().setUid("ordinal-uid");
    var pod = new PodBuilder().withNewMetadata().withName("web-0").addNewOwnerReference().withApiVersion("apps/v1")
        .withKind("StatefulSet").withName("web").withUid("ordinal-uid").withController(true).endOwnerReference()
        .endMetadata().build();
    var inCluster = ClusterObjects.forCluster(pod, Pod.class,
        ClusterObjects.POD_UID_ANNOTATION, "p1", Optional.of(mirrored));
    assertEquals("apps/v1", inCluster.getMetadata().getOwnerReferences().getFirst().getApiVersion());
    assertEquals("u1", inCluster.getMetadata().getOwnerReferences().getFirst().getUid());
  }

  @Test
  void anOrdinalObjectKeepsItsOwnKind() {
    StatefulSet mirrored = ClusterFrontDoor.toStatefulSet(object(ClusterObjects.API_VERSION, null));
    assertEquals(ClusterObjects.API_VERSION, ClusterObjects.clusterApiVersion(mirrored));
    assertFalse(ClusterObjects.mirrorsBuiltin(mirrored));
    assertFalse(mirrored.getMetadata().getAnnotations().containsKey(ClusterObjects.CLUSTER_API_VERSION_ANNOTATION));
  }

  @Test
  void upstreamsControllerWritingTheStatusAfterTheTakeOverIsAConflict() {
    Instant takenOver = Instant.parse("2026-01-01T10:00:00Z");
    var object = object("apps/v1", List.of(entry("kube-controller-manager", "status", "2026-01-01T10:05:00Z"),
        entry("kubectl-client-side-apply", null, "2026-01-01T10:06:00Z")));
    assertEquals(Optional.of("2026-01-01T10:05:00Z"), ClusterFrontDoor.statusWrittenByUpstream(object, takenOver));
  }

  @Test
  void upstreamsLastWriteBeforeTheTakeOverOrAnotherManagersIsNone() {
    Instant takenOver = Instant.parse("2026-01-01T10:00:00Z");
    assertEquals(Optional.empty(), ClusterFrontDoor.statusWrittenByUpstream(object("apps/v1", List.of(
        entry("kube-controller-manager", "status", "2026-01-01T09:59:59Z"),
        entry("kube-controller-manager", "status", "2026-01-01T10:00:01Z"), // the same second, as times are kept
        entry("fabric8-kubernetes-client", "status", "2026-01-01T10:05:00Z"))), takenOver));
    assertEquals(Optional.empty(), ClusterFrontDoor.statusWrittenByUpstream(object("apps/v1", null), takenOver));
  }

  @Test
  void aRunningSetsMembersAreItsOrdinalsLowestFirstAndNoOtherPod() {
    var pods = List.of(pod("web-2"), pod("web-0"), pod("webby-1"), pod("web-x"));
    assertEquals(List.of("web-0 0 web-0-uid", "web-2 2 web-2-uid"), RunningPods.members("web", pods).stream()
        .map(m -> m.name() + " " + m.ordinal() + " " + m.uid()).toList());
  }

  private static Pod pod(String name) {
    return new PodBuilder().withNewMetadata().withName(name).withUid(name + "-uid").endMetadata().build();
  }
}
