package io.ordinal.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.ordinal.api.EndpointSliceController.Op;
import io.ordinal.api.EndpointSliceController.Write;
import io.ordinal.store.KubeJson;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The slices upstream's endpoint slice controller would write, and how stored ones are brought in line. */
class EndpointSliceControllerTest {

  private static Service service(String clusterIp, String targetPort) {
    return new ServiceBuilder().withNewMetadata().withNamespace("ns").withName("web").withUid("svc-uid")
        .withLabels(Map.of("team", "a", EndpointSliceController.MANAGED_BY_LABEL, "someone")).endMetadata()
        .withNewSpec().withType("ClusterIP").withClusterIP(clusterIp).withIpFamilies("IPv4")
        .withSelector(Map.of("app", "web"))
        .addNewPort().withName("http").withPort(80).withProtocol("TCP").withTargetPort(new IntOrString(targetPort)).endPort()
        .endSpec().build();
  }

  private static Pod pod(String name, String ip, boolean ready, String containerPortName) {
    return new PodBuilder().withNewMetadata().withNamespace("ns").withName(name).withUid(name + "-uid")
        .withLabels(Map.of("app", "web")).endMetadata()
        .withNewSpec().withNodeName("node-a").withHostname(name).withSubdomain("web")
        .addNewContainer().withName("c").addNewPort().withName(containerPortName).withContainerPort(8080).endPort()
        .endContainer().endSpec()
        .withNewStatus().withPhase("Running").withPodIP(ip).addNewPodIP(ip)
        .addNewCondition().withType("Ready").withStatus(ready ? "True" : "False").endCondition().endStatus().build();
  }

  @Test
  void theSelectedPodsWithAddressesAreEndpointsWithTheirConditionsHostnamesAndResolvedPorts() {
    Pod unaddressed = pod("web-2", null, true, "http");
    unaddressed.getStatus().setPodIPs(List.of());
    Pod other = pod("other", "10.0.0.9", true, "http");
    other.getMetadata().setLabels(Map.of("app", "db"));
    List<EndpointSlice> slices = EndpointSliceController.desired(service("None", "http"),
        List.of(pod("web-1", "10.0.0.2", false, "http"), pod("web-0", "10.0.0.1", true, "http"), unaddressed, other));

    assertEquals(1, slices.size(), slices.toString());
    EndpointSlice slice = slices.getFirst();
    assertEquals("IPv4", slice.getAddressType());
    assertEquals("web-", slice.getMetadata().getGenerateName());
    assertEquals(Map.of("team", "a", "kubernetes.io/service-name", "web", "service.kubernetes.io/headless", "",
        "endpointslice.kubernetes.io/managed-by", "endpointslice-controller.k8s.io"), slice.getMetadata().getLabels());
    var owner = slice.getMetadata().getOwnerReferences().getFirst();
    assertEquals(List.of("v1", "Service", "web", "svc-uid", true, true), List.of(owner.getApiVersion(), owner.getKind(),
        owner.getName(), owner.getUid(), owner.getController(), owner.getBlockOwnerDeletion()));
    assertEquals(1, slice.getPorts().size());
    assertEquals(List.of("http", 8080, "TCP"), List.of(slice.getPorts().getFirst().getName(),
        slice.getPorts().getFirst().getPort(), slice.getPorts().getFirst().getProtocol()));
    assertEquals(List.of("web-0", "web-1"), slice.getEndpoints().stream().map(e -> e.getTargetRef().getName()).toList());
    Endpoint ready = slice.getEndpoints().get(0);
    assertEquals(List.of("10.0.0.1"), ready.getAddresses());
    assertEquals(List.of(true, true, false), List.of(ready.getConditions().getReady(), ready.getConditions().getServing(),
        ready.getConditions().getTerminating()));
    assertEquals("web-0", ready.getHostname());
    assertEquals("node-a", ready.getNodeName());
    assertEquals(List.of("Pod", "ns", "web-0-uid"), List.of(ready.getTargetRef().getKind(),
        ready.getTargetRef().getNamespace(), ready.getTargetRef().getUid()));
    assertNull(ready.getZone());
    Endpoint notReady = slice.getEndpoints().get(1);
    assertEquals(List.of(false, false, false), List.of(notReady.getConditions().getReady(),
        notReady.getConditions().getServing(), notReady.getConditions().getTerminating()));
  }

  @Test
  void aTerminatingPodIsServingButNotReadyAndAFinishedOneIsLeftOut() {
    Pod terminating = pod("web-0", "10.0.0.1", true, "http");
    terminating.getMetadata().setDeletionTimestamp("2026-01-01T00:00:00Z");
    Pod finished = pod("web-1", "10.0.0.2", false, "http");
    finished.getStatus().setPhase("Succeeded");
    Service service = service("10.96.0.10", "http");
    EndpointSlice slice = EndpointSliceController.desired(service, List.of(terminating, finished)).getFirst();
    assertEquals(1, slice.getEndpoints().size());
    var conditions = slice.getEndpoints().getFirst().getConditions();
    assertEquals(List.of(false, true, true), List.of(conditions.getReady(), conditions.getServing(),
        conditions.getTerminating()));
    assertFalse(slice.getMetadata().getLabels().containsKey("service.kubernetes.io/headless"), "a ClusterIP Service");

    service.getSpec().setPublishNotReadyAddresses(true);
    assertTrue(EndpointSliceController.desired(service, List.of(terminating)).getFirst().getEndpoints().getFirst()
        .getConditions().getReady(), "publishNotReadyAddresses makes every endpoint ready");
  }

  @Test
  void podsWhosePortsResolveDifferentlyGetSlicesOfTheirOwnAndNoPodsAPlaceholder() {
    Service service = service("None", "http");
    List<EndpointSlice> slices = EndpointSliceController.desired(service,
        List.of(pod("web-0", "10.0.0.1", true, "http"), pod("web-1", "10.0.0.2", true, "web")));
    assertEquals(2, slices.size());
    assertEquals(List.of(1, 0), slices.stream().map(s -> s.getPorts().size()).toList(), "web-1 names no port http");

    List<EndpointSlice> placeholder = EndpointSliceController.desired(service, List.of());
    assertEquals(1, placeholder.size());
    assertEquals(List.of(), placeholder.getFirst().getEndpoints());
    assertEquals(List.of(), placeholder.getFirst().getPorts());

    service.getSpec().setSelector(Map.of());
    assertEquals(List.of(), EndpointSliceController.desired(service, List.of(pod("web-0", "10.0.0.1", true, "http"))),
        "a Service without a selector gets no managed slice");
    service.getSpec().setSelector(Map.of("app", "web"));
    service.getSpec().setType("ExternalName");
    assertEquals(List.of(), EndpointSliceController.desired(service, List.of()));
  }

  @Test
  void aSliceHoldsAtMostAHundredEndpoints() {
    List<Pod> pods = new ArrayList<>();
    for (int i = 0; i < 250; i++) {
      pods.add(pod("web-" + i, "10.0." + (i / 200) + "." + (i % 200 + 1), true, "http"));
    }
    assertEquals(List.of(100, 100, 50), EndpointSliceController.desired(service("None", "http"), pods).stream()
        .map(s -> s.getEndpoints().size()).toList());
  }

  @Test
  void namesAreTheServicesPrefixAndFiveCharactersDrawnFromItsUid() {
    Service service = service("None", "http");
    String name = EndpointSliceController.generatedName(service, 0);
    assertTrue(name.matches("web-[bcdfghjklmnpqrstvwxz2456789]{5}"), name);
    assertEquals(name, EndpointSliceController.generatedName(service, 0), "the same for every instance");
    assertNotEquals(name, EndpointSliceController.generatedName(service, 1));
    service.getMetadata().setName("a".repeat(63));
    assertEquals(63, EndpointSliceController.generatedName(service, 0).length());
  }

  /** A stored slice: as written, read back from JSON, with the row's fields. */
  private static EndpointSlice stored(EndpointSlice slice, String name, long resourceVersion) {
    EndpointSlice copy = KubeJson.read(KubeJson.write(slice), EndpointSlice.class);
    copy.getMetadata().setName(name);
    copy.getMetadata().setGeneration(1L);
    copy.getMetadata().setResourceVersion(Long.toString(resourceVersion));
    return copy;
  }

  @Test
  void aStoredSliceAsDesiredStaysAChangedOneIsUpdatedUnderItsNameAndOneOfAnEarlierServiceGoes() {
    Service service = service("None", "http");
    List<EndpointSlice> desired = EndpointSliceController.desired(service, List.of(pod("web-0", "10.0.0.1", true, "http")));
    Set<String> taken = new HashSet<>();
    List<Write> created = EndpointSliceController.plan(service, desired, List.of(), taken);
    assertEquals(List.of(Op.CREATE), created.stream().map(Write::op).toList());
    String name = created.getFirst().slice().getMetadata().getName();
    assertEquals(Set.of(name), taken);

    EndpointSlice current = stored(created.getFirst().slice(), name, 7);
    assertEquals(List.of(), EndpointSliceController.plan(service,
        EndpointSliceController.desired(service, List.of(pod("web-0", "10.0.0.1", true, "http"))), List.of(current),
        new HashSet<>(taken)), "nothing to write: the stored slice is as desired");

    List<Write> flipped = EndpointSliceController.plan(service,
        EndpointSliceController.desired(service, List.of(pod("web-0", "10.0.0.1", false, "http"))), List.of(current),
        new HashSet<>(taken));
    assertEquals(List.of(Op.UPDATE), flipped.stream().map(Write::op).toList());
    assertEquals(name, flipped.getFirst().to().getMetadata().getName(), "a slice keeps its name");
    assertEquals(2L, flipped.getFirst().to().getMetadata().getGeneration());
    assertEquals("7", flipped.getFirst().slice().getMetadata().getResourceVersion());

    Service recreated = service("None", "http");
    recreated.getMetadata().setUid("another-uid");
    List<Write> replaced = EndpointSliceController.plan(recreated,
        EndpointSliceController.desired(recreated, List.of()), List.of(current), new HashSet<>(taken));
    assertEquals(List.of(Op.DELETE, Op.CREATE), replaced.stream().map(Write::op).toList());
    assertNotEquals(name, replaced.get(1).slice().getMetadata().getName());

    assertEquals(List.of(Op.DELETE), EndpointSliceController.plan(service, List.of(), List.of(current),
        new HashSet<>(taken)).stream().map(Write::op).toList(), "a Service that stops selecting has none");
  }
}
