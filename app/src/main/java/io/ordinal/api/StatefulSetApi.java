package io.ordinal.api;

import io.ordinal.api.registry.WriteOptions;
import io.ordinal.api.registry.Deletion;
import io.ordinal.apimachinery.KubeCodec;
import io.ordinal.apimachinery.ApiException;
import io.fabric8.kubernetes.api.model.ListMeta;
import io.fabric8.kubernetes.api.model.apps.ControllerRevision;
import io.fabric8.kubernetes.api.model.apps.ControllerRevisionList;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetList;
import io.fabric8.kubernetes.api.model.apps.StatefulSetListBuilder;
import io.fabric8.kubernetes.api.model.autoscaling.v1.Scale;
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
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import io.ordinal.api.statefulset.RolloutStatus;
import io.ordinal.api.watch.ListOptions;
import io.ordinal.api.watch.Watches;
import io.ordinal.store.RevisionStore;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.parameters.RequestBody;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.util.List;

/** {@code /apis/apps/v1}: StatefulSets and their scale and status subresources. */
@Controller("/apis/apps/v1")
@ExecuteOn(TaskExecutors.BLOCKING)
@Tag(name = "apps/v1")
public class StatefulSetApi {
  private static final String SETS = "/namespaces/{namespace}/statefulsets";
  private static final String SET = SETS + "/{name}";

  private final StatefulSetService service;
  private final RevisionStore revisions;
  private final RolloutService rollouts;
  private final Watches watches;
  private final Collection<StatefulSet> setCollection;
  private final Collection<ControllerRevision> revisionCollection;

  public StatefulSetApi(StatefulSetService service, RevisionStore revisions, RolloutService rollouts, Watches watches) {
    this.service = service;
    this.revisions = revisions;
    this.rollouts = rollouts;
    this.watches = watches;
    this.setCollection = new Collection<>("statefulsets", StatefulSet.class, "apps/v1", "StatefulSet", service::list);
    this.revisionCollection = new Collection<>("controller_revisions", ControllerRevision.class, "apps/v1",
        "ControllerRevision", revisions::list);
  }

  @Get(value = SETS, produces = {MediaType.APPLICATION_JSON, KubeCodec.YAML})
  @Operation(summary = "List or watch the StatefulSets of a namespace (labelSelector, fieldSelector, limit, continue, watch)")
  @ApiResponse(responseCode = "200", content = @Content(schema = @Schema(implementation = StatefulSetList.class)))
  public HttpResponse<?> list(HttpRequest<?> request, String namespace) {
    return setCollection.serve(request, namespace, watches);
  }

  @Get(value = "/statefulsets", produces = {MediaType.APPLICATION_JSON, KubeCodec.YAML})
  @Operation(summary = "List or watch the StatefulSets of all namespaces")
  @ApiResponse(responseCode = "200", content = @Content(schema = @Schema(implementation = StatefulSetList.class)))
  public HttpResponse<?> listAll(HttpRequest<?> request) {
    return setCollection.serve(request, null, watches);
  }

  @Post(value = SETS, consumes = {MediaType.APPLICATION_JSON, KubeCodec.YAML}, produces = {MediaType.APPLICATION_JSON, KubeCodec.YAML})
  @Operation(summary = "Create a StatefulSet")
  @RequestBody(content = @Content(schema = @Schema(implementation = StatefulSet.class)))
  @ApiResponse(responseCode = "201", content = @Content(schema = @Schema(implementation = StatefulSet.class)))
  public HttpResponse<String> create(HttpRequest<?> request, String namespace, @Body @Nullable String body) {
    StatefulSet set = KubeCodec.read(request, body, StatefulSet.class);
    return KubeCodec.respond(request, 201, service.create(namespace, set, WriteOptions.of(request)));
  }

  @Get(value = SET, produces = {MediaType.APPLICATION_JSON, KubeCodec.YAML})
  @Operation(summary = "Read a StatefulSet")
  @ApiResponse(responseCode = "200", content = @Content(schema = @Schema(implementation = StatefulSet.class)))
  public HttpResponse<String> get(HttpRequest<?> request, String namespace, String name) {
    return setCollection.one(request, service.get(namespace, name));
  }

  @Put(value = SET, consumes = {MediaType.APPLICATION_JSON, KubeCodec.YAML}, produces = {MediaType.APPLICATION_JSON, KubeCodec.YAML})
  @Operation(summary = "Replace a StatefulSet (409 when metadata.resourceVersion is stale)")
  @RequestBody(content = @Content(schema = @Schema(implementation = StatefulSet.class)))
  @ApiResponse(responseCode = "200", content = @Content(schema = @Schema(implementation = StatefulSet.class)))
  public HttpResponse<String> replace(HttpRequest<?> request, String namespace, String name, @Body @Nullable String body) {
    StatefulSet set = KubeCodec.read(request, body, StatefulSet.class);
    return KubeCodec.ok(request, service.replace(namespace, name, set, WriteOptions.of(request)));
  }

  @Patch(value = SET, consumes = {KubeCodec.STRATEGIC_MERGE_PATCH, KubeCodec.MERGE_PATCH, KubeCodec.JSON_PATCH, KubeCodec.APPLY_PATCH}, produces = {MediaType.APPLICATION_JSON, KubeCodec.YAML})
  @Operation(summary = "Patch a StatefulSet with a strategic merge patch, a JSON merge patch or a JSON patch, or apply a configuration (server-side apply: fieldManager, force; creates the set if absent)")
  @RequestBody(content = @Content(schema = @Schema(type = "object")))
  @ApiResponse(responseCode = "200", content = @Content(schema = @Schema(implementation = StatefulSet.class)))
  @ApiResponse(responseCode = "201", content = @Content(schema = @Schema(implementation = StatefulSet.class)))
  public HttpResponse<String> patch(HttpRequest<?> request, String namespace, String name, @Body @Nullable String body) {
    WriteOptions options = WriteOptions.ofPatch(request);
    if (KubeCodec.mediaType(request).equals(KubeCodec.APPLY_PATCH)) {
      StatefulSet config = KubeCodec.read(request, KubeCodec.YAML, body, StatefulSet.class);
      var applied = service.apply(namespace, name, config, options);
      return KubeCodec.respond(request, applied.created() ? 201 : 200, applied.object());
    }
    return KubeCodec.ok(request, service.patch(namespace, name, options,
        current -> Patches.apply(request, body, current, StatefulSet.class)));
  }

  @Delete(value = SETS, consumes = {MediaType.APPLICATION_JSON, KubeCodec.YAML}, produces = {MediaType.APPLICATION_JSON, KubeCodec.YAML})
  @Operation(summary = "Delete the StatefulSets that labelSelector and fieldSelector select (deletecollection)")
  @ApiResponse(responseCode = "200", content = @Content(schema = @Schema(implementation = StatefulSetList.class)))
  public HttpResponse<String> deleteCollection(HttpRequest<?> request, String namespace, @Body @Nullable String body) {
    var selected = setCollection.selection(ListOptions.of(request));
    return KubeCodec.ok(request, new StatefulSetListBuilder().withApiVersion("apps/v1").withKind("StatefulSetList")
        .withMetadata(new ListMeta())
        .withItems(service.deleteAll(namespace, selected, Deletion.of(request, body))).build());
  }

  @Delete(value = SET, consumes = {MediaType.APPLICATION_JSON, KubeCodec.YAML}, produces = {MediaType.APPLICATION_JSON, KubeCodec.YAML})
  @Operation(summary = "Delete a StatefulSet: its pods go highest ordinal first, its PVCs stay")
  @ApiResponse(responseCode = "200", content = @Content(schema = @Schema(implementation = StatefulSet.class)))
  public HttpResponse<String> delete(HttpRequest<?> request, String namespace, String name, @Body @Nullable String body) {
    return KubeCodec.ok(request, service.delete(namespace, name, Deletion.of(request, body)));
  }

  @Get(value = SET + "/status", produces = {MediaType.APPLICATION_JSON, KubeCodec.YAML})
  @Operation(summary = "Read a StatefulSet with its status")
  @ApiResponse(responseCode = "200", content = @Content(schema = @Schema(implementation = StatefulSet.class)))
  public HttpResponse<String> status(HttpRequest<?> request, String namespace, String name) {
    return KubeCodec.ok(request, service.get(namespace, name));
  }

  @Put(value = SET + "/status", consumes = {MediaType.APPLICATION_JSON, KubeCodec.YAML}, produces = {MediaType.APPLICATION_JSON, KubeCodec.YAML})
  @Operation(summary = "Replace the status of a StatefulSet (the controller publishes its own at its next step)")
  @RequestBody(content = @Content(schema = @Schema(implementation = StatefulSet.class)))
  @ApiResponse(responseCode = "200", content = @Content(schema = @Schema(implementation = StatefulSet.class)))
  public HttpResponse<String> replaceStatus(HttpRequest<?> request, String namespace, String name, @Body @Nullable String body) {
    StatefulSet set = KubeCodec.read(request, body, StatefulSet.class);
    return KubeCodec.ok(request, service.replaceStatus(namespace, name, set, WriteOptions.of(request)));
  }

  @Patch(value = SET + "/status", consumes = {KubeCodec.STRATEGIC_MERGE_PATCH, KubeCodec.MERGE_PATCH, KubeCodec.JSON_PATCH}, produces = {MediaType.APPLICATION_JSON, KubeCodec.YAML})
  @Operation(summary = "Patch the status of a StatefulSet")
  @RequestBody(content = @Content(schema = @Schema(type = "object")))
  @ApiResponse(responseCode = "200", content = @Content(schema = @Schema(implementation = StatefulSet.class)))
  public HttpResponse<String> patchStatus(HttpRequest<?> request, String namespace, String name, @Body @Nullable String body) {
    return KubeCodec.ok(request, service.patchStatus(namespace, name, WriteOptions.ofPatch(request),
        current -> Patches.apply(request, body, current, StatefulSet.class)));
  }

  @Get(value = SET + "/rollout/status", produces = {MediaType.APPLICATION_JSON, KubeCodec.YAML})
  @Operation(summary = "Rollout phase (Progressing, Paused, Complete, RollingBack, Failed), kubectl-style message and counts")
  @ApiResponse(responseCode = "200", content = @Content(schema = @Schema(implementation = RolloutStatus.class)))
  public HttpResponse<String> rolloutStatus(HttpRequest<?> request, String namespace, String name) {
    return KubeCodec.ok(request, rollouts.status(namespace, name));
  }

  @Get(value = SET + "/rollout/history", produces = {MediaType.APPLICATION_JSON, KubeCodec.YAML})
  @Operation(summary = "The set's revisions: number, name, change-cause and when each last became the update revision")
  @ApiResponse(responseCode = "200", content = @Content(schema = @Schema(implementation = RolloutService.History.class)))
  public HttpResponse<String> rolloutHistory(HttpRequest<?> request, String namespace, String name) {
    return KubeCodec.ok(request, rollouts.history(namespace, name));
  }

  @Post(value = SET + "/rollout/pause", produces = {MediaType.APPLICATION_JSON, KubeCodec.YAML})
  @Operation(summary = "Pause the rollout (sets spec.updateStrategy.rollingUpdate.paused); no further pod is replaced once this returns")
  @ApiResponse(responseCode = "200", content = @Content(schema = @Schema(implementation = StatefulSet.class)))
  public HttpResponse<String> pause(HttpRequest<?> request, String namespace, String name) {
    return KubeCodec.ok(request, rollouts.pause(namespace, name, WriteOptions.of(request)));
  }

  @Post(value = SET + "/rollout/resume", produces = {MediaType.APPLICATION_JSON, KubeCodec.YAML})
  @Operation(summary = "Resume a paused rollout")
  @ApiResponse(responseCode = "200", content = @Content(schema = @Schema(implementation = StatefulSet.class)))
  public HttpResponse<String> resume(HttpRequest<?> request, String namespace, String name) {
    return KubeCodec.ok(request, rollouts.resume(namespace, name, WriteOptions.of(request)));
  }

  @Post(value = SET + "/rollout/restart", produces = {MediaType.APPLICATION_JSON, KubeCodec.YAML})
  @Operation(summary = "Replace every pod in rollout order (a new kubectl.kubernetes.io/restartedAt template annotation)")
  @ApiResponse(responseCode = "200", content = @Content(schema = @Schema(implementation = StatefulSet.class)))
  public HttpResponse<String> restart(HttpRequest<?> request, String namespace, String name) {
    return KubeCodec.ok(request, rollouts.restart(namespace, name, WriteOptions.of(request)));
  }

  @Post(value = SET + "/rollout/undo", consumes = {MediaType.APPLICATION_JSON, KubeCodec.YAML}, produces = {MediaType.APPLICATION_JSON, KubeCodec.YAML})
  @Operation(summary = "Roll back to the previous revision, or to {\"toRevision\": n}; pods of the abandoned revision are replaced")
  @RequestBody(required = false, content = @Content(schema = @Schema(implementation = RolloutService.UndoRequest.class)))
  @ApiResponse(responseCode = "200", content = @Content(schema = @Schema(implementation = StatefulSet.class)))
  public HttpResponse<String> undo(HttpRequest<?> request, String namespace, String name, @Body @Nullable String body) {
    RolloutService.UndoRequest undo = body == null || body.isBlank() ? null
        : KubeCodec.read(request, body, RolloutService.UndoRequest.class);
    return KubeCodec.ok(request, rollouts.undo(namespace, name, undo, WriteOptions.of(request)));
  }

  @Get(value = SET + "/scale", produces = {MediaType.APPLICATION_JSON, KubeCodec.YAML})
  @Operation(summary = "Read the scale subresource")
  @ApiResponse(responseCode = "200", content = @Content(schema = @Schema(implementation = Scale.class)))
  public HttpResponse<String> getScale(HttpRequest<?> request, String namespace, String name) {
    return KubeCodec.ok(request, service.scale(namespace, name));
  }

  @Put(value = SET + "/scale", consumes = {MediaType.APPLICATION_JSON, KubeCodec.YAML}, produces = {MediaType.APPLICATION_JSON, KubeCodec.YAML})
  @Operation(summary = "Set spec.replicas through the scale subresource")
  @RequestBody(content = @Content(schema = @Schema(implementation = Scale.class)))
  @ApiResponse(responseCode = "200", content = @Content(schema = @Schema(implementation = Scale.class)))
  public HttpResponse<String> replaceScale(HttpRequest<?> request, String namespace, String name, @Body @Nullable String body) {
    Scale scale = KubeCodec.read(request, body, Scale.class);
    return KubeCodec.ok(request, service.replaceScale(namespace, name, scale, WriteOptions.of(request)));
  }

  @Patch(value = SET + "/scale", consumes = {KubeCodec.STRATEGIC_MERGE_PATCH, KubeCodec.MERGE_PATCH, KubeCodec.JSON_PATCH}, produces = {MediaType.APPLICATION_JSON, KubeCodec.YAML})
  @Operation(summary = "Patch the scale subresource")
  @RequestBody(content = @Content(schema = @Schema(type = "object")))
  @ApiResponse(responseCode = "200", content = @Content(schema = @Schema(implementation = Scale.class)))
  public HttpResponse<String> patchScale(HttpRequest<?> request, String namespace, String name, @Body @Nullable String body) {
    return KubeCodec.ok(request, service.patchScale(namespace, name,
        current -> Patches.apply(request, body, current, Scale.class), WriteOptions.ofPatch(request)));
  }

  @Get(value = "/namespaces/{namespace}/controllerrevisions", produces = {MediaType.APPLICATION_JSON, KubeCodec.YAML})
  @Operation(summary = "List or watch ControllerRevisions")
  @ApiResponse(responseCode = "200", content = @Content(schema = @Schema(implementation = ControllerRevisionList.class)))
  public HttpResponse<?> listRevisions(HttpRequest<?> request, String namespace) {
    return revisionCollection.serve(request, namespace, watches);
  }

  @Delete(value = "/namespaces/{namespace}/controllerrevisions/{name}", consumes = {MediaType.APPLICATION_JSON, KubeCodec.YAML}, produces = {MediaType.APPLICATION_JSON, KubeCodec.YAML})
  @Operation(summary = "Delete a ControllerRevision; the set makes its update revision again if it needs it")
  @ApiResponse(responseCode = "200", content = @Content(schema = @Schema(implementation = ControllerRevision.class)))
  public HttpResponse<String> deleteRevision(HttpRequest<?> request, String namespace, String name, @Body @Nullable String body) {
    ControllerRevision revision = revisions.get(namespace, name)
        .orElseThrow(() -> ApiException.notFound("controllerrevisions.apps", name));
    Deletion deletion = Deletion.of(request, body);
    deletion.check(revision, "controllerrevisions.apps");
    if (!deletion.dryRun()) {
      service.deleteRevision(namespace, name);
    }
    return KubeCodec.ok(request, revision);
  }

  @Get(value = "/controllerrevisions", produces = {MediaType.APPLICATION_JSON, KubeCodec.YAML})
  @Operation(summary = "List or watch the ControllerRevisions of all namespaces")
  @ApiResponse(responseCode = "200", content = @Content(schema = @Schema(implementation = ControllerRevisionList.class)))
  public HttpResponse<?> listAllRevisions(HttpRequest<?> request) {
    return revisionCollection.serve(request, null, watches);
  }

  @Get(value = "/namespaces/{namespace}/controllerrevisions/{name}", produces = {MediaType.APPLICATION_JSON, KubeCodec.YAML})
  @Operation(summary = "Read a ControllerRevision")
  @ApiResponse(responseCode = "200", content = @Content(schema = @Schema(implementation = ControllerRevision.class)))
  public HttpResponse<String> getRevision(HttpRequest<?> request, String namespace, String name) {
    return revisionCollection.one(request, revisions.get(namespace, name)
        .orElseThrow(() -> ApiException.notFound("controllerrevisions.apps", name)));
  }
}
