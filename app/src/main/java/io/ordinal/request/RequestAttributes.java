package io.ordinal.request;

import io.micronaut.http.HttpRequest;
import java.util.List;
import java.util.Set;

/**
 * What a request asks to do, as the API server's authorizers see it (upstream's RequestInfo:
 * staging/src/k8s.io/apiserver/pkg/endpoints/request/requestinfo.go): a verb on a resource, or on a
 * non-resource path such as {@code /version} or {@code /apis}.
 *
 * @param resourceRequest false for discovery, OpenAPI, health and other paths outside
 *     {@code /api/v1/...} and {@code /apis/{group}/{version}/...}
 * @param verb get, list, watch, create, update, patch, delete, deletecollection; pause, resume,
 *     restart, undo or complete (a member's asynchronous hook) for Ordinal's rollout actions
 *     (subresource rollout); for a non-resource
 *     request the lower-case HTTP method
 */
public record RequestAttributes(boolean resourceRequest, String verb, String path, String apiGroup, String apiVersion,
    String namespace, String resource, String subresource, String name) {

  private static final Set<String> LIST_VERBS_FALSE = Set.of("false", "0");
  /** {@code POST .../statefulsets/{name}/rollout/{action}}: the action is the verb. */
  /**
   * Adopt and release (taking a cluster's apps/v1 set over, handing it back) are granted by no
   * default role but cluster-admin.
   */
  private static final Set<String> ROLLOUT_ACTIONS = Set.of("pause", "resume", "restart", "undo", "complete", "adopt", "release");

  private static final String ATTRIBUTE = "ordinal.requestAttributes";

  /**
   * The attributes of {@code request}, parsed once and kept with it: the audit and authentication
   * filters both need them.
   */
  public static RequestAttributes of(HttpRequest<?> request) {
    return request.getAttribute(ATTRIBUTE, RequestAttributes.class).orElseGet(() -> {
      RequestAttributes parsed = of(request.getMethodName(), request.getPath(), request.getParameters().get("watch"),
          request.getParameters().get("fieldSelector"));
      request.setAttribute(ATTRIBUTE, parsed);
      return parsed;
    });
  }

  /** The attributes of {@code method} on {@code path}; {@code watch} and {@code fieldSelector} from the query. */
  public static RequestAttributes of(String method, String path, String watch, String fieldSelector) {
    String httpVerb = method.toLowerCase(java.util.Locale.ROOT);
    RequestAttributes nonResource = new RequestAttributes(false, httpVerb, path, "", "", "", "", "", "");
    List<String> segments = List.of(trim(path).split("/"));
    if (segments.size() < 3 || !(segments.get(0).equals("api") || segments.get(0).equals("apis"))) {
      return nonResource;
    }
    int next = 1;
    String group = "";
    if (segments.get(0).equals("apis")) {
      if (segments.size() < 4) {
        return nonResource;
      }
      group = segments.get(next++);
    }
    String version = segments.get(next++);
    String verb = switch (method.toUpperCase(java.util.Locale.ROOT)) {
      case "POST" -> "create";
      case "GET", "HEAD" -> "get";
      case "PUT" -> "update";
      case "PATCH" -> "patch";
      case "DELETE" -> "delete";
      default -> "";
    };
    if (next < segments.size() && segments.get(next).equals("watch")) {
      verb = "watch"; // the deprecated /api/v1/watch/... form
      next++;
    }
    String namespace = "";
    List<String> parts = segments.subList(next, segments.size());
    if (parts.size() >= 2 && parts.get(0).equals("namespaces")) {
      namespace = parts.get(1);
      // /namespaces/{ns}/{resource}... is a namespaced resource; /namespaces/{ns}[/status|/finalize]
      // is the namespace itself, in its own namespace.
      if (parts.size() >= 3 && !parts.get(2).equals("status") && !parts.get(2).equals("finalize")) {
        parts = parts.subList(2, parts.size());
      }
    }
    String resource = parts.isEmpty() ? "" : parts.get(0);
    String name = parts.size() > 1 ? parts.get(1) : "";
    String subresource = parts.size() > 2 ? parts.get(2) : "";
    if (name.isEmpty() && verb.equals("get")) {
      verb = watch != null && !LIST_VERBS_FALSE.contains(watch) ? "watch" : "list";
      String selected = singleName(fieldSelector);
      if (selected != null) {
        name = selected;
      }
    }
    if (resource.equals("statefulsets") && subresource.equals("rollout") && verb.equals("create") && parts.size() == 4
        && ROLLOUT_ACTIONS.contains(parts.get(3))) {
      // Ordinal's rollout actions are verbs of their own on statefulsets/rollout, so that a role can
      // grant pause and resume without undo; upstream's parsing would make them all "create".
      verb = parts.get(3);
    }
    if (name.isEmpty() && verb.equals("delete")) {
      verb = "deletecollection";
    }
    return new RequestAttributes(true, verb, path, group, version, namespace, resource, subresource, name);
  }

  /** The same request, asking for {@code otherVerb}. */
  public RequestAttributes withVerb(String otherVerb) {
    return new RequestAttributes(resourceRequest, otherVerb, path, apiGroup, apiVersion, namespace, resource, subresource,
        name);
  }

  /** {@code resource} or {@code resource/subresource}, as rules and messages name it. */
  public String resourcePath() {
    return subresource.isEmpty() ? resource : resource + "/" + subresource;
  }

  /** A fieldSelector of exactly {@code metadata.name=X} (or ==) selects one object by name. */
  private static String singleName(String fieldSelector) {
    if (fieldSelector == null) {
      return null;
    }
    for (String prefix : List.of("metadata.name==", "metadata.name=")) {
      if (fieldSelector.startsWith(prefix)) {
        String value = fieldSelector.substring(prefix.length());
        return value.isEmpty() || value.contains(",") || value.contains("/") ? null : value;
      }
    }
    return null;
  }

  private static String trim(String path) {
    String trimmed = path;
    while (trimmed.startsWith("/")) {
      trimmed = trimmed.substring(1);
    }
    while (trimmed.endsWith("/")) {
      trimmed = trimmed.substring(0, trimmed.length() - 1);
    }
    return trimmed;
  }
}
