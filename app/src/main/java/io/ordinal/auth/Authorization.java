package io.ordinal.auth;

import io.ordinal.request.RequestAttributes;
import io.ordinal.request.User;
import io.ordinal.auth.rbac.Policy;
import io.ordinal.auth.rbac.Rbac;
import jakarta.inject.Singleton;

/**
 * Who may do what: Kubernetes RBAC ({@link Policy}), evaluated against the in-memory snapshot
 * {@link Rbac} keeps, so a decision never waits for the database (this runs on the event loop for
 * every request). The tokens API is cluster-admin's only because no other role grants it; the
 * anonymous user may do what {@code system:public-info-viewer} grants {@code system:unauthenticated}.
 */
@Singleton
public class Authorization {
  private final Rbac rbac;

  public Authorization(Rbac rbac) {
    this.rbac = rbac;
  }

  public boolean allows(User user, RequestAttributes request) {
    return decide(user, request).allowed();
  }

  /** The decision with its reason, for SelfSubjectAccessReviews. */
  public Policy.Decision decide(User user, RequestAttributes request) {
    if (user.inGroup(User.MASTERS)) {
      // kube-apiserver's privileged-group authorizer runs before RBAC: system:masters may do
      // anything even if the cluster-admin binding is deleted, so no one can lock the admin out.
      return new Policy.Decision(true, "", "");
    }
    return rbac.policy().authorize(user, request);
  }

  /**
   * Upstream's 403 message: {@code statefulsets.apps "web" is forbidden: User "bob" cannot patch
   * resource "statefulsets/scale" in API group "apps" in the namespace "ns"}, or for a path
   * {@code forbidden: User "system:anonymous" cannot get path "/apis"}.
   */
  public static String forbiddenMessage(User user, RequestAttributes request) {
    if (!request.resourceRequest()) {
      return "forbidden: User " + quoted(user.name()) + " cannot " + request.verb() + " path " + quoted(request.path());
    }
    String scope = request.namespace().isEmpty() ? " at the cluster scope"
        : " in the namespace " + quoted(request.namespace());
    String what = "User " + quoted(user.name()) + " cannot " + request.verb() + " resource "
        + quoted(request.resourcePath()) + " in API group " + quoted(request.apiGroup()) + scope;
    String groupResource = request.resource() + (request.apiGroup().isEmpty() ? "" : "." + request.apiGroup());
    return groupResource + (request.name().isEmpty() ? "" : " " + quoted(request.name())) + " is forbidden: " + what;
  }

  private static String quoted(String value) {
    return "\"" + value.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }
}
