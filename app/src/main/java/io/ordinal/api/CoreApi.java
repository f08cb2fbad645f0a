package io.ordinal.api;

import io.fabric8.kubernetes.api.model.Endpoints;
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
import io.micronaut.http.server.types.files.StreamedFile;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import io.ordinal.kube.LabelSelectors;
import io.ordinal.store.EventRecorder;
import io.ordinal.store.PodStore;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.io.IOException;
import java.util.List;
import java.util.Map;

/** {@code /api/v1}: the pods, PVCs and events of sets. */
@Controller("/api/v1/namespaces/{namespace}")
@ExecuteOn(TaskExecutors.BLOCKING)
@Tag(name = "v1")
public class CoreApi {
  private final PodStore pods;
  private final EventRecorder events;
  private final PodService podService;

  public CoreApi(PodStore pods, EventRecorder events, PodService podService) {
    this.pods = pods;
    this.events = events;
    this.podService = podService;
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
    return KubeCodec.ok(request, podService.delete(namespace, name));
  }

  @Get(value = "/pods/{name}/log", produces = MediaType.TEXT_PLAIN)
  @Operation(summary = "A container's log (local driver): container, tailLines, previous, follow")
  public HttpResponse<?> podLog(String namespace, String name, @Nullable @QueryValue String container,
      @Nullable @QueryValue Integer tailLines, @Nullable @QueryValue Boolean previous,
      @Nullable @QueryValue Boolean follow) throws IOException {
    return switch (podService.log(namespace, name, container, tailLines, Boolean.TRUE.equals(previous),
        Boolean.TRUE.equals(follow))) {
      case PodService.PodLog.Following following ->
          HttpResponse.ok(new StreamedFile(following.stream(), MediaType.TEXT_PLAIN_TYPE));
      case PodService.PodLog.Text text -> HttpResponse.ok(text.text()).contentType(MediaType.TEXT_PLAIN);
    };
  }

  @Get(value = "/endpoints/{name}", produces = {MediaType.APPLICATION_JSON, KubeCodec.YAML})
  @Operation(summary = "Endpoints of a governing service: the members of the sets that name it")
  @ApiResponse(responseCode = "200", content = @Content(schema = @Schema(implementation = Endpoints.class)))
  public HttpResponse<String> endpoints(HttpRequest<?> request, String namespace, String name) {
    return KubeCodec.ok(request, podService.endpoints(namespace, name));
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
