package io.ordinal.frontdoor;

import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Post;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import io.ordinal.api.registry.DryRun;
import io.ordinal.apimachinery.ApiException;
import io.ordinal.apimachinery.KubeCodec;
import io.ordinal.model.SetKey;
import io.ordinal.workflow.AdoptionActivities;
import io.ordinal.workflow.AdoptionPlan;
import io.ordinal.workflow.AdoptionWorkflow;
import io.ordinal.workflow.OrdinalSearchAttributes;
import io.ordinal.workflow.ReleasePlan;
import io.ordinal.workflow.ReleaseWorkflow;
import io.ordinal.workflow.StatefulSetControllerWorkflow;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import io.temporal.api.enums.v1.WorkflowIdConflictPolicy;
import io.temporal.api.enums.v1.WorkflowIdReusePolicy;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowFailedException;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.common.SearchAttributes;
import io.temporal.failure.ApplicationFailure;
import io.temporal.failure.TemporalFailure;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * {@code POST .../statefulsets/{name}/rollout/adopt} ({@code kubectl ordinal adopt sts/web}): takes
 * over the cluster's running apps/v1 StatefulSet of that name, as AdoptionWorkflow; {@code .../release}
 * hands it back, as ReleaseWorkflow. Each answers when it is done (200), refused (409, with the
 * reasons), or still going after a minute (202: it goes on; its workflow is in the Web UI). Only where
 * Ordinal runs a cluster (else 404); only cluster-admin by default.
 */
@Controller("/apis/apps/v1")
@ExecuteOn(TaskExecutors.BLOCKING)
@Tag(name = "apps/v1")
public class AdoptionApi {
  private static final long ANSWER_WITHIN_SECONDS = 60;
  private final WorkflowClient temporal;
  /** Null where Ordinal runs no cluster: there is nothing to adopt or hand back. */
  private final ClusterAdoption adoption;
  private final ClusterRelease release;

  public AdoptionApi(WorkflowClient temporal, @Nullable ClusterAdoption adoption, @Nullable ClusterRelease release) {
    this.temporal = temporal;
    this.adoption = adoption;
    this.release = release;
  }

  @Post(value = "/namespaces/{namespace}/statefulsets/{name}/rollout/adopt", produces = {MediaType.APPLICATION_JSON, KubeCodec.YAML})
  @Operation(summary = "Take over the cluster's running apps/v1 StatefulSet of this name without restarting a pod "
      + "(dryRun=All: only say whether it can be)")
  @ApiResponse(responseCode = "200", content = @Content(schema = @Schema(implementation = Status.class)))
  public HttpResponse<String> adopt(HttpRequest<?> request, String namespace, String name) {
    SetKey key = inCluster(namespace, name, "there is no apps/v1 StatefulSet to adopt");
    if (DryRun.requested(request)) {
      AdoptionPlan plan = planned(() -> adoption.plan(namespace, name));
      return KubeCodec.ok(request, status(200, "Success", null, "StatefulSet " + key + " can be adopted: "
          + plan.pods().size() + " pods at revision " + plan.revision() + " (dry run: nothing was changed)"));
    }
    return run(request, key, AdoptionWorkflow.class.getSimpleName(), AdoptionWorkflow.workflowId(key),
        AdoptionWorkflow.OPERATION, "adopt the cluster's apps/v1 StatefulSet " + key);
  }

  @Post(value = "/namespaces/{namespace}/statefulsets/{name}/rollout/release", produces = {MediaType.APPLICATION_JSON, KubeCodec.YAML})
  @Operation(summary = "Hand this StatefulSet, run from the cluster's apps.ordinal.io object, back to upstream's "
      + "controller as an apps/v1 StatefulSet without restarting a pod (dryRun=All: only say whether it can be)")
  @ApiResponse(responseCode = "200", content = @Content(schema = @Schema(implementation = Status.class)))
  public HttpResponse<String> release(HttpRequest<?> request, String namespace, String name) {
    SetKey key = inCluster(namespace, name, "there is no cluster to hand a StatefulSet to");
    if (DryRun.requested(request)) {
      ReleasePlan plan = planned(() -> release.planRelease(namespace, name));
      return KubeCodec.ok(request, status(200, "Success", null, "StatefulSet " + key + " can be handed back: "
          + plan.pods().size() + " pods at revision " + plan.revision() + " (dry run: nothing was changed)"));
    }
    return run(request, key, ReleaseWorkflow.class.getSimpleName(), ReleaseWorkflow.workflowId(key),
        ReleaseWorkflow.OPERATION, "hand StatefulSet " + key + " back to upstream's controller");
  }

  private SetKey inCluster(String namespace, String name, String otherwise) {
    if (adoption == null || release == null) {
      throw ApiException.of(404, "NotFound", "Ordinal runs no cluster (ORDINAL_KUBERNETES_ENABLED): " + otherwise);
    }
    return new SetKey(namespace, name);
  }

  /** A step's plan, outside any workflow (a dry run): a refusal is a 409. */
  private static <T> T planned(java.util.function.Supplier<T> plan) {
    try {
      return plan.get();
    } catch (ApplicationFailure e) {
      throw ApiException.of(409, "Conflict", e.getOriginalMessage());
    }
  }

  /** Starts the operation's workflow (or joins the running one) and answers as the class comment says. */
  private HttpResponse<String> run(HttpRequest<?> request, SetKey key, String type, String workflowId, String operation,
      String summary) {
    WorkflowStub workflow = temporal.newUntypedWorkflowStub(type, WorkflowOptions.newBuilder()
        .setWorkflowId(workflowId)
        .setTaskQueue(StatefulSetControllerWorkflow.TASK_QUEUE)
        // One at a time; a refused or finished one may be asked again.
        .setWorkflowIdReusePolicy(WorkflowIdReusePolicy.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE)
        .setWorkflowIdConflictPolicy(WorkflowIdConflictPolicy.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING)
        .setTypedSearchAttributes(SearchAttributes.newBuilder()
            .set(OrdinalSearchAttributes.NAMESPACE, key.namespace())
            .set(OrdinalSearchAttributes.STATEFUL_SET, key.name())
            .set(OrdinalSearchAttributes.OPERATION, operation).build())
        .setStaticSummary(summary)
        .build());
    workflow.start(key);
    try {
      String done = workflow.getResult(ANSWER_WITHIN_SECONDS, TimeUnit.SECONDS, String.class);
      return KubeCodec.ok(request, status(200, "Success", null, done));
    } catch (TimeoutException e) {
      return KubeCodec.ok(request, status(202, "Success", "Accepted", "it goes on: workflow " + workflowId)).status(202);
    } catch (WorkflowFailedException e) {
      throw refusal(e).orElseThrow(() -> ApiException.of(500, "InternalError", operation + " failed: " + e.getMessage()));
    }
  }

  /** The refusal at the root of a failed adoption, as a 409 with its reasons. */
  private static java.util.Optional<ApiException> refusal(WorkflowFailedException e) {
    for (Throwable cause = e.getCause(); cause != null; cause = cause.getCause()) {
      if (cause instanceof ApplicationFailure failure && AdoptionActivities.REFUSED.equals(failure.getType())) {
        return java.util.Optional.of(ApiException.of(409, "Conflict", failure.getOriginalMessage()));
      }
      if (!(cause instanceof TemporalFailure)) {
        break;
      }
    }
    return java.util.Optional.empty();
  }

  private static Status status(int code, String status, String reason, String message) {
    return new StatusBuilder().withApiVersion("v1").withKind("Status").withNewMetadata().endMetadata()
        .withCode(code).withStatus(status).withReason(reason).withMessage(message).build();
  }
}
