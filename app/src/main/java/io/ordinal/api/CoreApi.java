package io.ordinal.api;

import io.ordinal.api.registry.WriteOptions;
import io.ordinal.api.registry.Deletion;
import io.fabric8.kubernetes.api.model.Endpoints;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventList;
import io.fabric8.kubernetes.api.model.ListMeta;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceList;
import io.fabric8.kubernetes.api.model.NamespaceListBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimList;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodList;
import io.fabric8.kubernetes.api.model.PodListBuilder;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Delete;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.Patch;
import io.micronaut.http.annotation.Post;
import io.micronaut.http.annotation.Put;
import io.micronaut.http.annotation.QueryValue;
import io.micronaut.http.server.types.files.StreamedFile;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import io.ordinal.api.log.LogOptions;
import io.ordinal.api.registry.Update;
import io.ordinal.api.watch.ListOptions;
import io.ordinal.api.watch.Watches;
import io.ordinal.apimachinery.ApiException;
import io.ordinal.apimachinery.KubeCodec;
import io.ordinal.apimachinery.KubeProtobuf;
import io.ordinal.store.EventRecorder;
import io.ordinal.store.PodStore;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.parameters.RequestBody;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.io.IOException;
import java.time.Instant;
import java.util.List;

/** {@code /api/v1}: the pods, PVCs and events of sets. */
@Controller("/api/v1")
@ExecuteOn(TaskExecutors.BLOCKING)
@Tag(name = "v1")
public class CoreApi {
  private static final String NS = "/namespaces/{namespace}";

  private final PodStore pods;
  private final PodService podService;
  private final EventRecorder events;
  private final NamespaceService namespaces;
  private final Watches watches;
  private final Collection<Pod> podCollection;
  private final Collection<PersistentVolumeClaim> claimCollection;
  private final Collection<Event> eventCollection;

  public CoreApi(PodStore pods, EventRecorder events, PodService podService, Watches watches, NamespaceService namespaces) {
    this.namespaces = namespaces;
    this.pods = pods;
    this.podService = podService;
    this.events = events;
    this.watches = watches;
    this.podCollection = new Collection<>("pods", Pod.class, "v1", "Pod", (Collection.Lister<Pod>) pods::list);
    this.claimCollection = new Collection<>("persistent_volume_claims", PersistentVolumeClaim.class, "v1",
        "PersistentVolumeClaim", pods::listClaims);
    this.eventCollection = new Collection<>("events", Event.class, "v1", "Event", events::list);
  }

  @Get(value = "/namespaces", produces = {MediaType.APPLICATION_JSON, KubeCodec.YAML})
  @Operation(summary = "List the namespaces: default, those created or labelled, and those that hold a set, pod, claim or event")
  @ApiResponse(responseCode = "200", content = @Content(schema = @Schema(implementation = NamespaceList.class)))
  public HttpResponse<String> listNamespaces(HttpRequest<?> request) {
    return KubeCodec.ok(request, new NamespaceListBuilder().withApiVersion("v1").withKind("NamespaceList")
        .withMetadata(new ListMeta()).withItems(namespaces.list()).build());
  }

  @Get(value = "/namespaces/{name}", produces = {MediaType.APPLICATION_JSON, KubeCodec.YAML})
  @Operation(summary = "Read a namespace: every valid name is one; created or labelled ones have their labels")
  @ApiResponse(responseCode = "200", content = @Content(schema = @Schema(implementation = Namespace.class)))
  public HttpResponse<String> getNamespace(HttpRequest<?> request, String name) {
    return KubeCodec.ok(request, namespaces.get(name));
  }

  @Post(value = "/namespaces", consumes = {MediaType.APPLICATION_JSON, KubeCodec.YAML, KubeProtobuf.MEDIA_TYPE}, produces = {MediaType.APPLICATION_JSON, KubeCodec.YAML})
  @Operation(summary = "Create a namespace (labels and annotations, such as pod-security.kubernetes.io/enforce)")
  @RequestBody(content = @Content(schema = @Schema(implementation = Namespace.class)))
  @ApiResponse(responseCode = "201", content = @Content(schema = @Schema(implementation = Namespace.class)))
  public HttpResponse<String> createNamespace(HttpRequest<?> request, @Body @Nullable byte[] body) {
    // kubectl create namespace sends protobuf, as for every built-in type it has a typed client for.
    Namespace namespace = KubeProtobuf.read(request, body, Namespace.class);
    return KubeCodec.respond(request, 201, namespaces.create(namespace, WriteOptions.of(request)));
  }

  @Put(value = "/namespaces/{name}", consumes = {MediaType.APPLICATION_JSON, KubeCodec.YAML}, produces = {MediaType.APPLICATION_JSON, KubeCodec.YAML})
  @Operation(summary = "Replace a namespace's labels and annotations")
  @RequestBody(content = @Content(schema = @Schema(implementation = Namespace.class)))
  @ApiResponse(responseCode = "200", content = @Content(schema = @Schema(implementation = Namespace.class)))
  public HttpResponse<String> replaceNamespace(HttpRequest<?> request, String name, @Body @Nullable String body) {
    Namespace namespace = KubeCodec.read(request, body, Namespace.class);
    return KubeCodec.ok(request, namespaces.update(name, Update.replacing(namespace), WriteOptions.of(request)));
  }

  @Patch(value = "/namespaces/{name}", consumes = {KubeCodec.STRATEGIC_MERGE_PATCH, KubeCodec.MERGE_PATCH, KubeCodec.JSON_PATCH, KubeCodec.APPLY_PATCH}, produces = {MediaType.APPLICATION_JSON, KubeCodec.YAML})
  @Operation(summary = "Patch a namespace's labels and annotations (kubectl label/annotate namespace), or apply a configuration (server-side apply)")
  @RequestBody(content = @Content(schema = @Schema(type = "object")))
  @ApiResponse(responseCode = "200", content = @Content(schema = @Schema(implementation = Namespace.class)))
  public HttpResponse<String> patchNamespace(HttpRequest<?> request, String name, @Body @Nullable String body) {
    WriteOptions options = WriteOptions.ofPatch(request);
    if (KubeCodec.mediaType(request).equals(KubeCodec.APPLY_PATCH)) {
      var applied = namespaces.apply(name, KubeCodec.read(request, KubeCodec.YAML, body, Namespace.class), options);
      return KubeCodec.respond(request, applied.created() ? 201 : 200, applied.object());
    }
    return KubeCodec.ok(request, namespaces.update(name,
        Update.patching(current -> Patches.apply(request, body, current, Namespace.class)), options));
  }

  @Delete(value = "/namespaces/{name}", consumes = {MediaType.APPLICATION_JSON, KubeCodec.YAML}, produces = {MediaType.APPLICATION_JSON, KubeCodec.YAML})
  @Operation(summary = "Delete a namespace and all it holds: Terminating until its sets, pods, claims, events, roles and role bindings are gone (409 while Terminating)")
  @ApiResponse(responseCode = "200", content = @Content(schema = @Schema(implementation = Namespace.class)))
  public HttpResponse<String> deleteNamespace(HttpRequest<?> request, String name, @Body @Nullable String body) {
    return KubeCodec.ok(request, namespaces.delete(name, Deletion.of(request, body)));
  }

  @Get(value = NS + "/pods", produces = {MediaType.APPLICATION_JSON, KubeCodec.YAML})
  @Operation(summary = "List or watch pods (labelSelector, fieldSelector, limit, continue, watch, resourceVersion)")
  @ApiResponse(responseCode = "200", content = @Content(schema = @Schema(implementation = PodList.class)))
  public HttpResponse<?> listPods(HttpRequest<?> request, String namespace) {
    return podCollection.serve(request, namespace, watches);
  }

  @Get(value = "/pods", produces = {MediaType.APPLICATION_JSON, KubeCodec.YAML})
  @Operation(summary = "List or watch the pods of all namespaces")
  @ApiResponse(responseCode = "200", content = @Content(schema = @Schema(implementation = PodList.class)))
  public HttpResponse<?> listAllPods(HttpRequest<?> request) {
    return podCollection.serve(request, null, watches);
  }

  @Get(value = NS + "/pods/{name}", produces = {MediaType.APPLICATION_JSON, KubeCodec.YAML})
  @Operation(summary = "Read a pod")
  @ApiResponse(responseCode = "200", content = @Content(schema = @Schema(implementation = Pod.class)))
  public HttpResponse<String> getPod(HttpRequest<?> request, String namespace, String name) {
    return podCollection.one(request, pods.find(namespace, name).map(PodStore::toObject)
        .orElseThrow(() -> ApiException.notFound("pods", name)));
  }

  @Put(value = NS + "/pods/{name}", consumes = {MediaType.APPLICATION_JSON, KubeCodec.YAML}, produces = {MediaType.APPLICATION_JSON, KubeCodec.YAML})
  @Operation(summary = "Replace a pod's labels, annotations and ownerReferences (its spec cannot change; status is ignored)")
  @RequestBody(content = @Content(schema = @Schema(implementation = Pod.class)))
  @ApiResponse(responseCode = "200", content = @Content(schema = @Schema(implementation = Pod.class)))
  public HttpResponse<String> replacePod(HttpRequest<?> request, String namespace, String name, @Body @Nullable String body) {
    Pod pod = KubeCodec.read(request, body, Pod.class);
    return KubeCodec.ok(request, podService.update(namespace, name, Update.replacing(pod), WriteOptions.of(request)));
  }

  @Patch(value = NS + "/pods/{name}", consumes = {KubeCodec.STRATEGIC_MERGE_PATCH, KubeCodec.MERGE_PATCH, KubeCodec.JSON_PATCH, KubeCodec.APPLY_PATCH}, produces = {MediaType.APPLICATION_JSON, KubeCodec.YAML})
  @Operation(summary = "Patch a pod's labels, annotations and ownerReferences (kubectl label/annotate pod), or apply them (server-side apply)")
  @RequestBody(content = @Content(schema = @Schema(type = "object")))
  @ApiResponse(responseCode = "200", content = @Content(schema = @Schema(implementation = Pod.class)))
  public HttpResponse<String> patchPod(HttpRequest<?> request, String namespace, String name, @Body @Nullable String body) {
    WriteOptions options = WriteOptions.ofPatch(request);
    if (KubeCodec.mediaType(request).equals(KubeCodec.APPLY_PATCH)) {
      var applied = podService.apply(namespace, name, KubeCodec.read(request, KubeCodec.YAML, body, Pod.class), options);
      return KubeCodec.respond(request, applied.created() ? 201 : 200, applied.object());
    }
    return KubeCodec.ok(request, podService.update(namespace, name,
        Update.patching(current -> Patches.apply(request, body, current, Pod.class)), options));
  }

  @Delete(value = NS + "/pods", consumes = {MediaType.APPLICATION_JSON, KubeCodec.YAML}, produces = {MediaType.APPLICATION_JSON, KubeCodec.YAML})
  @Operation(summary = "Delete the pods that labelSelector and fieldSelector select (deletecollection); their sets recreate them")
  @ApiResponse(responseCode = "200", content = @Content(schema = @Schema(implementation = PodList.class)))
  public HttpResponse<String> deletePods(HttpRequest<?> request, String namespace, @Body @Nullable String body) {
    List<Pod> deleted = podService.deleteAll(podCollection.selected(namespace, ListOptions.of(request)), Deletion.of(request, body));
    return KubeCodec.ok(request, new PodListBuilder().withApiVersion("v1").withKind("PodList")
        .withMetadata(new ListMeta()).withItems(deleted).build());
  }

  @Delete(value = NS + "/pods/{name}", consumes = {MediaType.APPLICATION_JSON, KubeCodec.YAML}, produces = {MediaType.APPLICATION_JSON, KubeCodec.YAML})
  @Operation(summary = "Delete a pod; its set recreates it with the same identity and storage")
  @ApiResponse(responseCode = "200", content = @Content(schema = @Schema(implementation = Pod.class)))
  public HttpResponse<String> deletePod(HttpRequest<?> request, String namespace, String name, @Body @Nullable String body) {
    return KubeCodec.ok(request, podService.delete(namespace, name, Deletion.of(request, body)));
  }

  @Get(value = NS + "/pods/{name}/log", produces = MediaType.TEXT_PLAIN)
  @Operation(summary = "A container's log (local driver): container, previous, follow, sinceSeconds, sinceTime, "
      + "tailLines, limitBytes, timestamps")
  public HttpResponse<?> podLog(String namespace, String name, @Nullable @QueryValue String container,
      @Nullable @QueryValue Integer tailLines, @Nullable @QueryValue Boolean previous,
      @Nullable @QueryValue Boolean follow, @Nullable @QueryValue Long sinceSeconds,
      @Nullable @QueryValue String sinceTime, @Nullable @QueryValue Long limitBytes,
      @Nullable @QueryValue Boolean timestamps) throws IOException {
    LogOptions options = LogOptions.of(name, sinceSeconds, sinceTime, tailLines, limitBytes, timestamps, Instant.now());
    return switch (podService.log(namespace, name, container, options, Boolean.TRUE.equals(previous),
        Boolean.TRUE.equals(follow))) {
      case PodService.PodLog.Following following ->
          HttpResponse.ok(new StreamedFile(following.stream(), MediaType.TEXT_PLAIN_TYPE));
      case PodService.PodLog.Text text -> HttpResponse.ok(text.text()).contentType(MediaType.TEXT_PLAIN);
    };
  }

  @Get(value = NS + "/endpoints/{name}", produces = {MediaType.APPLICATION_JSON, KubeCodec.YAML})
  @Operation(summary = "Endpoints of a governing service: the members of the sets that name it")
  @ApiResponse(responseCode = "200", content = @Content(schema = @Schema(implementation = Endpoints.class)))
  public HttpResponse<String> endpoints(HttpRequest<?> request, String namespace, String name) {
    return KubeCodec.ok(request, podService.endpoints(namespace, name));
  }

  @Get(value = NS + "/persistentvolumeclaims", produces = {MediaType.APPLICATION_JSON, KubeCodec.YAML})
  @Operation(summary = "List or watch PVCs")
  @ApiResponse(responseCode = "200", content = @Content(schema = @Schema(implementation = PersistentVolumeClaimList.class)))
  public HttpResponse<?> listClaims(HttpRequest<?> request, String namespace) {
    return claimCollection.serve(request, namespace, watches);
  }

  @Get(value = "/persistentvolumeclaims", produces = {MediaType.APPLICATION_JSON, KubeCodec.YAML})
  @Operation(summary = "List or watch the PVCs of all namespaces")
  @ApiResponse(responseCode = "200", content = @Content(schema = @Schema(implementation = PersistentVolumeClaimList.class)))
  public HttpResponse<?> listAllClaims(HttpRequest<?> request) {
    return claimCollection.serve(request, null, watches);
  }

  @Get(value = NS + "/persistentvolumeclaims/{name}", produces = {MediaType.APPLICATION_JSON, KubeCodec.YAML})
  @Operation(summary = "Read a PVC")
  @ApiResponse(responseCode = "200", content = @Content(schema = @Schema(implementation = PersistentVolumeClaim.class)))
  public HttpResponse<String> getClaim(HttpRequest<?> request, String namespace, String name) {
    return claimCollection.one(request, pods.findClaim(namespace, name)
        .orElseThrow(() -> ApiException.notFound("persistentvolumeclaims", name)));
  }

  @Delete(value = NS + "/persistentvolumeclaims/{name}", consumes = {MediaType.APPLICATION_JSON, KubeCodec.YAML}, produces = {MediaType.APPLICATION_JSON, KubeCodec.YAML})
  @Operation(summary = "Delete a PVC and its data: at once, or, while a pod uses it, when that pod is gone "
      + "(kubernetes.io/pvc-protection); a pod recreated without it gets a new one from its set's template")
  @ApiResponse(responseCode = "200", content = @Content(schema = @Schema(implementation = PersistentVolumeClaim.class)))
  public HttpResponse<String> deleteClaim(HttpRequest<?> request, String namespace, String name, @Body @Nullable String body) {
    return KubeCodec.ok(request, podService.deleteClaim(namespace, name, Deletion.of(request, body)));
  }

  @Get(value = NS + "/events", produces = {MediaType.APPLICATION_JSON, KubeCodec.YAML})
  @Operation(summary = "List or watch events (fieldSelector on involvedObject.*, reason, type, ...)")
  @ApiResponse(responseCode = "200", content = @Content(schema = @Schema(implementation = EventList.class)))
  public HttpResponse<?> listEvents(HttpRequest<?> request, String namespace) {
    return eventCollection.serve(request, namespace, watches);
  }

  @Get(value = NS + "/events/{name}", produces = {MediaType.APPLICATION_JSON, KubeCodec.YAML})
  @Operation(summary = "Read an event")
  @ApiResponse(responseCode = "200", content = @Content(schema = @Schema(implementation = Event.class)))
  public HttpResponse<String> getEvent(HttpRequest<?> request, String namespace, String name) {
    return eventCollection.one(request, events.find(namespace, name)
        .orElseThrow(() -> ApiException.notFound("events", name)));
  }

  @Get(value = "/events", produces = {MediaType.APPLICATION_JSON, KubeCodec.YAML})
  @Operation(summary = "List or watch the events of all namespaces")
  @ApiResponse(responseCode = "200", content = @Content(schema = @Schema(implementation = EventList.class)))
  public HttpResponse<?> listAllEvents(HttpRequest<?> request) {
    return eventCollection.serve(request, null, watches);
  }
}
