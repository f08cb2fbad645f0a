package io.ordinal.api;

import io.ordinal.api.registry.NamespaceLifecycle;
import io.ordinal.api.registry.WriteOptions;
import io.ordinal.api.registry.Deletion;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
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
import io.micronaut.transaction.TransactionOperations;
import io.ordinal.api.rbac.RbacStorage;
import io.ordinal.api.rbac.RbacStrategy;
import io.ordinal.api.registry.GenericStore;
import io.ordinal.api.registry.Update;
import io.ordinal.api.watch.Watches;
import io.ordinal.apimachinery.ApiException;
import io.ordinal.apimachinery.KubeCodec;
import io.ordinal.apimachinery.KubeProtobuf;
import io.ordinal.auth.Authorization;
import io.ordinal.auth.rbac.Rbac;
import io.ordinal.auth.rbac.RbacValidation;
import io.ordinal.store.RbacStore.Kind;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.sql.Connection;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * {@code /apis/rbac.authorization.k8s.io/v1}: Roles and RoleBindings (namespaced), ClusterRoles and
 * ClusterRoleBindings (cluster-wide). get, list and watch, create, update, patch (merge, JSON and
 * strategic: RBAC lists are atomic, so a strategic patch replaces them) and delete, with dryRun;
 * validated as upstream and guarded against privilege escalation ({@link Escalation}).
 */
@Controller("/apis/rbac.authorization.k8s.io/v1")
@ExecuteOn(TaskExecutors.BLOCKING)
@Tag(name = "rbac.authorization.k8s.io/v1")
public class RbacApi {
  static final String API_VERSION = "rbac.authorization.k8s.io/v1";
  private static final String NS = "/namespaces/{namespace}/{resource}";
  private static final List<String> TYPES = List.of(MediaType.APPLICATION_JSON, KubeCodec.YAML);
  private static final Map<String, Kind> KINDS = Map.of("roles", Kind.ROLE, "rolebindings", Kind.ROLE_BINDING,
      "clusterroles", Kind.CLUSTER_ROLE, "clusterrolebindings", Kind.CLUSTER_ROLE_BINDING);

  private final Rbac rbac;
  private final Watches watches;
  private final Map<Kind, GenericStore<HasMetadata>> stores = new EnumMap<>(Kind.class);

  public RbacApi(Rbac rbac, Watches watches, NamespaceLifecycle lifecycle, TransactionOperations<Connection> tx,
      Authorization authorization) {
    this.rbac = rbac;
    this.watches = watches;
    for (Kind kind : Kind.values()) {
      @SuppressWarnings("unchecked")
      Class<HasMetadata> type = (Class<HasMetadata>) kind.type;
      stores.put(kind, new GenericStore<>(new RbacStrategy<>(kind, type, rbac), new RbacStorage<>(kind, type, rbac), tx, lifecycle,
          authorization));
    }
  }

  @Get(value = NS, produces = {MediaType.APPLICATION_JSON, KubeCodec.YAML})
  @Operation(summary = "List or watch the Roles or RoleBindings of a namespace")
  public HttpResponse<?> list(HttpRequest<?> request, String namespace, String resource) {
    Kind kind = kind(resource, true);
    return collection(kind).serve(request, namespace, watches);
  }

  @Get(value = "/{resource}", produces = {MediaType.APPLICATION_JSON, KubeCodec.YAML})
  @Operation(summary = "List or watch ClusterRoles or ClusterRoleBindings, or the Roles or RoleBindings of all namespaces")
  public HttpResponse<?> listAll(HttpRequest<?> request, String resource) {
    Kind kind = KINDS.get(resource);
    if (kind == null) {
      throw notFound();
    }
    return collection(kind).serve(request, null, watches);
  }

  @Post(value = NS, consumes = {MediaType.APPLICATION_JSON, KubeCodec.YAML, KubeProtobuf.MEDIA_TYPE}, produces = {MediaType.APPLICATION_JSON, KubeCodec.YAML})
  @Operation(summary = "Create a Role or RoleBinding")
  public HttpResponse<String> create(HttpRequest<?> request, String namespace, String resource, @Body @Nullable byte[] body) {
    return create(request, kind(resource, true), namespace, body);
  }

  @Post(value = "/{resource}", consumes = {MediaType.APPLICATION_JSON, KubeCodec.YAML, KubeProtobuf.MEDIA_TYPE}, produces = {MediaType.APPLICATION_JSON, KubeCodec.YAML})
  @Operation(summary = "Create a ClusterRole or ClusterRoleBinding")
  public HttpResponse<String> createCluster(HttpRequest<?> request, String resource, @Body @Nullable byte[] body) {
    return create(request, kind(resource, false), "", body);
  }

  @Get(value = NS + "/{name}", produces = {MediaType.APPLICATION_JSON, KubeCodec.YAML})
  @Operation(summary = "Read a Role or RoleBinding")
  public HttpResponse<String> get(HttpRequest<?> request, String namespace, String resource, String name) {
    Kind kind = kind(resource, true);
    return collection(kind).one(request, current(kind, namespace, name));
  }

  @Get(value = "/{resource}/{name}", produces = {MediaType.APPLICATION_JSON, KubeCodec.YAML})
  @Operation(summary = "Read a ClusterRole or ClusterRoleBinding")
  public HttpResponse<String> getCluster(HttpRequest<?> request, String resource, String name) {
    Kind kind = kind(resource, false);
    return collection(kind).one(request, current(kind, "", name));
  }

  @Put(value = NS + "/{name}", consumes = {MediaType.APPLICATION_JSON, KubeCodec.YAML, KubeProtobuf.MEDIA_TYPE}, produces = {MediaType.APPLICATION_JSON, KubeCodec.YAML})
  @Operation(summary = "Replace a Role or RoleBinding (409 when metadata.resourceVersion is stale)")
  public HttpResponse<String> replace(HttpRequest<?> request, String namespace, String resource, String name,
      @Body @Nullable byte[] body) {
    Kind kind = kind(resource, true);
    return KubeCodec.ok(request, store(kind).update(namespace, name, Update.replacing(KubeProtobuf.read(request, body, kind.type)),
        WriteOptions.of(request)));
  }

  @Put(value = "/{resource}/{name}", consumes = {MediaType.APPLICATION_JSON, KubeCodec.YAML, KubeProtobuf.MEDIA_TYPE}, produces = {MediaType.APPLICATION_JSON, KubeCodec.YAML})
  @Operation(summary = "Replace a ClusterRole or ClusterRoleBinding (409 when metadata.resourceVersion is stale)")
  public HttpResponse<String> replaceCluster(HttpRequest<?> request, String resource, String name, @Body @Nullable byte[] body) {
    Kind kind = kind(resource, false);
    return KubeCodec.ok(request, store(kind).update("", name, Update.replacing(KubeProtobuf.read(request, body, kind.type)),
        WriteOptions.of(request)));
  }

  @Patch(value = NS + "/{name}", consumes = {KubeCodec.STRATEGIC_MERGE_PATCH, KubeCodec.MERGE_PATCH, KubeCodec.JSON_PATCH, KubeCodec.APPLY_PATCH}, produces = {MediaType.APPLICATION_JSON, KubeCodec.YAML})
  @Operation(summary = "Patch a Role or RoleBinding, or apply a configuration (server-side apply)")
  public HttpResponse<String> patch(HttpRequest<?> request, String namespace, String resource, String name,
      @Body @Nullable String body) {
    return patch(request, kind(resource, true), namespace, name, body);
  }

  @Patch(value = "/{resource}/{name}", consumes = {KubeCodec.STRATEGIC_MERGE_PATCH, KubeCodec.MERGE_PATCH, KubeCodec.JSON_PATCH, KubeCodec.APPLY_PATCH}, produces = {MediaType.APPLICATION_JSON, KubeCodec.YAML})
  @Operation(summary = "Patch a ClusterRole or ClusterRoleBinding, or apply a configuration (server-side apply)")
  public HttpResponse<String> patchCluster(HttpRequest<?> request, String resource, String name, @Body @Nullable String body) {
    return patch(request, kind(resource, false), "", name, body);
  }

  @Delete(value = NS + "/{name}", consumes = {MediaType.APPLICATION_JSON, KubeCodec.YAML}, produces = {MediaType.APPLICATION_JSON, KubeCodec.YAML})
  @Operation(summary = "Delete a Role or RoleBinding")
  public HttpResponse<String> delete(HttpRequest<?> request, String namespace, String resource, String name,
      @Body @Nullable String body) {
    return delete(request, kind(resource, true), namespace, name, body);
  }

  @Delete(value = "/{resource}/{name}", consumes = {MediaType.APPLICATION_JSON, KubeCodec.YAML}, produces = {MediaType.APPLICATION_JSON, KubeCodec.YAML})
  @Operation(summary = "Delete a ClusterRole or ClusterRoleBinding")
  public HttpResponse<String> deleteCluster(HttpRequest<?> request, String resource, String name, @Body @Nullable String body) {
    return delete(request, kind(resource, false), "", name, body);
  }

  private HttpResponse<String> create(HttpRequest<?> request, Kind kind, String namespace, byte[] body) {
    HasMetadata object = KubeProtobuf.read(request, body, kind.type);
    return KubeCodec.respond(request, 201, store(kind).create(namespace, object, WriteOptions.of(request)));
  }

  private HttpResponse<String> patch(HttpRequest<?> request, Kind kind, String namespace, String name, String body) {
    WriteOptions options = WriteOptions.ofPatch(request);
    if (KubeCodec.mediaType(request).equals(KubeCodec.APPLY_PATCH)) {
      HasMetadata config = KubeCodec.read(request, KubeCodec.YAML, body, kind.type);
      var applied = store(kind).apply(namespace, name, config, options);
      return KubeCodec.respond(request, applied.created() ? 201 : 200, applied.object());
    }
    @SuppressWarnings("unchecked")
    Class<HasMetadata> type = (Class<HasMetadata>) kind.type;
    return KubeCodec.ok(request, store(kind).update(namespace, name,
        Update.patching(current -> Patches.apply(request, body, current, type)), options));
  }

  private HttpResponse<String> delete(HttpRequest<?> request, Kind kind, String namespace, String name, String body) {
    HasMetadata deleted = store(kind).delete(namespace, name, Deletion.of(request, body));
    // Upstream answers the deletion of an RBAC object with a Status.
    return KubeCodec.ok(request, new StatusBuilder().withApiVersion("v1")
        .withKind("Status").withNewMetadata().endMetadata().withStatus("Success")
        .withNewDetails().withName(name).withGroup(RbacValidation.GROUP).withKind(resourceOf(kind))
        .withUid(deleted.getMetadata().getUid()).endDetails().build());
  }

  private GenericStore<HasMetadata> store(Kind kind) {
    return stores.get(kind);
  }

  private HasMetadata current(Kind kind, String namespace, String name) {
    return store(kind).get(namespace, name);
  }

  private Collection<HasMetadata> collection(Kind kind) {
    @SuppressWarnings("unchecked")
    Class<HasMetadata> type = (Class<HasMetadata>) kind.type;
    return new Collection<>(kind.table, type, API_VERSION, kind.kind, ns -> rbac.list(kind, type, ns));
  }

  private static Kind kind(String resource, boolean namespaced) {
    Kind kind = KINDS.get(resource);
    if (kind == null || kind.namespaced != namespaced) {
      throw notFound();
    }
    return kind;
  }

  static String resourceOf(Kind kind) {
    return RbacStrategy.resourceOf(kind);
  }

  private static ApiException notFound() {
    return ApiException.of(404, "NotFound", "the server could not find the requested resource");
  }
}
