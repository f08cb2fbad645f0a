package io.ordinal.api.discovery;

import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.ordinal.apimachinery.ApiException;
import io.ordinal.api.discovery.ApiResources.Group;
import io.ordinal.api.discovery.ApiResources.Resource;
import io.ordinal.api.discovery.ApiResources.Subresource;
import io.ordinal.store.KubeJson;
import io.swagger.v3.oas.annotations.Hidden;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What a Kubernetes client asks before anything else: {@code /version}, the legacy discovery
 * documents ({@code /api}, {@code /apis}, one resource list per group version) and the aggregated
 * discovery document ({@code apidiscovery.k8s.io/v2}) that kubectl 1.30+ asks for first.
 */
@Controller
@Hidden
public class DiscoveryApi {
  /** The Kubernetes API this server speaks (kubectl warns beyond one minor version of skew). */
  static final String KUBE_MAJOR = "1";
  static final String KUBE_MINOR = "32";

  @Get(value = "/version", produces = MediaType.APPLICATION_JSON)
  public HttpResponse<String> version() {
    Map<String, Object> info = new LinkedHashMap<>();
    info.put("major", KUBE_MAJOR);
    info.put("minor", KUBE_MINOR);
    info.put("gitVersion", gitVersion());
    info.put("gitCommit", "");
    info.put("gitTreeState", "");
    info.put("buildDate", "");
    info.put("goVersion", "");
    info.put("compiler", "ordinal");
    info.put("platform", System.getProperty("os.name").toLowerCase(Locale.ROOT) + "/" + System.getProperty("os.arch"));
    return json(info);
  }

  @Get(value = "/api", produces = MediaType.APPLICATION_JSON)
  public HttpResponse<String> coreVersions(HttpRequest<?> request) {
    String aggregated = aggregatedVersion(request);
    if (aggregated != null) {
      return aggregated(aggregated, List.of(ApiResources.CORE));
    }
    Map<String, Object> versions = new LinkedHashMap<>();
    versions.put("kind", "APIVersions");
    versions.put("versions", List.of(ApiResources.CORE.version()));
    versions.put("serverAddressByClientCIDRs", List.of(Map.of("clientCIDR", "0.0.0.0/0",
        "serverAddress", request.getHeaders().get("Host", String.class).orElse(""))));
    return json(versions);
  }

  @Get(value = "/apis", produces = MediaType.APPLICATION_JSON)
  public HttpResponse<String> groups(HttpRequest<?> request) {
    String aggregated = aggregatedVersion(request);
    if (aggregated != null) {
      return aggregated(aggregated, ApiResources.DISCOVERED_GROUPS);
    }
    Map<String, Object> list = new LinkedHashMap<>();
    list.put("kind", "APIGroupList");
    list.put("apiVersion", "v1");
    list.put("groups", ApiResources.DISCOVERED_GROUPS.stream().map(DiscoveryApi::group).toList());
    return json(list);
  }

  @Get(value = "/apis/{group}", produces = MediaType.APPLICATION_JSON)
  public HttpResponse<String> group(String group) {
    Map<String, Object> body = group(named(group));
    body.put("kind", "APIGroup");
    body.put("apiVersion", "v1");
    return json(body);
  }

  @Get(value = "/api/v1", produces = MediaType.APPLICATION_JSON)
  public HttpResponse<String> coreResources() {
    return json(resourceList(ApiResources.CORE));
  }

  @Get(value = "/apis/{group}/{version}", produces = MediaType.APPLICATION_JSON)
  public HttpResponse<String> groupResources(String group, String version) {
    Group named = named(group);
    if (!named.version().equals(version)) {
      throw notFound();
    }
    return json(resourceList(named));
  }

  private static Group named(String name) {
    return ApiResources.DISCOVERED_GROUPS.stream().filter(g -> g.name().equals(name)).findFirst().orElseThrow(DiscoveryApi::notFound);
  }

  private static ApiException notFound() {
    return ApiException.of(404, "NotFound", "the server could not find the requested resource");
  }

  private static Map<String, Object> group(Group group) {
    Map<String, Object> version = Map.of("groupVersion", group.groupVersion(), "version", group.version());
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("name", group.name());
    body.put("versions", List.of(version));
    body.put("preferredVersion", version);
    return body;
  }

  private static Map<String, Object> resourceList(Group group) {
    List<Map<String, Object>> resources = new ArrayList<>();
    for (Resource r : group.resources()) {
      Map<String, Object> main = new LinkedHashMap<>();
      main.put("name", r.plural());
      main.put("singularName", r.singular());
      main.put("namespaced", r.namespaced());
      main.put("kind", r.kind());
      main.put("verbs", r.verbs());
      putIfAny(main, "shortNames", r.shortNames());
      putIfAny(main, "categories", r.categories());
      resources.add(main);
      for (Subresource s : r.subresources()) {
        Map<String, Object> sub = new LinkedHashMap<>();
        sub.put("name", r.plural() + "/" + s.name());
        sub.put("singularName", "");
        sub.put("namespaced", r.namespaced());
        if (!s.group().equals(r.group()) || !s.version().equals(r.version())) {
          sub.put("group", s.group());
          sub.put("version", s.version());
        }
        sub.put("kind", s.kind());
        sub.put("verbs", s.verbs());
        resources.add(sub);
      }
    }
    Map<String, Object> list = new LinkedHashMap<>();
    list.put("kind", "APIResourceList");
    list.put("apiVersion", "v1");
    list.put("groupVersion", group.groupVersion());
    list.put("resources", resources);
    return list;
  }

  /**
   * "v2" or "v2beta1" when the client accepts the aggregated discovery document, else null. Clients
   * list it first and plain JSON last; the answer's Content-Type tells them which one they got.
   */
  static String aggregatedVersion(HttpRequest<?> request) {
    for (String accept : request.getHeaders().getAll("Accept")) {
      for (String alternative : accept.split(",")) {
        Map<String, String> params = new LinkedHashMap<>();
        String[] parts = alternative.split(";");
        for (int i = 1; i < parts.length; i++) {
          String[] kv = parts[i].trim().split("=", 2);
          if (kv.length == 2) {
            params.put(kv[0].trim(), kv[1].trim());
          }
        }
        if (parts[0].trim().equals(MediaType.APPLICATION_JSON) && "apidiscovery.k8s.io".equals(params.get("g"))
            && "APIGroupDiscoveryList".equals(params.get("as"))
            && ("v2".equals(params.get("v")) || "v2beta1".equals(params.get("v")))) {
          return params.get("v");
        }
      }
    }
    return null;
  }

  private static HttpResponse<String> aggregated(String version, List<Group> groups) {
    List<Map<String, Object>> items = new ArrayList<>();
    for (Group group : groups) {
      List<Map<String, Object>> resources = new ArrayList<>();
      for (Resource r : group.resources()) {
        Map<String, Object> resource = new LinkedHashMap<>();
        resource.put("resource", r.plural());
        resource.put("responseKind", kind(r.group(), r.version(), r.kind()));
        resource.put("scope", r.namespaced() ? "Namespaced" : "Cluster");
        resource.put("singularResource", r.singular());
        resource.put("verbs", r.verbs());
        putIfAny(resource, "shortNames", r.shortNames());
        putIfAny(resource, "categories", r.categories());
        putIfAny(resource, "subresources", r.subresources().stream().map(s -> Map.of(
            "subresource", s.name(), "responseKind", kind(s.group(), s.version(), s.kind()), "verbs", s.verbs())).toList());
        resources.add(resource);
      }
      Map<String, Object> item = new LinkedHashMap<>();
      item.put("metadata", group.name().isEmpty() ? Map.of() : Map.of("name", group.name()));
      item.put("versions", List.of(Map.of("version", group.version(), "resources", resources, "freshness", "Current")));
      items.add(item);
    }
    Map<String, Object> list = new LinkedHashMap<>();
    list.put("kind", "APIGroupDiscoveryList");
    list.put("apiVersion", "apidiscovery.k8s.io/" + version);
    list.put("metadata", Map.of());
    list.put("items", items);
    return HttpResponse.ok(KubeJson.write(list))
        .contentType("application/json;g=apidiscovery.k8s.io;v=" + version + ";as=APIGroupDiscoveryList");
  }

  private static Map<String, String> kind(String group, String version, String kind) {
    return Map.of("group", group, "version", version, "kind", kind);
  }

  private static void putIfAny(Map<String, Object> map, String key, List<?> values) {
    if (!values.isEmpty()) {
      map.put(key, values);
    }
  }

  private static HttpResponse<String> json(Object body) {
    return HttpResponse.ok(KubeJson.write(body)).contentType(MediaType.APPLICATION_JSON);
  }

  /** The version {@code /version} reports, as the API server writes it: {@code v1.32.0+ordinal-0.1.0}. */
  public static String gitVersion() {
    return "v" + KUBE_MAJOR + "." + KUBE_MINOR + ".0+ordinal-" + implementationVersion();
  }

  private static String implementationVersion() {
    String version = DiscoveryApi.class.getPackage().getImplementationVersion();
    return version == null ? "dev" : version;
  }
}
