package io.ordinal.auth;

import jakarta.inject.Singleton;
import java.util.Set;

/**
 * Who may do what. Until roles exist (RBAC), every authenticated user may do everything but handle
 * tokens, which make users and are for {@code system:masters} only; the anonymous user may only read
 * what upstream's {@code system:public-info-viewer} role shows anyone: the version and the probes.
 */
@Singleton
public class Authorization {
  /** Non-resource paths anyone may GET (upstream's system:public-info-viewer, plus Ordinal's /health). */
  private static final Set<String> PUBLIC_PATHS = Set.of("/version", "/healthz", "/livez", "/readyz", "/health");

  public boolean allows(User user, RequestAttributes request) {
    if (request.resourceRequest() && request.apiGroup().equals(TokenApi.GROUP)) {
      return user.inGroup(User.MASTERS);
    }
    if (!user.anonymous()) {
      return true;
    }
    return !request.resourceRequest() && (request.verb().equals("get") || request.verb().equals("head"))
        && PUBLIC_PATHS.contains(request.path());
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
