package io.ordinal.api.discovery;

import java.util.List;

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
  }

  private static final List<String> READ = List.of("get", "list", "watch");

  public static final Group CORE = new Group("", "v1", List.of(
      new Resource("", "v1", "pods", "pod", "Pod", true,
          List.of("delete", "deletecollection", "get", "list", "patch", "update", "watch"), List.of("po"), List.of("all"),
          List.of(new Subresource("exec", "", "v1", "PodExecOptions", List.of("create", "get")),
              new Subresource("log", "", "v1", "Pod", List.of("get")))),
      new Resource("", "v1", "persistentvolumeclaims", "persistentvolumeclaim", "PersistentVolumeClaim", true,
          List.of("delete", "get", "list", "watch"), List.of("pvc"), List.of(), List.of()),
      new Resource("", "v1", "events", "event", "Event", true, READ, List.of("ev"), List.of(), List.of()),
      new Resource("", "v1", "endpoints", "endpoints", "Endpoints", true, List.of("get"), List.of("ep"),
          List.of(), List.of()),
      // Every valid name is a namespace; created or labelled ones are stored with their labels.
      new Resource("", "v1", "namespaces", "namespace", "Namespace", false,
          List.of("create", "delete", "get", "list", "patch", "update"), List.of("ns"),
          List.of(), List.of())));

  public static final Group APPS = new Group("apps", "v1", List.of(
      new Resource("apps", "v1", "statefulsets", "statefulset", "StatefulSet", true,
          List.of("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"),
          List.of("sts"), List.of("all"),
          List.of(new Subresource("scale", "autoscaling", "v1", "Scale", List.of("get", "patch", "update")),
              new Subresource("status", "apps", "v1", "StatefulSet", List.of("get", "patch", "update")))),
      new Resource("apps", "v1", "controllerrevisions", "controllerrevision", "ControllerRevision", true,
          List.of("delete", "get", "list", "watch"), List.of(), List.of(), List.of())));

  /** Scale is served as a subresource of statefulsets; the group exists so clients can resolve its kind. */
  public static final Group AUTOSCALING = new Group("autoscaling", "v1", List.of());

  private static final List<String> RBAC_VERBS = List.of("create", "delete", "get", "list", "patch", "update", "watch");

  public static final Group RBAC = new Group("rbac.authorization.k8s.io", "v1", List.of(
      new Resource("rbac.authorization.k8s.io", "v1", "clusterrolebindings", "clusterrolebinding", "ClusterRoleBinding",
          false, RBAC_VERBS, List.of(), List.of(), List.of()),
      new Resource("rbac.authorization.k8s.io", "v1", "clusterroles", "clusterrole", "ClusterRole",
          false, RBAC_VERBS, List.of(), List.of(), List.of()),
      new Resource("rbac.authorization.k8s.io", "v1", "rolebindings", "rolebinding", "RoleBinding",
          true, RBAC_VERBS, List.of(), List.of(), List.of()),
      new Resource("rbac.authorization.k8s.io", "v1", "roles", "role", "Role",
          true, RBAC_VERBS, List.of(), List.of(), List.of())));

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
  public static final List<Group> GROUPS = List.of(APPS, AUTOSCALING, RBAC);

  /** Every named group discovery lists: those of {@link #GROUPS} and the review groups. */
  public static final List<Group> DISCOVERED_GROUPS = List.of(APPS, AUTOSCALING, RBAC, AUTHORIZATION, AUTHENTICATION);
}
