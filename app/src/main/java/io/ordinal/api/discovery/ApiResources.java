package io.ordinal.api.discovery;

import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The resources this server serves, with the verbs each really answers: the single source of both
 * discovery formats. A verb is listed only once its endpoint exists (clients trust the list).
 */
public final class ApiResources {
  private ApiResources() {}

  /** A subresource ({@code statefulsets/scale}) and the kind it answers with. */
  public record Subresource(String name, String group, String version, String kind, List<String> verbs) {}

  public record Resource(String group, String version, String plural, String singular, String kind,
      boolean namespaced, List<String> verbs, List<String> shortNames, List<String> categories,
      List<Subresource> subresources) {

    public String groupVersion() {
      return group.isEmpty() ? version : group + "/" + version;
    }
  }

  /** A group and its one version, in the order clients should prefer them. */
  public record Group(String name, String version, List<Resource> resources) {
    public String groupVersion() {
      return name.isEmpty() ? version : name + "/" + version;
    }

    /** The resource of this plural name, if the group serves one. */
    public Optional<Resource> resource(String plural) {
      return resources.stream().filter(r -> r.plural().equals(plural)).findFirst();
    }
  }

  private static final List<String> READ = List.of("get", "list", "watch");
  private static final List<String> WRITE = List.of("create", "delete", "get", "list", "patch", "update", "watch");

  public static final Resource PODS = new Resource("", "v1", "pods", "pod", "Pod", true,
      List.of("delete", "deletecollection", "get", "list", "patch", "update", "watch"), List.of("po"), List.of("all"),
      List.of(new Subresource("exec", "", "v1", "PodExecOptions", List.of("create", "get")),
          new Subresource("log", "", "v1", "Pod", List.of("get"))));
  public static final Resource CLAIMS = new Resource("", "v1", "persistentvolumeclaims", "persistentvolumeclaim",
      "PersistentVolumeClaim", true, List.of("delete", "get", "list", "watch"), List.of("pvc"), List.of(), List.of());
  public static final Resource EVENTS = new Resource("", "v1", "events", "event", "Event", true, READ, List.of("ev"),
      List.of(), List.of());
  /** Only those of a governing service, made from the members of the sets that name it. */
  public static final Resource ENDPOINTS = new Resource("", "v1", "endpoints", "endpoints", "Endpoints", true,
      List.of("get"), List.of("ep"), List.of(), List.of());
  /** Every valid name is a namespace; created or labelled ones are stored with their labels. */
  public static final Resource NAMESPACES = new Resource("", "v1", "namespaces", "namespace", "Namespace", false,
      List.of("create", "delete", "get", "list", "patch", "update", "watch"), List.of("ns"), List.of(), List.of());

  private static final List<String> ALL_VERBS = List.of("create", "delete", "deletecollection", "get", "list", "patch",
      "update", "watch");
  public static final Resource CONFIG_MAPS = new Resource("", "v1", "configmaps", "configmap", "ConfigMap", true,
      ALL_VERBS, List.of("cm"), List.of(), List.of());
  public static final Resource SECRETS = new Resource("", "v1", "secrets", "secret", "Secret", true, ALL_VERBS,
      List.of(), List.of(), List.of());
  public static final Resource SERVICE_ACCOUNTS = new Resource("", "v1", "serviceaccounts", "serviceaccount",
      "ServiceAccount", true, ALL_VERBS, List.of("sa"), List.of(), List.of());

  public static final Resource SERVICES = new Resource("", "v1", "services", "service", "Service", true, ALL_VERBS,
      List.of("svc"), List.of("all"), List.of());

  public static final Group CORE = new Group("", "v1", List.of(PODS, CLAIMS, EVENTS, ENDPOINTS, NAMESPACES, CONFIG_MAPS,
      SECRETS, SERVICE_ACCOUNTS, SERVICES));

  public static final Resource STATEFULSETS = new Resource("apps", "v1", "statefulsets", "statefulset", "StatefulSet", true,
      ALL_VERBS,
      List.of("sts"), List.of("all"),
      List.of(new Subresource("scale", "autoscaling", "v1", "Scale", List.of("get", "patch", "update")),
          new Subresource("status", "apps", "v1", "StatefulSet", List.of("get", "patch", "update"))));
  public static final Resource CONTROLLER_REVISIONS = new Resource("apps", "v1", "controllerrevisions",
      "controllerrevision", "ControllerRevision", true, List.of("delete", "get", "list", "watch"), List.of(), List.of(),
      List.of());

  public static final Group APPS = new Group("apps", "v1", List.of(STATEFULSETS, CONTROLLER_REVISIONS));

  /** Scale is served as a subresource of statefulsets; the group exists so clients can resolve its kind. */
  public static final Group AUTOSCALING = new Group("autoscaling", "v1", List.of());

  public static final Resource CLUSTER_ROLE_BINDINGS = rbac("clusterrolebindings", "ClusterRoleBinding", false);
  public static final Resource CLUSTER_ROLES = rbac("clusterroles", "ClusterRole", false);
  public static final Resource ROLE_BINDINGS = rbac("rolebindings", "RoleBinding", true);
  public static final Resource ROLES = rbac("roles", "Role", true);

  public static final Group RBAC = new Group("rbac.authorization.k8s.io", "v1",
      List.of(CLUSTER_ROLE_BINDINGS, CLUSTER_ROLES, ROLE_BINDINGS, ROLES));

  /**
   * Written by the endpoint slice controller (EndpointSliceController) for each Service with a
   * selector; clients read them, as kube-proxy and DNS servers do.
   */
  public static final Resource ENDPOINT_SLICES = new Resource("discovery.k8s.io", "v1", "endpointslices",
      "endpointslice", "EndpointSlice", true, READ, List.of(), List.of(), List.of());

  public static final Group DISCOVERY = new Group("discovery.k8s.io", "v1", List.of(ENDPOINT_SLICES));

  /** The reviews kubectl auth can-i and whoami create: no fabric8 model, so not in the OpenAPI documents. */
  public static final Group AUTHORIZATION = new Group("authorization.k8s.io", "v1", List.of(
      new Resource("authorization.k8s.io", "v1", "selfsubjectaccessreviews", "selfsubjectaccessreview",
          "SelfSubjectAccessReview", false, List.of("create"), List.of(), List.of(), List.of()),
      new Resource("authorization.k8s.io", "v1", "selfsubjectrulesreviews", "selfsubjectrulesreview",
          "SelfSubjectRulesReview", false, List.of("create"), List.of(), List.of(), List.of())));

  public static final Group AUTHENTICATION = new Group("authentication.k8s.io", "v1", List.of(
      new Resource("authentication.k8s.io", "v1", "selfsubjectreviews", "selfsubjectreview",
          "SelfSubjectReview", false, List.of("create"), List.of(), List.of(), List.of())));

  /** The named groups ({@code /apis}) with OpenAPI documents, preferred first. */
  public static final List<Group> GROUPS = List.of(APPS, AUTOSCALING, RBAC, DISCOVERY);

  /** Every named group discovery lists: those of {@link #GROUPS} and the review groups. */
  public static final List<Group> DISCOVERED_GROUPS = List.of(APPS, AUTOSCALING, RBAC, DISCOVERY, AUTHORIZATION,
      AUTHENTICATION);

  /** The resource {@code plural} of the group version, if served. */
  public static Optional<Resource> find(String group, String version, String plural) {
    return Stream.concat(Stream.of(CORE), DISCOVERED_GROUPS.stream())
        .filter(g -> g.name().equals(group) && g.version().equals(version))
        .findFirst().flatMap(g -> g.resource(plural));
  }

  private static Resource rbac(String plural, String kind, boolean namespaced) {
    return new Resource("rbac.authorization.k8s.io", "v1", plural, plural.substring(0, plural.length() - 1), kind,
        namespaced, WRITE, List.of(), List.of(), List.of());
  }
}
