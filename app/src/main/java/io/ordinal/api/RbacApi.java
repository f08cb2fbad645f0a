package io.ordinal.api;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
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
import io.ordinal.api.statefulset.FieldError;
import io.ordinal.api.statefulset.StatefulSetValidation;
import io.ordinal.api.watch.Watches;
import io.ordinal.auth.AuthenticationFilter;
import io.ordinal.auth.User;
import io.ordinal.auth.rbac.Escalation;
import io.ordinal.auth.rbac.Rbac;
import io.ordinal.auth.rbac.RbacValidation;
import io.ordinal.store.KubeJson;
import io.ordinal.store.RbacStore.Kind;
import io.ordinal.store.StoreException;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

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
  private static final SecureRandom RANDOM = new SecureRandom();

  private final Rbac rbac;
  private final Watches watches;
  private final NamespaceLifecycle lifecycle;

  public RbacApi(Rbac rbac, Watches watches, NamespaceLifecycle lifecycle) {
    this.rbac = rbac;
    this.watches = watches;
    this.lifecycle = lifecycle;
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
    return KubeCodec.ok(request, update(request, kind, namespace, name, KubeProtobuf.read(request, body, kind.type)));
  }

  @Put(value = "/{resource}/{name}", consumes = {MediaType.APPLICATION_JSON, KubeCodec.YAML, KubeProtobuf.MEDIA_TYPE}, produces = {MediaType.APPLICATION_JSON, KubeCodec.YAML})
  @Operation(summary = "Replace a ClusterRole or ClusterRoleBinding (409 when metadata.resourceVersion is stale)")
  public HttpResponse<String> replaceCluster(HttpRequest<?> request, String resource, String name, @Body @Nullable byte[] body) {
    Kind kind = kind(resource, false);
    return KubeCodec.ok(request, update(request, kind, "", name, KubeProtobuf.read(request, body, kind.type)));
  }

  @Patch(value = NS + "/{name}", consumes = {KubeCodec.STRATEGIC_MERGE_PATCH, KubeCodec.MERGE_PATCH, KubeCodec.JSON_PATCH}, produces = {MediaType.APPLICATION_JSON, KubeCodec.YAML})
  @Operation(summary = "Patch a Role or RoleBinding")
  public HttpResponse<String> patch(HttpRequest<?> request, String namespace, String resource, String name,
      @Body @Nullable String body) {
    return patch(request, kind(resource, true), namespace, name, body);
  }

  @Patch(value = "/{resource}/{name}", consumes = {KubeCodec.STRATEGIC_MERGE_PATCH, KubeCodec.MERGE_PATCH, KubeCodec.JSON_PATCH}, produces = {MediaType.APPLICATION_JSON, KubeCodec.YAML})
  @Operation(summary = "Patch a ClusterRole or ClusterRoleBinding")
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
    boolean dryRun = DryRun.requested(request);
    if (object.getMetadata() == null) {
      object.setMetadata(new ObjectMeta());
    }
    var meta = object.getMetadata();
    scope(kind, namespace, meta.getNamespace());
    meta.setNamespace(kind.namespaced ? namespace : null);
    if ((meta.getName() == null || meta.getName().isEmpty()) && meta.getGenerateName() != null
        && !meta.getGenerateName().isEmpty()) {
      meta.setName(meta.getGenerateName() + suffix());
    }
    if (kind.namespaced) {
      lifecycle.admitCreate(namespace, RbacValidation.GROUP, resourceOf(kind), meta.getName());
    }
    prepare(kind, object);
    check(kind, object, RbacValidation.validate(object));
    escalation(request, kind, object);
    if (dryRun) {
      meta.setCreationTimestamp(KubeJson.timestamp(Instant.now()));
      return KubeCodec.respond(request, 201, object);
    }
    try {
      return KubeCodec.respond(request, 201, rbac.create(kind, object));
    } catch (StoreException e) {
      throw ApiException.of(409, "AlreadyExists", qualified(kind) + " \"" + meta.getName() + "\" already exists");
    }
  }

  private HasMetadata update(HttpRequest<?> request, Kind kind, String namespace, String name, HasMetadata object) {
    boolean dryRun = DryRun.requested(request);
    HasMetadata current = current(kind, namespace, name);
    if (object.getMetadata() == null) {
      object.setMetadata(new ObjectMeta());
    }
    var meta = object.getMetadata();
    if (meta.getName() != null && !meta.getName().isEmpty() && !meta.getName().equals(name)) {
      throw ApiException.badRequest("the name of the object (" + meta.getName()
          + ") does not match the name on the URL (" + name + ")");
    }
    scope(kind, namespace, meta.getNamespace());
    meta.setName(name);
    meta.setNamespace(kind.namespaced ? namespace : null);
    // RBAC objects may be updated unconditionally (upstream's AllowUnconditionalUpdate): no
    // resourceVersion means "the current one".
    String currentVersion = current.getMetadata().getResourceVersion();
    String expected = meta.getResourceVersion() == null || meta.getResourceVersion().isEmpty() ? currentVersion
        : meta.getResourceVersion();
    if (!expected.equals(currentVersion)) {
      throw conflict(kind, name);
    }
    prepare(kind, object);
    check(kind, object, RbacValidation.validateUpdate(object, current));
    if (!sameGrant(object, current)) {
      escalation(request, kind, object);
    }
    if (dryRun) {
      meta.setUid(current.getMetadata().getUid());
      meta.setCreationTimestamp(current.getMetadata().getCreationTimestamp());
      meta.setResourceVersion(currentVersion);
      return object;
    }
    try {
      return rbac.update(kind, object, parseVersion(expected));
    } catch (StoreException e) {
      throw e.reason() == StoreException.Reason.NOT_FOUND ? notFound(kind, name) : conflict(kind, name);
    }
  }

  private HttpResponse<String> patch(HttpRequest<?> request, Kind kind, String namespace, String name, String body) {
    HasMetadata current = current(kind, namespace, name);
    @SuppressWarnings("unchecked")
    Class<HasMetadata> type = (Class<HasMetadata>) kind.type;
    HasMetadata patched = Patches.apply(request, body, current, type);
    return KubeCodec.ok(request, update(request, kind, namespace, name, patched));
  }

  private HttpResponse<String> delete(HttpRequest<?> request, Kind kind, String namespace, String name, String body) {
    HasMetadata current = current(kind, namespace, name);
    Deletion deletion = Deletion.of(request, body);
    deletion.check(current, qualified(kind));
    if (!deletion.dryRun()) {
      try {
        rbac.delete(kind, namespace, name, parseVersion(current.getMetadata().getResourceVersion()));
      } catch (StoreException e) {
        throw e.reason() == StoreException.Reason.NOT_FOUND ? notFound(kind, name) : conflict(kind, name);
      }
    }
    // Upstream answers the deletion of an RBAC object with a Status.
    return KubeCodec.ok(request, new StatusBuilder().withApiVersion("v1")
        .withKind("Status").withNewMetadata().endMetadata().withStatus("Success")
        .withNewDetails().withName(name).withGroup(RbacValidation.GROUP).withKind(resourceOf(kind))
        .withUid(current.getMetadata().getUid()).endDetails().build());
  }

  /** Server-set fields cleared, upstream's defaults applied. */
  private static void prepare(Kind kind, HasMetadata object) {
    object.setApiVersion(API_VERSION);
    switch (object) {
      case Role r -> r.setKind(kind.kind);
      case ClusterRole r -> r.setKind(kind.kind);
      case RoleBinding b -> b.setKind(kind.kind);
      case ClusterRoleBinding b -> b.setKind(kind.kind);
      default -> { }
    }
    object.getMetadata().setUid(null);
    object.getMetadata().setCreationTimestamp(null);
    object.getMetadata().setResourceVersion(null);
    object.getMetadata().setManagedFields(null);
    RbacValidation.defaults(object);
  }

  private static void check(Kind kind, HasMetadata object, List<FieldError> errors) {
    if (!errors.isEmpty()) {
      throw ApiException.invalid(RbacValidation.GROUP, kind.kind, object.getMetadata().getName() == null ? ""
          : object.getMetadata().getName(), errors);
    }
  }

  private void escalation(HttpRequest<?> request, Kind kind, HasMetadata object) {
    User user = request.getAttribute(AuthenticationFilter.USER, User.class).orElse(User.ANONYMOUS);
    Optional<String> refused = Escalation.check(rbac.policy(), user, object);
    if (refused.isPresent()) {
      throw ApiException.forbidden(qualified(kind) + " \"" + object.getMetadata().getName() + "\" is forbidden: "
          + refused.get(), RbacValidation.GROUP, resourceOf(kind), object.getMetadata().getName());
    }
  }

  /** Whether an update leaves what the object grants as it was (no escalation check needed then). */
  private static boolean sameGrant(HasMetadata updated, HasMetadata current) {
    HasMetadata a = KubeJson.read(KubeJson.write(updated), updated.getClass());
    HasMetadata b = KubeJson.read(KubeJson.write(current), current.getClass());
    a.setMetadata(null);
    b.setMetadata(null);
    return KubeJson.write(a).equals(KubeJson.write(b));
  }

  private static void scope(Kind kind, String namespace, String sent) {
    if (kind.namespaced) {
      if (!StatefulSetValidation.validateNamespace(namespace).isEmpty()) {
        throw ApiException.of(404, "NotFound", "namespaces \"" + namespace + "\" not found");
      }
      if (sent != null && !sent.isEmpty() && !sent.equals(namespace)) {
        throw ApiException.badRequest("the namespace of the provided object does not match the namespace sent on the request");
      }
    }
  }

  private HasMetadata current(Kind kind, String namespace, String name) {
    return rbac.find(kind, kind.type, namespace, name).orElseThrow(() -> notFound(kind, name));
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
    return kind.kind.toLowerCase(Locale.ROOT) + "s";
  }

  private static String qualified(Kind kind) {
    return resourceOf(kind) + "." + RbacValidation.GROUP;
  }

  private static ApiException notFound() {
    return ApiException.of(404, "NotFound", "the server could not find the requested resource");
  }

  private static ApiException notFound(Kind kind, String name) {
    return ApiException.notFound(qualified(kind), name);
  }

  private static ApiException conflict(Kind kind, String name) {
    return ApiException.modified(qualified(kind), name);
  }

  private static long parseVersion(String version) {
    try {
      return Long.parseLong(version);
    } catch (NumberFormatException e) {
      throw ApiException.badRequest("metadata.resourceVersion: Invalid value: \"" + version + "\": must be a number");
    }
  }

  private static String suffix() {
    String alphabet = "bcdfghjklmnpqrstvwxz2456789";
    StringBuilder s = new StringBuilder();
    for (int i = 0; i < 5; i++) {
      s.append(alphabet.charAt(RANDOM.nextInt(alphabet.length())));
    }
    return s.toString();
  }
}
