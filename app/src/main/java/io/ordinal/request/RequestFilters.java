package io.ordinal.request;

import io.micronaut.http.filter.ServerFilterPhase;

/**
 * The order of the request filters, outermost first, in one place (upstream's
 * DefaultBuildHandlerChain): each filter's getOrder() names its constant here.
 */
public final class RequestFilters {
  /** A span covers everything after it, authentication and metrics too. */
  public static final int TRACING = ServerFilterPhase.FIRST.before();
  /** Every request counted and timed, refused ones too. */
  public static final int METRICS = ServerFilterPhase.FIRST.order();
  /** The audit record opens before authentication, so that a 401 is audited too. */
  public static final int AUDIT = ServerFilterPhase.SECURITY.before();
  /** Who the user is (401 for credentials that are not valid). */
  public static final int AUTHENTICATION = ServerFilterPhase.SECURITY.order();
  /** Whether the user may (403). */
  public static final int AUTHORIZATION = ServerFilterPhase.SECURITY.order() + 1;
  /** kubectl exec's WebSocket upgrade, once the user may run it. */
  public static final int EXEC_UPGRADE = ServerFilterPhase.SECURITY.after();

  private RequestFilters() {}
}
