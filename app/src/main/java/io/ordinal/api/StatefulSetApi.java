package io.ordinal.api;

import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.autoscaling.v1.Scale;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.Patch;
import io.micronaut.http.annotation.Post;
import io.micronaut.http.annotation.Put;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import io.ordinal.api.registry.WriteOptions;
import io.ordinal.api.statefulset.RolloutStatus;
import io.ordinal.apimachinery.KubeCodec;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.parameters.RequestBody;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;

/** The subresources of StatefulSets: status, scale, and Ordinal's rollout verbs. */
@Controller("/apis/apps/v1")
@ExecuteOn(TaskExecutors.BLOCKING)
@Tag(name = "apps/v1")
public class StatefulSetApi {
  private static final String SETS = "/namespaces/{namespace}/statefulsets";
  private static final String SET = SETS + "/{name}";

  private final StatefulSetService service;
  private final RolloutService rollouts;

  public StatefulSetApi(StatefulSetService service, RolloutService rollouts) {
    this.service = service;
    this.rollouts = rollouts;
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

  @Post(value = SET + "/rollout/complete", consumes = {MediaType.APPLICATION_JSON, KubeCodec.YAML}, produces = {MediaType.APPLICATION_JSON, KubeCodec.YAML})
  @Operation(summary = "Report that a member's asynchronous membership hook finished ({\"member\": pod, \"succeeded\": true, \"message\": ...}); the waiting operation goes on")
  @RequestBody(content = @Content(schema = @Schema(implementation = RolloutService.HookCompletion.class)))
  @ApiResponse(responseCode = "200", content = @Content(schema = @Schema(implementation = RolloutService.CompletedHook.class)))
  public HttpResponse<String> completeHook(HttpRequest<?> request, String namespace, String name, @Body @Nullable String body) {
    RolloutService.HookCompletion completion = body == null || body.isBlank() ? null
        : KubeCodec.read(request, body, RolloutService.HookCompletion.class);
    return KubeCodec.ok(request, rollouts.completeHook(namespace, name, completion));
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
}
