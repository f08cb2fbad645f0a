package io.ordinal.api.table;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.LimitRange;
import io.fabric8.kubernetes.api.model.ListMetaBuilder;
import io.fabric8.kubernetes.api.model.MicroTime;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.ControllerRevision;
import io.fabric8.kubernetes.api.model.apps.ControllerRevisionBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import io.ordinal.api.table.Tables.IncludeObject;
import io.ordinal.api.table.Tables.Version;
import io.ordinal.store.KubeJson;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class TablesTest {
  static final Instant NOW = Instant.parse("2025-06-01T12:00:00Z");

  static String ago(Duration d) {
    return KubeJson.timestamp(NOW.minus(d));
  }

  static List<Object> cells(Pod pod) {
    return table(Pod.class, List.of(pod), IncludeObject.None).rows().getFirst().cells();
  }

  static <T extends HasMetadata> Table table(Class<T> kind, List<T> items, IncludeObject include) {
    return Tables.table(kind, items, NOW, include, Version.V1, new ListMetaBuilder().withResourceVersion("42").build());
  }

  static List<String> names(Table table) {
    return table.columnDefinitions().stream().map(c -> c.name() + (c.priority() == 1 ? "*" : "")).toList();
  }

  @ParameterizedTest
  @CsvSource({
      "0, 0s", "5, 5s", "119, 119s", "120, 2m", "200, 3m20s", "599, 9m59s", "600, 10m", "10740, 179m",
      "10800, 3h", "12000, 3h20m", "28799, 7h59m", "28800, 8h", "169200, 47h", "172800, 2d", "190800, 2d5h",
      "687600, 7d23h", "691200, 8d", "62985600, 729d", "63072000, 2y", "66960000, 2y45d", "252288000, 8y",
      "-1, 0s", "-2, <invalid>"})
  void agesAreHumanDurations(long seconds, String expected) {
    assertEquals(expected, HumanDuration.format(Duration.ofSeconds(seconds)));
  }

  /** Upstream's printEndpointSlice: three ports and addresses at most, then how many more; none is {@code <unset>}. */
  @Test
  void endpointSlices() {
    EndpointSliceBuilder many = new EndpointSliceBuilder().withNewMetadata().withName("web-bcdfg")
        .withCreationTimestamp(ago(Duration.ofSeconds(200))).endMetadata().withAddressType("IPv4");
    for (int i = 1; i <= 5; i++) {
      many.addNewEndpoint().withAddresses("10.0.0." + i).endEndpoint();
    }
    many.addNewPort().withPort(80).endPort().addNewPort().withName("named").endPort().addNewPort().endPort()
        .addNewPort().withPort(443).endPort();
    EndpointSlice placeholder = new EndpointSliceBuilder().withNewMetadata().withName("db-xyz2k")
        .withCreationTimestamp(ago(Duration.ofSeconds(5))).endMetadata().withAddressType("IPv4").build();
    Table table = table(EndpointSlice.class, List.of(many.build(), placeholder), IncludeObject.None);
    assertEquals(List.of("Name", "AddressType", "Ports", "Endpoints", "Age"), names(table));
    assertEquals(List.of("web-bcdfg", "IPv4", "80,named,* + 1 more...", "10.0.0.1,10.0.0.2,10.0.0.3 + 2 more...", "3m20s"),
        table.rows().get(0).cells());
    assertEquals(List.of("db-xyz2k", "IPv4", "<unset>", "<unset>", "5s"), table.rows().get(1).cells());
  }

  @Test
  void aMissingTimestampIsUnknown() {
    assertEquals("<unknown>", HumanDuration.since(null, NOW));
    // Go's int(d.Seconds()) truncates toward zero: 1.5s in the future is still "now".
    assertEquals("0s", HumanDuration.format(Duration.ofMillis(-1500)));
  }

  @Test
  void statefulSets() {
    StatefulSet set = new StatefulSetBuilder()
        .withNewMetadata().withName("web").withCreationTimestamp(ago(Duration.ofSeconds(200))).endMetadata()
        .withNewSpec().withReplicas(3).withNewTemplate().withNewSpec()
        .addNewContainer().withName("nginx").withImage("nginx:1.25").endContainer()
        .addNewContainer().withName("sidecar").withImage("busybox").endContainer()
        .endSpec().endTemplate().endSpec()
        .withNewStatus().withReadyReplicas(2).endStatus()
        .build();
    Table table = table(StatefulSet.class, List.of(set), IncludeObject.None);
    assertEquals(List.of("Name", "Ready", "Age", "Containers*", "Images*"), names(table));
    assertEquals(List.of("web", "2/3", "3m20s", "nginx,sidecar", "nginx:1.25,busybox"), table.rows().getFirst().cells());
    assertEquals("name", table.columnDefinitions().getFirst().format());
  }

  static PodBuilder pod(String phase) {
    return new PodBuilder()
        .withNewMetadata().withName("web-0").withCreationTimestamp(ago(Duration.ofMinutes(10))).endMetadata()
        .withNewSpec().addNewContainer().withName("nginx").endContainer().endSpec()
        .withNewStatus().withPhase(phase).endStatus();
  }

  static ContainerStatus running(boolean ready, int restarts) {
    return new ContainerStatusBuilder().withName("nginx").withReady(ready).withRestartCount(restarts)
        .withNewState().withNewRunning().endRunning().endState().build();
  }

  static ContainerStatus waiting(String name, String reason) {
    return new ContainerStatusBuilder().withName(name).withReady(false).withRestartCount(0)
        .withNewState().withNewWaiting().withReason(reason).endWaiting().endState().build();
  }

  static ContainerStatus terminated(String name, String reason, int exitCode, int signal) {
    return new ContainerStatusBuilder().withName(name).withReady(false).withRestartCount(0)
        .withNewState().withNewTerminated().withReason(reason).withExitCode(exitCode).withSignal(signal)
        .endTerminated().endState().build();
  }

  static PodCondition condition(String type, String status) {
    return new PodConditionBuilder().withType(type).withStatus(status).build();
  }

  @Test
  void podColumnsAreUpstreams() {
    Table table = table(Pod.class, List.of(), IncludeObject.None);
    assertEquals(List.of("Name", "Ready", "Status", "Restarts", "Age", "IP*", "Node*", "Nominated Node*",
        "Readiness Gates*"), names(table));
    assertEquals(List.of(), table.rows());
  }

  @Test
  void aRunningPodShowsWhenItLastRestarted() {
    ContainerStatus status = new ContainerStatusBuilder(running(true, 2))
        .withNewLastState().withNewTerminated().withExitCode(1).withFinishedAt(ago(Duration.ofMinutes(5)))
        .endTerminated().endLastState().build();
    Pod pod = pod("Running").editStatus().withPodIP("10.0.0.5").withContainerStatuses(status).endStatus()
        .editSpec().withNodeName("node-1").endSpec().build();
    assertEquals(List.of("web-0", "1/1", "Running", "2 (5m ago)", "10m", "10.0.0.5", "node-1", "<none>", "<none>"),
        cells(pod));
  }

  @Test
  void theStatusIsTheLastContainerReasonThatIsSet() {
    assertEquals("ContainerCreating",
        cells(pod("Pending").editStatus().withContainerStatuses(waiting("nginx", "ContainerCreating")).endStatus().build()).get(2));
    assertEquals("0/1",
        cells(pod("Pending").editStatus().withContainerStatuses(waiting("nginx", "ContainerCreating")).endStatus().build()).get(1));
    assertEquals("ExitCode:137",
        cells(pod("Running").editStatus().withContainerStatuses(terminated("nginx", null, 137, 0)).endStatus().build()).get(2));
    assertEquals("Signal:9",
        cells(pod("Running").editStatus().withContainerStatuses(terminated("nginx", "", 137, 9)).endStatus().build()).get(2));
    assertEquals("Error",
        cells(pod("Failed").editStatus().withContainerStatuses(terminated("nginx", "Error", 1, 0)).endStatus().build()).get(2));
    // No container status yet: the phase.
    assertEquals(List.of("web-0", "0/1", "Pending", "0", "10m", "<none>", "<none>", "<none>", "<none>"),
        cells(pod("Pending").build()));
    // The pod's reason wins over its phase.
    assertEquals("Evicted", cells(pod("Failed").editStatus().withReason("Evicted").endStatus().build()).get(2));
  }

  @Test
  void aCompletedContainerBesideARunningOneIsRunningOrNotReady() {
    var statuses = List.of(terminated("init-like", "Completed", 0, 0), running(true, 0));
    // Containers are read last to first, so the reason ends as the first container's: Completed.
    Pod ready = pod("Running").editSpec().addNewContainer().withName("init-like").endContainer().endSpec()
        .editStatus().withContainerStatuses(statuses).withConditions(condition("Ready", "True")).endStatus().build();
    assertEquals(List.of("1/2", "Running"), cells(ready).subList(1, 3));
    Pod notReady = new PodBuilder(ready).editStatus().withConditions(condition("Ready", "False")).endStatus().build();
    assertEquals("NotReady", cells(notReady).get(2));
  }

  @Test
  void initContainersShowProgressThenFailures() {
    PodBuilder twoInits = pod("Pending").editSpec()
        .addNewInitContainer().withName("a").endInitContainer()
        .addNewInitContainer().withName("b").endInitContainer().endSpec();
    Pod progressing = new PodBuilder(twoInits.build()).editStatus().withInitContainerStatuses(
        terminated("a", "Completed", 0, 0), running(false, 0)).endStatus().build();
    assertEquals("Init:1/2", cells(progressing).get(2));
    Pod crashing = new PodBuilder(twoInits.build()).editStatus()
        .withInitContainerStatuses(waiting("a", "CrashLoopBackOff")).endStatus().build();
    assertEquals("Init:CrashLoopBackOff", cells(crashing).get(2));
    Pod starting = new PodBuilder(twoInits.build()).editStatus()
        .withInitContainerStatuses(waiting("a", "PodInitializing")).endStatus().build();
    assertEquals("Init:0/2", cells(starting).get(2));
    Pod failed = new PodBuilder(twoInits.build()).editStatus()
        .withInitContainerStatuses(terminated("a", null, 1, 0)).endStatus().build();
    assertEquals("Init:ExitCode:1", cells(failed).get(2));
    Pod killed = new PodBuilder(twoInits.build()).editStatus()
        .withInitContainerStatuses(terminated("a", "", 1, 9)).endStatus().build();
    assertEquals("Init:Signal:9", cells(killed).get(2));
    Pod oomed = new PodBuilder(twoInits.build()).editStatus()
        .withInitContainerStatuses(terminated("a", "OOMKilled", 137, 0)).endStatus().build();
    assertEquals("Init:OOMKilled", cells(oomed).get(2));
  }

  @Test
  void aSidecarCountsAsAContainerAndForRestarts() {
    ContainerStatus sidecar = new ContainerStatusBuilder().withName("proxy").withReady(true).withStarted(true)
        .withRestartCount(1).withNewState().withNewRunning().endRunning().endState()
        .withNewLastState().withNewTerminated().withExitCode(1).withFinishedAt(ago(Duration.ofSeconds(200)))
        .endTerminated().endLastState().build();
    Pod pod = pod("Running").editSpec().addNewInitContainer().withName("proxy").withRestartPolicy("Always")
        .endInitContainer().endSpec()
        .editStatus().withInitContainerStatuses(sidecar).withContainerStatuses(running(true, 0))
        .withConditions(condition("Initialized", "True")).endStatus().build();
    assertEquals(List.of("2/2", "Running", "1 (3m20s ago)"), cells(pod).subList(1, 4));
  }

  @Test
  void deletionShowsTerminatingUnlessTheNodeIsLostOrThePodFinished() {
    String deleted = ago(Duration.ofSeconds(3));
    Pod running = pod("Running").editMetadata().withDeletionTimestamp(deleted).endMetadata()
        .editStatus().withContainerStatuses(running(true, 0)).endStatus().build();
    assertEquals("Terminating", cells(running).get(2));
    Pod lost = new PodBuilder(running).editStatus().withReason("NodeLost").endStatus().build();
    assertEquals("Unknown", cells(lost).get(2));
    Pod succeeded = pod("Succeeded").editMetadata().withDeletionTimestamp(deleted).endMetadata()
        .editStatus().withContainerStatuses(terminated("nginx", "Completed", 0, 0)).endStatus().build();
    assertEquals("Completed", cells(succeeded).get(2));
  }

  @Test
  void finishedPodsCarryACompletedCondition() {
    Table table = table(Pod.class, List.of(pod("Succeeded").build(), pod("Failed").build(), pod("Running").build()),
        IncludeObject.None);
    assertEquals(List.of(new Table.RowCondition("Completed", "True", "Succeeded", "The pod has completed successfully.")),
        table.rows().get(0).conditions());
    assertEquals(List.of(new Table.RowCondition("Completed", "True", "Failed", "The pod failed.")),
        table.rows().get(1).conditions());
    assertNull(table.rows().get(2).conditions());
  }

  @Test
  void schedulingGatesReadinessGatesAndAddresses() {
    Pod gated = pod("Pending").editStatus()
        .withConditions(new PodConditionBuilder().withType("PodScheduled").withStatus("False").withReason("SchedulingGated").build()).endStatus().build();
    assertEquals("SchedulingGated", cells(gated).get(2));

    Pod gates = pod("Running").editSpec().addNewReadinessGate("example.com/a").addNewReadinessGate("example.com/b")
        .endSpec().editStatus().withConditions(condition("example.com/a", "True"), condition("example.com/b", "False"))
        .withNominatedNodeName("node-2").addNewPodIP("fd00::7").endStatus().build();
    // Only podIPs set: the first one is the pod's IP.
    assertEquals(List.of("fd00::7", "<none>", "node-2", "1/2"), cells(gates).subList(5, 9));
  }

  @Test
  void claims() {
    PersistentVolumeClaim bound = new PersistentVolumeClaimBuilder()
        .withNewMetadata().withName("data-web-0").withCreationTimestamp(ago(Duration.ofHours(1))).endMetadata()
        .withNewSpec().withVolumeName("pv-1").withStorageClassName("standard").withVolumeMode("Filesystem").endSpec()
        .withNewStatus().withPhase("Bound").withAccessModes("ReadWriteOncePod", "ReadOnlyMany", "ReadWriteOnce", "ReadWriteOnce")
        .withCapacity(Map.of("storage", new Quantity("1", "Gi"))).endStatus().build();
    PersistentVolumeClaim unbound = new PersistentVolumeClaimBuilder()
        .withNewMetadata().withName("data-web-1").withCreationTimestamp(ago(Duration.ofSeconds(5)))
        .withAnnotations(Map.of("volume.beta.kubernetes.io/storage-class", "legacy")).endMetadata()
        .withNewSpec().withStorageClassName("standard").withVolumeAttributesClassName("gold").endSpec()
        .withNewStatus().withPhase("Pending").withAccessModes("ReadWriteOnce").endStatus().build();
    PersistentVolumeClaim deleting = new PersistentVolumeClaimBuilder(bound)
        .editMetadata().withDeletionTimestamp(ago(Duration.ofSeconds(1))).endMetadata().build();
    Table table = table(PersistentVolumeClaim.class, List.of(bound, unbound, deleting), IncludeObject.None);
    assertEquals(List.of("Name", "Status", "Volume", "Capacity", "Access Modes", "StorageClass",
        "VolumeAttributesClass", "Age", "VolumeMode*"), names(table));
    assertEquals(List.of("data-web-0", "Bound", "pv-1", "1Gi", "RWO,ROX,RWOP", "standard", "<unset>", "60m", "Filesystem"),
        table.rows().get(0).cells());
    assertEquals(List.of("data-web-1", "Pending", "", "", "", "legacy", "gold", "5s", "<unset>"),
        table.rows().get(1).cells());
    assertEquals("Terminating", table.rows().get(2).cells().get(1));
  }

  @Test
  void events() {
    Event recorded = new EventBuilder()
        .withNewMetadata().withName("web-0.17a2b").endMetadata()
        .withFirstTimestamp(ago(Duration.ofMinutes(10))).withLastTimestamp(ago(Duration.ofSeconds(30))).withCount(3)
        .withType("Normal").withReason("Created").withMessage(" Created container nginx\n")
        .withNewInvolvedObject().withKind("Pod").withName("web-0").withFieldPath("spec.containers{nginx}").endInvolvedObject()
        .withNewSource().withComponent("ordinal").endSource().build();
    Event fromNewApi = new EventBuilder()
        .withNewMetadata().withName("web.17a2c").endMetadata()
        .withEventTime(new MicroTime(ago(Duration.ofSeconds(5)))).withType("Warning").withReason("FailedCreate")
        .withReportingComponent("statefulset-controller").withReportingInstance("ordinal-1")
        .withNewInvolvedObject().withKind("StatefulSet").withName("web").endInvolvedObject().build();
    Event series = new EventBuilder(recorded)
        .withNewSeries().withCount(7).withLastObservedTime(new MicroTime(ago(Duration.ofMinutes(1)))).endSeries().build();
    Event aboutAKind = new EventBuilder().withNewMetadata().withName("e").endMetadata()
        .withNewInvolvedObject().withKind("Node").endInvolvedObject().build();
    Table table = table(Event.class, List.of(recorded, fromNewApi, series, aboutAKind), IncludeObject.None);
    assertEquals(List.of("Last Seen", "Type", "Reason", "Object", "Subobject*", "Source*", "Message", "First Seen*",
        "Count*", "Name*"), names(table));
    assertEquals(List.of("30s", "Normal", "Created", "pod/web-0", "spec.containers{nginx}", "ordinal",
        "Created container nginx", "10m", 3L, "web-0.17a2b"), table.rows().get(0).cells());
    assertEquals(List.of("5s", "Warning", "FailedCreate", "statefulset/web", "", "statefulset-controller, ordinal-1",
        "", "5s", 1L, "web.17a2c"), table.rows().get(1).cells());
    assertEquals(List.of("60s", 7L), List.of(table.rows().get(2).cells().get(0), table.rows().get(2).cells().get(8)));
    assertEquals(List.of("<unknown>", "", "", "node", "", "", "", "<unknown>", 1L, "e"), table.rows().get(3).cells());
  }

  @Test
  void controllerRevisions() {
    ControllerRevision owned = new ControllerRevisionBuilder()
        .withNewMetadata().withName("web-5d4f").withCreationTimestamp(ago(Duration.ofHours(53)))
        .addNewOwnerReference().withApiVersion("apps/v1").withKind("StatefulSet").withName("web").withController(true)
        .endOwnerReference().endMetadata().withRevision(2L).build();
    ControllerRevision orphan = new ControllerRevisionBuilder()
        .withNewMetadata().withName("web-6c8b").withCreationTimestamp(ago(Duration.ofHours(1)))
        .addNewOwnerReference().withApiVersion("apps/v1").withKind("StatefulSet").withName("web").withController(false)
        .endOwnerReference().endMetadata().withRevision(1L).build();
    ControllerRevision coreOwner = new ControllerRevisionBuilder()
        .withNewMetadata().withName("x").addNewOwnerReference().withApiVersion("v1").withKind("Pod").withName("p")
        .withController(true).endOwnerReference().endMetadata().build();
    Table table = table(ControllerRevision.class, List.of(owned, orphan, coreOwner), IncludeObject.None);
    assertEquals(List.of("Name", "Controller", "Revision", "Age"), names(table));
    assertEquals(List.of("web-5d4f", "statefulset.apps/web", 2L, "2d5h"), table.rows().get(0).cells());
    assertEquals(List.of("web-6c8b", "<none>", 1L, "60m"), table.rows().get(1).cells());
    assertEquals(List.of("x", "pod/p", 0L, "<unknown>"), table.rows().get(2).cells());

    ControllerRevision bad = new ControllerRevisionBuilder(coreOwner).editMetadata().editFirstOwnerReference()
        .withApiVersion("a/b/c").endOwnerReference().endMetadata().build();
    var error = assertThrows(IllegalArgumentException.class,
        () -> table(ControllerRevision.class, List.of(bad), IncludeObject.None));
    assertEquals("unexpected GroupVersion string: a/b/c", error.getMessage());
  }

  @Test
  void rowsCarryMetadataTheObjectOrNothing() {
    Pod pod = pod("Running").editMetadata().withNamespace("default").withResourceVersion("7").endMetadata().build();
    Object partial = table(Pod.class, List.of(pod), IncludeObject.Metadata).rows().getFirst().object();
    assertEquals(new Table.PartialObjectMetadata("PartialObjectMetadata", "meta.k8s.io/v1", pod.getMetadata()), partial);
    assertSame(pod, table(Pod.class, List.of(pod), IncludeObject.Object).rows().getFirst().object());
    assertNull(table(Pod.class, List.of(pod), IncludeObject.None).rows().getFirst().object());

    Table beta = Tables.table(Pod.class, List.of(pod), NOW, IncludeObject.Metadata, Version.V1BETA1, null);
    assertEquals("meta.k8s.io/v1beta1", beta.apiVersion());
    assertEquals("meta.k8s.io/v1beta1", ((Table.PartialObjectMetadata) beta.rows().getFirst().object()).apiVersion());
  }

  @Test
  void theJsonIsUpstreamsShape() throws Exception {
    Pod pod = pod("Running").editMetadata().withNamespace("default").endMetadata().build();
    Table table = Tables.table(Pod.class, List.of(pod), NOW, IncludeObject.Metadata, Version.V1,
        new ListMetaBuilder().withResourceVersion("42").withContinue("next").build());
    JsonNode json = KubeJson.JSON.readTree(KubeJson.write(table));
    assertEquals(List.of("kind", "apiVersion", "metadata", "columnDefinitions", "rows"), fieldNames(json));
    assertEquals("Table", json.get("kind").asText());
    assertEquals("meta.k8s.io/v1", json.get("apiVersion").asText());
    assertEquals("42", json.at("/metadata/resourceVersion").asText());
    assertEquals("next", json.at("/metadata/continue").asText());
    assertEquals(List.of("name", "type", "format", "description", "priority"), fieldNames(json.at("/columnDefinitions/1")));
    assertEquals("", json.at("/columnDefinitions/1/format").asText());
    assertEquals(List.of("cells", "object"), fieldNames(json.at("/rows/0")));
    assertEquals("PartialObjectMetadata", json.at("/rows/0/object/kind").asText());
    assertEquals("web-0", json.at("/rows/0/object/metadata/name").asText());
    assertEquals("0", json.at("/rows/0/cells/3").asText());

    JsonNode none = KubeJson.JSON.readTree(KubeJson.write(table(Event.class,
        List.of(new EventBuilder().withNewMetadata().withName("e").endMetadata().build()), IncludeObject.None)));
    assertEquals(List.of("cells"), fieldNames(none.at("/rows/0")));
    assertEquals(1, none.at("/rows/0/cells/8").asInt());
    assertFalse(none.at("/rows/0/cells/8").isTextual());
  }

  static List<String> fieldNames(JsonNode node) {
    List<String> names = new ArrayList<>();
    node.fieldNames().forEachRemaining(names::add);
    return names;
  }

  /** Upstream's default table convertor: Name and Created At, for a kind without a printer of its own. */
  @Test
  void aKindWithoutAPrinterGetsNameAndCreatedAt() {
    LimitRange range = new io.fabric8.kubernetes.api.model.LimitRangeBuilder().withNewMetadata().withName("s")
        .withCreationTimestamp("2026-01-02T03:04:05Z").endMetadata().build();
    Table table = Tables.table(LimitRange.class, List.of(range), NOW, IncludeObject.None, Version.V1, null);
    assertEquals(List.of("Name", "Created At"), table.columnDefinitions().stream().map(Table.Column::name).toList());
    assertEquals(List.of("s", "2026-01-02T03:04:05Z"), table.rows().getFirst().cells());
  }

  @Test
  void namespacesPrintTheirPhase() {
    Namespace namespace = new io.fabric8.kubernetes.api.model.NamespaceBuilder().withNewMetadata().withName("n")
        .withCreationTimestamp(NOW.minusSeconds(120).toString()).endMetadata().withNewStatus().withPhase("Terminating")
        .endStatus().build();
    Table table = Tables.table(Namespace.class, List.of(namespace), NOW, IncludeObject.None, Version.V1, null);
    assertEquals(List.of("Name", "Status", "Age"), table.columnDefinitions().stream().map(Table.Column::name).toList());
    assertEquals(List.of("n", "Terminating", "2m"), table.rows().getFirst().cells());
  }

  @Test
  void includeObjectDefaultsToMetadata() {
    assertEquals(IncludeObject.Metadata, IncludeObject.parse(null));
    assertEquals(IncludeObject.Metadata, IncludeObject.parse(""));
    assertEquals(IncludeObject.Object, IncludeObject.parse("Object"));
    assertEquals(IncludeObject.None, IncludeObject.parse("None"));
    var error = assertThrows(IllegalArgumentException.class, () -> IncludeObject.parse("object"));
    assertEquals("unrecognized includeObject value: \"object\"", error.getMessage());
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', nullValues = "null", value = {
      // What kubectl get sends.
      "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json | V1",
      "application/json;as=Table;v=v1beta1;g=meta.k8s.io, application/json | V1BETA1",
      "application/json | null",
      "null | null",
      "'' | null",
      "application/json, application/json;as=Table;v=v1;g=meta.k8s.io | null",
      // A conversion the server does not have is skipped.
      "application/json;as=Table;v=v2;g=meta.k8s.io,application/json | null",
      "application/json;as=Table;v=v1;g=example.com,application/json;as=Table;v=v1beta1;g=meta.k8s.io | V1BETA1",
      "application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1;g=meta.k8s.io | V1",
      "text/html,application/json;as=Table;v=v1;g=meta.k8s.io | V1",
      // Preference by q first.
      "application/json;q=0.5,application/json;as=Table;v=v1;g=meta.k8s.io | V1",
      "application/json;as=Table;v=v1;g=meta.k8s.io;q=0.5,application/json | null",
      "*/*;as=Table;v=v1;g=meta.k8s.io | V1",
      "application/*;as=Table;v=v1;g=meta.k8s.io | V1",
      "application/yaml;as=Table;v=v1;g=meta.k8s.io | V1",
      // Metadata alone is served, but it is no table.
      "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1;g=meta.k8s.io | null",
  })
  void theAcceptHeaderAsksForATable(String accept, String expected) {
    assertEquals(Optional.ofNullable(expected).map(Version::valueOf), Tables.requestedTable(accept));
  }
}
