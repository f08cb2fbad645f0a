package io.ordinal.e2e;

/** Paths of the Kubernetes-shaped API. */
final class Paths {
  private Paths() {}

  /** A resource of the core group, e.g. {@code core(ns, "events")}. */
  static String core(String ns, String resource) {
    return "/api/v1/namespaces/" + ns + "/" + resource;
  }

  /** A resource of the apps group, e.g. {@code apps(ns, "controllerrevisions")}. */
  static String apps(String ns, String resource) {
    return "/apis/apps/v1/namespaces/" + ns + "/" + resource;
  }

  static String pod(String ns, String name) {
    return core(ns, "pods/" + name);
  }

  static String sets(String ns) {
    return apps(ns, "statefulsets");
  }

  static String set(String ns, String name) {
    return sets(ns) + "/" + name;
  }
}
