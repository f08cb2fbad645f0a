package io.ordinal.api.openapi;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.Status;
import io.micronaut.http.MediaType;
import io.ordinal.apimachinery.KubeCodec;
import io.ordinal.api.discovery.ApiResources.Group;
import io.ordinal.api.discovery.ApiResources.Resource;
import io.ordinal.api.discovery.ApiResources.Subresource;
import java.util.ArrayList;
import java.util.List;

/**
 * The operations of a group version as upstream's OpenAPI documents describe them, made from
 * {@link io.ordinal.api.discovery.ApiResources} (the registry discovery is made from), so the
 * documents and discovery list the same resources, verbs and subresources.
 */
final class Operations {
  private Operations() {}

  record Gvk(String group, String version, String kind) {
    /** As the {@code x-kubernetes-group-version-kind} extension writes it (core's group is ""). */
    ObjectNode extension() {
      return JsonNodeFactory.instance.objectNode().put("group", group).put("kind", kind).put("version", version);
    }
  }

  /** A query parameter and its JSON type. */
  record Param(String name, String type) {}

  /**
   * One operation. {@code requestBody} and {@code responseBody} are model classes; a null request
   * body means none, a null response body plain text.
   */
  record Operation(String method, String action, String id, Gvk gvk, List<Param> query,
      Class<?> requestBody, List<String> requestTypes, int status, Class<?> responseBody, List<String> responseTypes) {}

  /** A path, the path parameters it has ({@code namespace}, {@code name}) and its operations. */
  record PathItem(String path, List<String> pathParams, List<Operation> operations) {}

  /** The list options the server reads ({@code ListOptions}); watches are lists with {@code watch=true}. */
  static final List<Param> LIST = List.of(new Param("allowWatchBookmarks", "boolean"), new Param("continue", "string"),
      new Param("fieldSelector", "string"), new Param("labelSelector", "string"), new Param("limit", "integer"),
      new Param("resourceVersion", "string"), new Param("resourceVersionMatch", "string"),
      new Param("sendInitialEvents", "boolean"), new Param("timeoutSeconds", "integer"), new Param("watch", "boolean"));

  /**
   * Write options. {@code fieldValidation} is honoured (and kubectl validates on the client unless a
   * PATCH operation of the kind lists it); {@code dryRun=All} is honoured on every write;
   * {@code fieldManager} names who the write's fields belong to in {@code metadata.managedFields}.
   */
  static final List<Param> WRITE = List.of(new Param("dryRun", "string"), new Param("fieldManager", "string"),
      new Param("fieldValidation", "string"));

  /** Write options of a PATCH; {@code force} only with a server-side apply. */
  static final List<Param> PATCH = List.of(new Param("dryRun", "string"), new Param("fieldManager", "string"),
      new Param("fieldValidation", "string"), new Param("force", "boolean"));

  /** Delete options (also accepted as a DeleteOptions body). */
  static final List<Param> DELETE = List.of(new Param("dryRun", "string"), new Param("propagationPolicy", "string"));

  static final List<Param> LOG = List.of(new Param("container", "string"), new Param("follow", "boolean"),
      new Param("previous", "boolean"), new Param("tailLines", "integer"), new Param("sinceSeconds", "integer"),
      new Param("sinceTime", "string"), new Param("limitBytes", "integer"), new Param("timestamps", "boolean"));

  /** PodExecOptions as a query; {@code command} is repeated, one argument each. */
  static final List<Param> EXEC = List.of(new Param("command", "string"), new Param("container", "string"),
      new Param("stderr", "boolean"), new Param("stdin", "boolean"), new Param("stdout", "boolean"),
      new Param("tty", "boolean"));

  static final List<String> BODY_TYPES = List.of(MediaType.APPLICATION_JSON, KubeCodec.YAML);

  /** The group version's paths: collection, object and subresource paths of every resource. */
  static List<PathItem> of(Group group) {
    String prefix = group.name().isEmpty() ? "/api/" + group.version() : "/apis/" + group.groupVersion();
    String idPrefix = (group.name().isEmpty() ? "Core" : capitalize(group.name())) + capitalize(group.version());
    List<PathItem> paths = new ArrayList<>();
    for (Resource r : group.resources()) {
      Gvk gvk = new Gvk(r.group(), r.version(), r.kind());
      Class<?> kind = ModelSchemas.modelClass(r.group(), r.version(), r.kind());
      Class<?> list = ModelSchemas.modelClass(r.group(), r.version(), r.kind() + "List");
      String scope = r.namespaced() ? "Namespaced" : "";
      String collection = prefix + (r.namespaced() ? "/namespaces/{namespace}/" : "/") + r.plural();
      List<String> collectionParams = r.namespaced() ? List.of("namespace") : List.of();
      List<String> objectParams = r.namespaced() ? List.of("name", "namespace") : List.of("name");

      List<Operation> onCollection = new ArrayList<>();
      if (r.verbs().contains("list")) {
        onCollection.add(new Operation("get", "list", "list" + idPrefix + scope + r.kind(), gvk, LIST,
            null, List.of(), 200, list, BODY_TYPES));
      }
      if (r.verbs().contains("create")) {
        onCollection.add(new Operation("post", "post", "create" + idPrefix + scope + r.kind(), gvk, WRITE,
            kind, BODY_TYPES, 201, kind, BODY_TYPES));
      }
      if (r.verbs().contains("deletecollection")) {
        onCollection.add(new Operation("delete", "deletecollection", "deleteCollection" + idPrefix + scope + r.kind(),
            gvk, List.of(new Param("dryRun", "string"), new Param("fieldSelector", "string"),
                new Param("labelSelector", "string"), new Param("propagationPolicy", "string")),
            null, List.of(), 200, Status.class, BODY_TYPES));
      }
      add(paths, collection, collectionParams, onCollection);
      if (r.namespaced() && r.verbs().contains("list")) {
        add(paths, prefix + "/" + r.plural(), List.of(), List.of(new Operation("get", "list",
            "list" + idPrefix + r.kind() + "ForAllNamespaces", gvk, LIST, null, List.of(), 200, list, BODY_TYPES)));
      }
      add(paths, collection + "/{name}", objectParams,
          objectOperations(r.verbs(), idPrefix + scope + r.kind(), gvk, kind, KubeCodec.PATCH_TYPES));

      for (Subresource s : r.subresources()) {
        String path = collection + "/{name}/" + s.name();
        String id = idPrefix + scope + r.kind() + capitalize(s.name());
        Gvk subGvk = new Gvk(s.group(), s.version(), s.kind());
        if (s.name().equals("exec")) {
          // A connect: GET (the WebSocket upgrade) or POST (SPDY), no body either way.
          add(paths, path, objectParams, List.of(
              new Operation("get", "connect", "connect" + idPrefix + "Get" + scope + r.kind() + capitalize(s.name()),
                  subGvk, EXEC, null, List.of(), 200, null, List.of(MediaType.ALL)),
              new Operation("post", "connect", "connect" + idPrefix + "Post" + scope + r.kind() + capitalize(s.name()),
                  subGvk, EXEC, null, List.of(), 200, null, List.of(MediaType.ALL))));
        } else if (s.name().equals("log")) {
          // The log is text, not the kind discovery names for it.
          add(paths, path, objectParams, List.of(new Operation("get", "get", "read" + id, subGvk, LOG,
              null, List.of(), 200, null, List.of(MediaType.TEXT_PLAIN))));
        } else {
          add(paths, path, objectParams, objectOperations(s.verbs(), id, subGvk,
              ModelSchemas.modelClass(s.group(), s.version(), s.kind()), KubeCodec.SUBRESOURCE_PATCH_TYPES));
        }
      }
    }
    return paths;
  }

  /** get, update, patch and delete of one object (or subresource), as far as {@code verbs} allow. */
  private static List<Operation> objectOperations(List<String> verbs, String id, Gvk gvk, Class<?> kind,
      List<String> patchTypes) {
    List<Operation> operations = new ArrayList<>();
    if (verbs.contains("get")) {
      operations.add(new Operation("get", "get", "read" + id, gvk, List.of(), null, List.of(), 200, kind, BODY_TYPES));
    }
    if (verbs.contains("update")) {
      operations.add(new Operation("put", "put", "replace" + id, gvk, WRITE, kind, BODY_TYPES, 200, kind, BODY_TYPES));
    }
    if (verbs.contains("patch")) {
      operations.add(new Operation("patch", "patch", "patch" + id, gvk, PATCH, ModelSchemas.Patch.class,
          patchTypes, 200, kind, BODY_TYPES));
    }
    if (verbs.contains("delete")) {
      // Ordinal answers a delete with the object as it was deleted.
      operations.add(new Operation("delete", "delete", "delete" + id, gvk, DELETE, null, List.of(), 200, kind,
          BODY_TYPES));
    }
    return operations;
  }

  private static void add(List<PathItem> paths, String path, List<String> params, List<Operation> operations) {
    if (!operations.isEmpty()) {
      paths.add(new PathItem(path, params, List.copyOf(operations)));
    }
  }

  private static String capitalize(String s) {
    return s.isEmpty() ? s : Character.toUpperCase(s.charAt(0)) + s.substring(1);
  }
}
