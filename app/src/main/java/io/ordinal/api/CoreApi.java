package io.ordinal.api;

import io.fabric8.kubernetes.api.model.EndpointAddress;
import io.fabric8.kubernetes.api.model.EndpointAddressBuilder;
import io.fabric8.kubernetes.api.model.EndpointPort;
import io.fabric8.kubernetes.api.model.EndpointSubsetBuilder;
import io.fabric8.kubernetes.api.model.Endpoints;
import io.fabric8.kubernetes.api.model.EndpointsBuilder;
import io.fabric8.kubernetes.api.model.EventList;
import io.fabric8.kubernetes.api.model.EventListBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.ListMeta;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimList;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimListBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodList;
import io.fabric8.kubernetes.api.model.PodListBuilder;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Delete;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.QueryValue;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import io.ordinal.driver.local.LocalDriver;
import io.ordinal.kube.LabelSelectors;
import io.ordinal.model.SetKey;
import io.ordinal.store.EventRecorder;
import io.ordinal.store.PodStore;
import io.ordinal.store.StatefulSetStore;
import io.ordinal.temporal.SetSignals;
import io.ordinal.workflow.PodActivities;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.util.List;
import java.util.Map;

/** {@code /api/v1}: the pods, PVCs and events of sets. */
@Controller("/api/v1/namespaces/{namespace}")
@ExecuteOn(TaskExecutors.BLOCKING)
@Tag(name = "v1")
public class CoreApi {
  private final PodStore pods;
  private final EventRecorder events;
  private final PodActivities podActivities;
  private final SetSignals signals;
  private final LocalDriver localDriver;
  private final StatefulSetStore sets;

  public CoreApi(PodStore pods, EventRecorder events, PodActivities podActivities, SetSignals signals,
      LocalDriver localDriver, StatefulSetStore sets) {
    this.localDriver = localDriver;
    this.sets = sets;
    this.pods = pods;
    this.events = events;
    this.podActivities = podActivities;
    this.signals = signals;
  }

  @Get(value = "/pods", produces = {MediaType.APPLICATION_JSON, KubeCodec.YAML})
  @Operation(summary = "List pods, optionally filtered by labelSelector")
  @ApiResponse(responseCode = "200", content = @Content(schema = @Schema(implementation = PodList.class)))
  public HttpResponse<String> listPods(HttpRequest<?> request, String namespace, @Nullable @QueryValue String labelSelector) {
    List<Pod> items = selected(pods.list(namespace), labelSelector);
    return KubeCodec.ok(request, new PodListBuilder().withApiVersion("v1").withKind("PodList")
        .withMetadata(new ListMeta()).withItems(items).build());
  }

  @Get(value = "/pods/{name}", produces = {MediaType.APPLICATION_JSON, KubeCodec.YAML})
  @Operation(summary = "Read a pod")
  @ApiResponse(responseCode = "200", content = @Content(schema = @Schema(implementation = Pod.class)))
  public HttpResponse<String> getPod(HttpRequest<?> request, String namespace, String name) {
    return KubeCodec.ok(request, pods.find(namespace, name).map(PodStore::toObject)
        .orElseThrow(() -> ApiException.notFound("pods", name)));
  }

  @Delete(value = "/pods/{name}", produces = {MediaType.APPLICATION_JSON, KubeCodec.YAML})
  @Operation(summary = "Delete a pod; its set recreates it with the same identity and storage")
  @ApiResponse(responseCode = "200", content = @Content(schema = @Schema(implementation = Pod.class)))
  public HttpResponse<String> deletePod(HttpRequest<?> request, String namespace, String name) {
    var row = pods.find(namespace, name).orElseThrow(() -> ApiException.notFound("pods", name));
    SetKey key = new SetKey(namespace, row.setName());
    podActivities.deletePod(new PodActivities.PodDeletion(key, name, "deleted through the API"));
    signals.podChanged(namespace, row.setName(), name);
    return KubeCodec.ok(request, pods.find(namespace, name).map(PodStore::toObject).orElse(PodStore.toObject(row)));
  }

  @Get(value = "/pods/{name}/log", produces = MediaType.TEXT_PLAIN)
  @Operation(summary = "A container's log (local driver): container, tailLines, previous, follow")
  public HttpResponse<?> podLog(String namespace, String name, @Nullable @QueryValue String container,
      @Nullable @QueryValue Integer tailLines, @Nullable @QueryValue Boolean previous,
      @Nullable @QueryValue Boolean follow) throws java.io.IOException {
    var row = pods.find(namespace, name).orElseThrow(() -> ApiException.notFound("pods", name));
    var pod = PodStore.toObject(row);
    List<String> names = pod.getSpec().getContainers().stream().map(c -> c.getName()).toList();
    String chosen = container;
    if (chosen == null) {
      if (names.size() != 1) {
        throw ApiException.badRequest("a container name must be specified for pod " + name + ", choose one of: " + names);
      }
      chosen = names.get(0);
    } else if (!names.contains(chosen) && (pod.getSpec().getInitContainers() == null
        || pod.getSpec().getInitContainers().stream().noneMatch(c -> c.getName().equals(container)))) {
      throw ApiException.badRequest("container " + chosen + " is not valid for pod " + name);
    }
    if (tailLines != null && tailLines < 0) {
      throw ApiException.badRequest("tailLines must be greater than or equal to 0");
    }
    java.nio.file.Path file = localDriver.logFile(namespace, name, chosen, Boolean.TRUE.equals(previous));
    if (!java.nio.file.Files.exists(file)) {
      if (Boolean.TRUE.equals(previous)) {
        throw ApiException.badRequest("previous terminated container \"" + chosen + "\" in pod \"" + name + "\" not found");
      }
      return HttpResponse.ok("").contentType(MediaType.TEXT_PLAIN);
    }
    byte[] bytes = java.nio.file.Files.readAllBytes(file);
    int start = tailStart(bytes, tailLines);
    if (Boolean.TRUE.equals(follow) && !Boolean.TRUE.equals(previous)) {
      String uid = row.uid();
      var stream = new FollowingInputStream(file, start,
          () -> pods.find(namespace, name).filter(p -> p.uid().equals(uid) && !p.terminating()).isPresent(),
          java.time.Duration.ofHours(1));
      return HttpResponse.ok(new io.micronaut.http.server.types.files.StreamedFile(stream, MediaType.TEXT_PLAIN_TYPE));
    }
    return HttpResponse.ok(new String(bytes, start, bytes.length - start, java.nio.charset.StandardCharsets.UTF_8))
        .contentType(MediaType.TEXT_PLAIN);
  }

  /**
   * The members of a governing service: every pod of the namespace's sets whose serviceName is
   * {@code name}, with its stable address. No Service object is needed (a deliberate difference).
   */
  @Get(value = "/endpoints/{name}", produces = {MediaType.APPLICATION_JSON, KubeCodec.YAML})
  @Operation(summary = "Endpoints of a governing service: the members of the sets that name it")
  @ApiResponse(responseCode = "200", content = @Content(schema = @Schema(implementation = Endpoints.class)))
  public HttpResponse<String> endpoints(HttpRequest<?> request, String namespace, String name) {
    var governed = sets.list(namespace).stream().filter(s -> name.equals(s.getSpec().getServiceName())).toList();
    if (governed.isEmpty()) {
      throw ApiException.notFound("endpoints", name);
    }
    var setNames = governed.stream().map(s -> s.getMetadata().getName()).collect(java.util.stream.Collectors.toSet());
    List<EndpointAddress> ready = new java.util.ArrayList<>();
    List<EndpointAddress> notReady = new java.util.ArrayList<>();
    for (var row : pods.rows().findByNamespaceOrderByName(namespace)) {
      if (!setNames.contains(row.setName()) || row.podIp() == null || row.terminating()) {
        continue;
      }
      EndpointAddress address = new EndpointAddressBuilder().withIp(row.podIp()).withHostname(row.name())
          .withNodeName("localhost").withNewTargetRef().withKind("Pod").withName(row.name())
          .withNamespace(namespace).withUid(row.uid()).endTargetRef().build();
      (row.ready() ? ready : notReady).add(address);
    }
    java.util.Map<String, EndpointPort> ports = new java.util.LinkedHashMap<>();
    for (var set : governed) {
      for (var container : set.getSpec().getTemplate().getSpec().getContainers()) {
        for (var port : container.getPorts() == null ? List.<io.fabric8.kubernetes.api.model.ContainerPort>of() : container.getPorts()) {
          ports.putIfAbsent(port.getName() + "/" + port.getContainerPort(),
              new EndpointPort(null, port.getName(), port.getContainerPort(), port.getProtocol()));
        }
      }
    }
    Endpoints endpoints = new EndpointsBuilder().withApiVersion("v1").withKind("Endpoints")
        .withNewMetadata().withName(name).withNamespace(namespace).endMetadata()
        .build();
    if (!ready.isEmpty() || !notReady.isEmpty()) {
      endpoints.setSubsets(List.of(new EndpointSubsetBuilder().withAddresses(ready).withNotReadyAddresses(notReady)
          .withPorts(List.copyOf(ports.values())).build()));
    }
    return KubeCodec.ok(request, endpoints);
  }

  @Get(value = "/persistentvolumeclaims", produces = {MediaType.APPLICATION_JSON, KubeCodec.YAML})
  @Operation(summary = "List PVCs, optionally filtered by labelSelector")
  @ApiResponse(responseCode = "200", content = @Content(schema = @Schema(implementation = PersistentVolumeClaimList.class)))
  public HttpResponse<String> listClaims(HttpRequest<?> request, String namespace, @Nullable @QueryValue String labelSelector) {
    List<PersistentVolumeClaim> items = selected(pods.listClaims(namespace), labelSelector);
    return KubeCodec.ok(request, new PersistentVolumeClaimListBuilder().withApiVersion("v1")
        .withKind("PersistentVolumeClaimList").withMetadata(new ListMeta()).withItems(items).build());
  }

  @Get(value = "/persistentvolumeclaims/{name}", produces = {MediaType.APPLICATION_JSON, KubeCodec.YAML})
  @Operation(summary = "Read a PVC")
  @ApiResponse(responseCode = "200", content = @Content(schema = @Schema(implementation = PersistentVolumeClaim.class)))
  public HttpResponse<String> getClaim(HttpRequest<?> request, String namespace, String name) {
    return KubeCodec.ok(request, pods.findClaim(namespace, name)
        .orElseThrow(() -> ApiException.notFound("persistentvolumeclaims", name)));
  }

  @Get(value = "/events", produces = {MediaType.APPLICATION_JSON, KubeCodec.YAML})
  @Operation(summary = "List events, oldest first")
  @ApiResponse(responseCode = "200", content = @Content(schema = @Schema(implementation = EventList.class)))
  public HttpResponse<String> listEvents(HttpRequest<?> request, String namespace) {
    return KubeCodec.ok(request, new EventListBuilder().withApiVersion("v1").withKind("EventList")
        .withMetadata(new ListMeta()).withItems(events.list(namespace)).build());
  }

  /** Where the last {@code tailLines} lines of a log begin (0 for the whole log). */
  static int tailStart(byte[] log, Integer tailLines) {
    if (tailLines == null) {
      return 0;
    }
    int end = log.length > 0 && log[log.length - 1] == '\n' ? log.length - 1 : log.length;
    int seen = 0;
    for (int i = end - 1; i >= 0; i--) {
      if (log[i] == '\n' && ++seen == tailLines) {
        return i + 1;
      }
    }
    return tailLines == 0 ? log.length : 0;
  }

  /** The objects whose labels match the {@code labelSelector} query parameter (all when it is absent). */
  static <T extends HasMetadata> List<T> selected(List<T> objects, String labelSelector) {
    if (labelSelector == null || labelSelector.isBlank()) {
      return objects;
    }
    LabelSelector selector;
    try {
      selector = LabelSelectors.parse(labelSelector);
    } catch (IllegalArgumentException e) {
      throw ApiException.badRequest("invalid labelSelector: " + e.getMessage());
    }
    return objects.stream().filter(o -> LabelSelectors.matches(selector,
        o.getMetadata().getLabels() == null ? Map.of() : o.getMetadata().getLabels())).toList();
  }
}
