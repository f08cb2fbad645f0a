package io.ordinal.api;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ListMeta;
import io.fabric8.kubernetes.api.model.StatusBuilder;
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
import io.ordinal.api.registry.Deletion;
import io.ordinal.api.registry.GenericStore;
import io.ordinal.api.registry.Update;
import io.ordinal.api.registry.WriteOptions;
import io.ordinal.api.watch.ListOptions;
import io.ordinal.api.watch.Watches;
import io.ordinal.apimachinery.ApiException;
import io.ordinal.apimachinery.KubeCodec;
import io.ordinal.apimachinery.KubeProtobuf;
import io.swagger.v3.oas.annotations.Hidden;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The routes of every served resource, as upstream's {@code endpoints/installer.go} makes them from
 * its storage map: {@code /api/v1} and {@code /apis/{group}/{version}}, then {@code {resource}[/{name}]}
 * for cluster-scoped resources (and the lists across namespaces) or
 * {@code namespaces/{namespace}/{resource}[/{name}]}. A verb the resource's description does not list
 * answers 405. Subresources (scale, status, log, exec, rollout) have routes of their own. Described by
 * {@code /openapi/v2} and {@code /openapi/v3}, made from the same descriptions.
 */
@Controller
@ExecuteOn(TaskExecutors.BLOCKING)
@Hidden
public class ResourceApi {
  private static final String CORE = "/api/{version}";
  private static final String GROUP = "/apis/{group}/{version}";
  private static final String NAMESPACED = "/namespaces/{namespace}/{resource}";
  private static final String JSON = MediaType.APPLICATION_JSON;

  private final ServedResources served;
  private final Watches watches;

  public ResourceApi(ServedResources served, Watches watches) {
    this.served = served;
    this.watches = watches;
  }

  // --- /api/v1

  @Get(value = CORE + "/{resource}", produces = {JSON, KubeCodec.YAML})
  public HttpResponse<?> listCore(HttpRequest<?> request, String version, String resource) {
    return list(request, resolve("", version, resource, null), null);
  }

  @Get(value = CORE + NAMESPACED, produces = {JSON, KubeCodec.YAML})
  public HttpResponse<?> listCoreIn(HttpRequest<?> request, String version, String namespace, String resource) {
    return list(request, resolve("", version, resource, true), namespace);
  }

  @Post(value = CORE + "/{resource}", consumes = {JSON, KubeCodec.YAML, KubeProtobuf.MEDIA_TYPE}, produces = {JSON, KubeCodec.YAML})
  public HttpResponse<String> createCore(HttpRequest<?> request, String version, String resource, @Body @Nullable byte[] body) {
    return create(request, resolve("", version, resource, false), "", body);
  }

  @Post(value = CORE + NAMESPACED, consumes = {JSON, KubeCodec.YAML, KubeProtobuf.MEDIA_TYPE}, produces = {JSON, KubeCodec.YAML})
  public HttpResponse<String> createCoreIn(HttpRequest<?> request, String version, String namespace, String resource,
      @Body @Nullable byte[] body) {
    return create(request, resolve("", version, resource, true), namespace, body);
  }

  @Delete(value = CORE + NAMESPACED, consumes = {JSON, KubeCodec.YAML, KubeProtobuf.MEDIA_TYPE}, produces = {JSON, KubeCodec.YAML})
  public HttpResponse<String> deleteCoreCollection(HttpRequest<?> request, String version, String namespace, String resource,
      @Body @Nullable byte[] body) {
    return deleteCollection(request, resolve("", version, resource, true), namespace, body);
  }

  @Get(value = CORE + "/{resource}/{name}", produces = {JSON, KubeCodec.YAML})
  public HttpResponse<String> getCore(HttpRequest<?> request, String version, String resource, String name) {
    return get(request, resolve("", version, resource, false), "", name);
  }

  @Get(value = CORE + NAMESPACED + "/{name}", produces = {JSON, KubeCodec.YAML})
  public HttpResponse<String> getCoreIn(HttpRequest<?> request, String version, String namespace, String resource, String name) {
    return get(request, resolve("", version, resource, true), namespace, name);
  }

  @Put(value = CORE + "/{resource}/{name}", consumes = {JSON, KubeCodec.YAML, KubeProtobuf.MEDIA_TYPE}, produces = {JSON, KubeCodec.YAML})
  public HttpResponse<String> replaceCore(HttpRequest<?> request, String version, String resource, String name,
      @Body @Nullable byte[] body) {
    return replace(request, resolve("", version, resource, false), "", name, body);
  }

  @Put(value = CORE + NAMESPACED + "/{name}", consumes = {JSON, KubeCodec.YAML, KubeProtobuf.MEDIA_TYPE}, produces = {JSON, KubeCodec.YAML})
  public HttpResponse<String> replaceCoreIn(HttpRequest<?> request, String version, String namespace, String resource,
      String name, @Body @Nullable byte[] body) {
    return replace(request, resolve("", version, resource, true), namespace, name, body);
  }

  @Patch(value = CORE + "/{resource}/{name}", consumes = {KubeCodec.STRATEGIC_MERGE_PATCH, KubeCodec.MERGE_PATCH, KubeCodec.JSON_PATCH, KubeCodec.APPLY_PATCH}, produces = {JSON, KubeCodec.YAML})
  public HttpResponse<String> patchCore(HttpRequest<?> request, String version, String resource, String name,
      @Body @Nullable String body) {
    return patch(request, resolve("", version, resource, false), "", name, body);
  }

  @Patch(value = CORE + NAMESPACED + "/{name}", consumes = {KubeCodec.STRATEGIC_MERGE_PATCH, KubeCodec.MERGE_PATCH, KubeCodec.JSON_PATCH, KubeCodec.APPLY_PATCH}, produces = {JSON, KubeCodec.YAML})
  public HttpResponse<String> patchCoreIn(HttpRequest<?> request, String version, String namespace, String resource,
      String name, @Body @Nullable String body) {
    return patch(request, resolve("", version, resource, true), namespace, name, body);
  }

  @Delete(value = CORE + "/{resource}/{name}", consumes = {JSON, KubeCodec.YAML, KubeProtobuf.MEDIA_TYPE}, produces = {JSON, KubeCodec.YAML})
  public HttpResponse<String> deleteCore(HttpRequest<?> request, String version, String resource, String name,
      @Body @Nullable byte[] body) {
    return delete(request, resolve("", version, resource, false), "", name, body);
  }

  @Delete(value = CORE + NAMESPACED + "/{name}", consumes = {JSON, KubeCodec.YAML, KubeProtobuf.MEDIA_TYPE}, produces = {JSON, KubeCodec.YAML})
  public HttpResponse<String> deleteCoreIn(HttpRequest<?> request, String version, String namespace, String resource,
      String name, @Body @Nullable byte[] body) {
    return delete(request, resolve("", version, resource, true), namespace, name, body);
  }

  // --- /apis/{group}/{version}

  @Get(value = GROUP + "/{resource}", produces = {JSON, KubeCodec.YAML})
  public HttpResponse<?> listGroup(HttpRequest<?> request, String group, String version, String resource) {
    return list(request, resolve(group, version, resource, null), null);
  }

  @Get(value = GROUP + NAMESPACED, produces = {JSON, KubeCodec.YAML})
  public HttpResponse<?> listGroupIn(HttpRequest<?> request, String group, String version, String namespace, String resource) {
    return list(request, resolve(group, version, resource, true), namespace);
  }

  @Post(value = GROUP + "/{resource}", consumes = {JSON, KubeCodec.YAML, KubeProtobuf.MEDIA_TYPE}, produces = {JSON, KubeCodec.YAML})
  public HttpResponse<String> createGroup(HttpRequest<?> request, String group, String version, String resource,
      @Body @Nullable byte[] body) {
    return create(request, resolve(group, version, resource, false), "", body);
  }

  @Post(value = GROUP + NAMESPACED, consumes = {JSON, KubeCodec.YAML, KubeProtobuf.MEDIA_TYPE}, produces = {JSON, KubeCodec.YAML})
  public HttpResponse<String> createGroupIn(HttpRequest<?> request, String group, String version, String namespace,
      String resource, @Body @Nullable byte[] body) {
    return create(request, resolve(group, version, resource, true), namespace, body);
  }

  @Delete(value = GROUP + NAMESPACED, consumes = {JSON, KubeCodec.YAML, KubeProtobuf.MEDIA_TYPE}, produces = {JSON, KubeCodec.YAML})
  public HttpResponse<String> deleteGroupCollection(HttpRequest<?> request, String group, String version, String namespace,
      String resource, @Body @Nullable byte[] body) {
    return deleteCollection(request, resolve(group, version, resource, true), namespace, body);
  }

  @Get(value = GROUP + "/{resource}/{name}", produces = {JSON, KubeCodec.YAML})
  public HttpResponse<String> getGroup(HttpRequest<?> request, String group, String version, String resource, String name) {
    return get(request, resolve(group, version, resource, false), "", name);
  }

  @Get(value = GROUP + NAMESPACED + "/{name}", produces = {JSON, KubeCodec.YAML})
  public HttpResponse<String> getGroupIn(HttpRequest<?> request, String group, String version, String namespace,
      String resource, String name) {
    return get(request, resolve(group, version, resource, true), namespace, name);
  }

  @Put(value = GROUP + "/{resource}/{name}", consumes = {JSON, KubeCodec.YAML, KubeProtobuf.MEDIA_TYPE}, produces = {JSON, KubeCodec.YAML})
  public HttpResponse<String> replaceGroup(HttpRequest<?> request, String group, String version, String resource,
      String name, @Body @Nullable byte[] body) {
    return replace(request, resolve(group, version, resource, false), "", name, body);
  }

  @Put(value = GROUP + NAMESPACED + "/{name}", consumes = {JSON, KubeCodec.YAML, KubeProtobuf.MEDIA_TYPE}, produces = {JSON, KubeCodec.YAML})
  public HttpResponse<String> replaceGroupIn(HttpRequest<?> request, String group, String version, String namespace,
      String resource, String name, @Body @Nullable byte[] body) {
    return replace(request, resolve(group, version, resource, true), namespace, name, body);
  }

  @Patch(value = GROUP + "/{resource}/{name}", consumes = {KubeCodec.STRATEGIC_MERGE_PATCH, KubeCodec.MERGE_PATCH, KubeCodec.JSON_PATCH, KubeCodec.APPLY_PATCH}, produces = {JSON, KubeCodec.YAML})
  public HttpResponse<String> patchGroup(HttpRequest<?> request, String group, String version, String resource,
      String name, @Body @Nullable String body) {
    return patch(request, resolve(group, version, resource, false), "", name, body);
  }

  @Patch(value = GROUP + NAMESPACED + "/{name}", consumes = {KubeCodec.STRATEGIC_MERGE_PATCH, KubeCodec.MERGE_PATCH, KubeCodec.JSON_PATCH, KubeCodec.APPLY_PATCH}, produces = {JSON, KubeCodec.YAML})
  public HttpResponse<String> patchGroupIn(HttpRequest<?> request, String group, String version, String namespace,
      String resource, String name, @Body @Nullable String body) {
    return patch(request, resolve(group, version, resource, true), namespace, name, body);
  }

  @Delete(value = GROUP + "/{resource}/{name}", consumes = {JSON, KubeCodec.YAML, KubeProtobuf.MEDIA_TYPE}, produces = {JSON, KubeCodec.YAML})
  public HttpResponse<String> deleteGroup(HttpRequest<?> request, String group, String version, String resource,
      String name, @Body @Nullable byte[] body) {
    return delete(request, resolve(group, version, resource, false), "", name, body);
  }

  @Delete(value = GROUP + NAMESPACED + "/{name}", consumes = {JSON, KubeCodec.YAML, KubeProtobuf.MEDIA_TYPE}, produces = {JSON, KubeCodec.YAML})
  public HttpResponse<String> deleteGroupIn(HttpRequest<?> request, String group, String version, String namespace,
      String resource, String name, @Body @Nullable byte[] body) {
    return delete(request, resolve(group, version, resource, true), namespace, name, body);
  }

  // --- the verbs, the same for every resource

  private <T extends HasMetadata> HttpResponse<?> list(HttpRequest<?> request, ServedResource<T> resource, String namespace) {
    boolean watch = ListOptions.of(request).watch();
    allow(resource, watch ? "watch" : "list");
    return resource.collection().serve(request, namespace, watches);
  }

  private <T extends HasMetadata> HttpResponse<String> get(HttpRequest<?> request, ServedResource<T> resource,
      String namespace, String name) {
    allow(resource, "get");
    return resource.collection().one(request, resource.reader().get(namespace, name));
  }

  private <T extends HasMetadata> HttpResponse<String> create(HttpRequest<?> request, ServedResource<T> resource,
      String namespace, byte[] body) {
    GenericStore<T> store = writer(resource, "create");
    T object = KubeProtobuf.read(request, body, resource.collection().type());
    return KubeCodec.respond(request, 201, store.create(namespace, object, WriteOptions.of(request)));
  }

  private <T extends HasMetadata> HttpResponse<String> replace(HttpRequest<?> request, ServedResource<T> resource,
      String namespace, String name, byte[] body) {
    GenericStore<T> store = writer(resource, "update");
    T object = KubeProtobuf.read(request, body, resource.collection().type());
    return KubeCodec.ok(request, store.update(namespace, name, Update.replacing(object), WriteOptions.of(request)));
  }

  /** A strategic merge, JSON merge or JSON patch of the stored object, or a server-side apply (which may create). */
  private <T extends HasMetadata> HttpResponse<String> patch(HttpRequest<?> request, ServedResource<T> resource,
      String namespace, String name, String body) {
    GenericStore<T> store = writer(resource, "patch");
    Class<T> type = resource.collection().type();
    WriteOptions options = WriteOptions.ofPatch(request);
    if (KubeCodec.mediaType(request).equals(KubeCodec.APPLY_PATCH)) {
      var applied = store.apply(namespace, name, KubeCodec.read(request, KubeCodec.YAML, body, type), options);
      return KubeCodec.respond(request, applied.created() ? 201 : 200, applied.object());
    }
    return KubeCodec.ok(request, store.update(namespace, name,
        Update.patching(current -> Patches.apply(request, body, current, type)), options));
  }

  private <T extends HasMetadata> HttpResponse<String> delete(HttpRequest<?> request, ServedResource<T> resource,
      String namespace, String name, byte[] body) {
    T deleted = writer(resource, "delete").delete(namespace, name, Deletion.of(request, body));
    if (!resource.deleteAnswersStatus()) {
      return KubeCodec.ok(request, deleted);
    }
    return KubeCodec.ok(request, new StatusBuilder().withApiVersion("v1").withKind("Status").withNewMetadata().endMetadata()
        .withStatus("Success").withNewDetails().withName(name).withGroup(resource.description().group())
        .withKind(resource.description().plural()).withUid(deleted.getMetadata().getUid()).endDetails().build());
  }

  /** DELETE on a collection: each object the selectors let through, as a DELETE of its own. */
  private <T extends HasMetadata> HttpResponse<String> deleteCollection(HttpRequest<?> request, ServedResource<T> resource,
      String namespace, byte[] body) {
    GenericStore<T> store = writer(resource, "deletecollection");
    Deletion deletion = Deletion.of(request, body);
    var deleted = store.deleteCollection(resource.collection().selected(namespace, ListOptions.of(request)), deletion);
    Map<String, Object> list = new LinkedHashMap<>();
    list.put("apiVersion", resource.description().groupVersion());
    list.put("kind", resource.description().kind() + "List");
    list.put("metadata", new ListMeta());
    list.put("items", deleted);
    return KubeCodec.ok(request, list);
  }

  /**
   * The served resource of a path, 404 when there is none; {@code namespaced} says which scope the
   * path names (null: a list, which for a namespaced resource spans all namespaces).
   */
  private ServedResource<?> resolve(String group, String version, String plural, Boolean namespaced) {
    ServedResource<?> resource = served.find(group, version, plural).orElseThrow(ResourceApi::notFound);
    if (namespaced != null && resource.description().namespaced() != namespaced) {
      throw notFound();
    }
    return resource;
  }

  private static void allow(ServedResource<?> resource, String verb) {
    if (!resource.allows(verb)) {
      throw ApiException.of(405, "MethodNotAllowed", "the server does not allow this method on the requested resource");
    }
  }

  private static <T extends HasMetadata> GenericStore<T> writer(ServedResource<T> resource, String verb) {
    allow(resource, verb);
    return resource.writer();
  }

  private static ApiException notFound() {
    return ApiException.of(404, "NotFound", "the server could not find the requested resource");
  }
}
