package io.ordinal.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.ordinal.request.RequestAttributes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Every endpoint the service documents (its OpenAPI v3 paths × methods) against every kind of
 * caller: no token, a token that is not valid, a user bound to view, edit or admin in the
 * namespace, and an admin of another namespace — through HTTPS with the generated CA. What each may
 * do is written out here from upstream's default roles (bootstrappolicy/policy.go), independently
 * of the server's: a caller the roles allow gets exactly the code cluster-admin gets for the same
 * request (writes are dry runs, so nothing changes between callers), any other 403, and a bad
 * token 401. The Temporal Web UI's codec, which the documents leave out, is checked too.
 */
@E2eTest
class AuthorizationMatrixIT {
  static Api api;

  private static final Set<String> READ = Set.of("get", "list", "watch");
  private static final Set<String> WRITE = Set.of("create", "update", "patch", "delete", "deletecollection");
  private static final Set<String> PUBLIC = Set.of("/version", "/healthz", "/livez", "/readyz", "/health");

  /** What view grants in its namespace (upstream's system:aggregate-to-view, cut to what Ordinal serves). */
  private static boolean viewAllows(RequestAttributes r) {
    String what = r.apiGroup() + "/" + r.resourcePath();
    return switch (what) {
      case "/pods", "/pods/log", "/persistentvolumeclaims", "/events", "/endpoints", "/namespaces", "/configmaps",
          "/serviceaccounts", "/services",
          "apps/statefulsets", "apps/statefulsets/scale", "apps/statefulsets/status", "apps/controllerrevisions",
          "events.k8s.io/events", "discovery.k8s.io/endpointslices" -> READ.contains(r.verb());
      case "apps/statefulsets/rollout" -> r.verb().equals("get");
      default -> false;
    };
  }

  /**
   * edit: view, and writing the workload (not its status), its pods, claims, events, ConfigMaps,
   * Secrets, Services and ServiceAccounts, exec, the rollout actions, and reading Secrets.
   */
  private static boolean editAllows(RequestAttributes r) {
    String what = r.apiGroup() + "/" + r.resourcePath();
    boolean writes = switch (what) {
      case "/pods", "/persistentvolumeclaims", "/events", "/configmaps", "/serviceaccounts", "/services",
          "apps/statefulsets", "apps/statefulsets/scale" -> WRITE.contains(r.verb());
      case "/pods/exec", "/secrets" -> WRITE.contains(r.verb()) || READ.contains(r.verb());
      case "apps/statefulsets/rollout" -> Set.of("pause", "resume", "restart", "undo").contains(r.verb());
      default -> false;
    };
    return writes || viewAllows(r);
  }

  /** admin: edit, and the namespace's roles and role bindings. */
  private static boolean adminAllows(RequestAttributes r) {
    return (r.apiGroup().equals("rbac.authorization.k8s.io") && Set.of("roles", "rolebindings").contains(r.resource()))
        || editAllows(r);
  }

  /** Anyone authenticated: discovery, OpenAPI, the probes, and reviews of themselves. */
  private static boolean everyUserAllows(RequestAttributes r) {
    if (!r.resourceRequest()) {
      String path = r.path();
      return r.verb().equals("get") && (PUBLIC.contains(path) || path.equals("/api") || path.startsWith("/api/")
          || path.equals("/apis") || path.startsWith("/apis/") || path.equals("/openapi") || path.startsWith("/openapi/"));
    }
    return r.verb().equals("create") && Set.of("selfsubjectaccessreviews", "selfsubjectrulesreviews", "selfsubjectreviews")
        .contains(r.resource());
  }

  @Test
  void everyEndpointAnswersEachCallerWithTheCodeItsRolesGive(@Namespace String ns, @Namespace String elsewhere) {
    api.createSet(ns, Manifests.web("web", 1, 0, Map.of()));
    api.awaitConverged(ns, "web", 1, Duration.ofSeconds(60));
    String revision = api.get(Paths.set(ns, "web")).json().at("/status/updateRevision").asText();
    Map<String, String> names = Map.of("statefulsets", "web", "pods", "web-0", "persistentvolumeclaims", "www-web-0",
        "controllerrevisions", revision, "endpoints", "web", "namespaces", ns);

    Map<String, Api> callers = new LinkedHashMap<>();
    callers.put("anonymous", api.as(null));
    callers.put("bad token", api.as("abcdefgh.0123456789abcdefghijklmnopqrstuv"));
    callers.put("view", bound("view", ns, ns));
    callers.put("edit", bound("edit", ns, ns));
    callers.put("admin", bound("admin", ns, ns));
    callers.put("admin elsewhere", bound("admin", elsewhere, ns));

    List<String> wrong = new ArrayList<>();
    int checked = 0;
    for (Endpoint endpoint : endpoints()) {
      String path = endpoint.path().replace("{namespace}", ns);
      if (path.contains("{name}")) {
        String resource = path.substring(0, path.indexOf("/{name}"));
        resource = resource.substring(resource.lastIndexOf('/') + 1);
        path = path.replace("{name}", names.getOrDefault(resource, "matrix-absent"));
      }
      RequestAttributes attributes = RequestAttributes.of(endpoint.method(), path, null, null);
      String target = endpoint.method().equals("GET") ? path : path + "?dryRun=All";
      int reference = send(api, endpoint.method(), target).code();
      for (var caller : callers.entrySet()) {
        // The Web UI's codec decodes for anyone on this machine (it sends no credentials); encoding
        // is for whom RBAC allows (here, cluster-admin only).
        boolean allowed = path.equals("/codec/decode") ? !caller.getKey().equals("bad token") : switch (caller.getKey()) {
          case "anonymous" -> !attributes.resourceRequest() && attributes.verb().equals("get") && PUBLIC.contains(path);
          case "bad token" -> false;
          case "view" -> everyUserAllows(attributes) || viewAllows(attributes) && !attributes.namespace().isEmpty();
          case "edit" -> everyUserAllows(attributes) || editAllows(attributes) && !attributes.namespace().isEmpty();
          case "admin" -> everyUserAllows(attributes) || adminAllows(attributes) && !attributes.namespace().isEmpty();
          default -> everyUserAllows(attributes); // bound in another namespace only
        };
        int expected = caller.getKey().equals("bad token") ? 401 : allowed ? reference : 403;
        int code = send(caller.getValue(), endpoint.method(), target).code();
        checked++;
        if (code != expected) {
          wrong.add(endpoint.method() + " " + path + " as " + caller.getKey() + ": " + code + ", expected " + expected
              + " (" + attributes.verb() + " " + attributes.resourcePath() + ")");
        }
      }
    }
    assertTrue(checked > 300, "the documents name every endpoint: " + checked + " requests");
    assertEquals(List.of(), wrong, String.join("\n", wrong));
  }

  private record Endpoint(String method, String path) {}

  /** Every path × method of every OpenAPI v3 document the service publishes. */
  private static List<Endpoint> endpoints() {
    List<Endpoint> endpoints = new ArrayList<>();
    JsonNode index = api.get("/openapi/v3").json().path("paths");
    index.fields().forEachRemaining(groupVersion -> {
      JsonNode document = api.get(groupVersion.getValue().path("serverRelativeURL").asText()).json();
      document.path("paths").fields().forEachRemaining(path -> path.getValue().fieldNames().forEachRemaining(method -> {
        if (Set.of("get", "put", "post", "patch", "delete").contains(method)) {
          endpoints.add(new Endpoint(method.toUpperCase(java.util.Locale.ROOT), path.getKey()));
        }
      }));
    });
    for (String path : PUBLIC) {
      endpoints.add(new Endpoint("GET", path));
    }
    // Not documented (the Temporal Web UI's codec server), served all the same.
    endpoints.add(new Endpoint("POST", "/codec/decode"));
    endpoints.add(new Endpoint("POST", "/codec/encode"));
    return endpoints;
  }

  /** The request with an empty object for a body: enough to pass or fail authorization, which comes first. */
  private static Api.Reply send(Api as, String method, String path) {
    return switch (method) {
      case "GET", "DELETE" -> as.send(method, path, null, null, "application/json");
      case "PATCH" -> as.send(method, path, "application/merge-patch+json", "{}", "application/json");
      default -> as.send(method, path, "application/json", "{}", "application/json");
    };
  }

  /** A token for a new user bound to {@code role} in {@code bindingNamespace}. */
  private static Api bound(String role, String bindingNamespace, String testNamespace) {
    String user = role + "-of-" + bindingNamespace;
    Api.Reply token = api.post("/apis/auth.ordinal.io/v1/tokens", "application/json",
        "{\"spec\":{\"user\":\"" + user + "\",\"description\":\"matrix " + testNamespace + "\"}}");
    assertEquals(201, token.code(), token.body());
    api.bind(user, role, bindingNamespace);
    return api.as(token.json().at("/status/token").asText());
  }
}
