package io.ordinal.auth;

import io.micronaut.health.HealthStatus;
import io.micronaut.http.HttpHeaders;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MutableHttpResponse;
import io.micronaut.http.annotation.Filter;
import io.micronaut.http.filter.HttpServerFilter;
import io.micronaut.http.filter.ServerFilterChain;
import io.micronaut.management.health.indicator.HealthResult;
import io.ordinal.apimachinery.ApiException;
import io.ordinal.apimachinery.KubeCodec;
import io.ordinal.audit.AuditContext;
import io.ordinal.request.RequestAttributes;
import io.ordinal.request.RequestFilters;
import io.ordinal.request.User;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.Set;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Mono;

/**
 * Whether the authenticated user may make the request ({@link Authorization}: RBAC), 403 Forbidden
 * in upstream's words when not; the decision goes into the request's audit record.
 */
@Filter(Filter.MATCH_ALL_PATTERN)
public class AuthorizationFilter implements HttpServerFilter {
  private final Authorization authorization;

  public AuthorizationFilter(Authorization authorization) {
    this.authorization = authorization;
  }

  @Override
  public int getOrder() {
    return RequestFilters.AUTHORIZATION;
  }

  @Override
  public Publisher<MutableHttpResponse<?>> doFilter(HttpRequest<?> request, ServerFilterChain chain) {
    User user = User.of(request).orElse(User.ANONYMOUS);
    RequestAttributes attributes = RequestAttributes.of(request);
    if (webSocketUpgradeThatCreates(request, attributes) && authorization.allows(user, attributes)) {
      // upstream's AuthorizePodWebsocketUpgradeCreatePermission (on by default since 1.31): a GET that
      // upgrades to exec in a pod needs create too, as the POST does
      attributes = attributes.withVerb("create");
    }
    boolean allowed = authorization.allows(user, attributes) || codecDecodeFromThisMachine(request);
    AuditContext.of(request).ifPresent(audit -> audit.annotate(AuditContext.DECISION, allowed ? "allow" : "forbid"));
    if (!allowed) {
      ApiException forbidden = ApiException.forbidden(Authorization.forbiddenMessage(user, attributes),
          attributes.apiGroup(), attributes.resource(), attributes.name());
      return Mono.just(KubeCodec.respond(request, 403, forbidden.status()));
    }
    if (user.anonymous() && request.getPath().startsWith("/health")) {
      return Mono.from(chain.proceed(request)).map(AuthorizationFilter::statusOnly);
    }
    return chain.proceed(request);
  }

  private static boolean webSocketUpgradeThatCreates(HttpRequest<?> request, RequestAttributes attributes) {
    return attributes.verb().equals("get") && attributes.resource().equals("pods")
        && Set.of("exec", "attach", "portforward").contains(attributes.subresource())
        && "websocket".equalsIgnoreCase(request.getHeaders().get(HttpHeaders.UPGRADE));
  }

  /**
   * What is up and what is not is for an authenticated user: the anonymous one gets the status, and
   * the code Micronaut's health filter would give it (503 when down), since that filter does not
   * recognise the body any more.
   */
  private static MutableHttpResponse<?> statusOnly(MutableHttpResponse<?> response) {
    return response.getBody(HealthResult.class)
        .<MutableHttpResponse<?>>map(health -> response
            .status(HealthStatus.DOWN.equals(health.getStatus()) ? HttpStatus.SERVICE_UNAVAILABLE : HttpStatus.OK)
            .body(Map.of("status", health.getStatus().getName())))
        .orElse(response);
  }


  /**
   * A Temporal Web UI decodes workflow payloads through {@code /codec/decode} from the browser, which
   * sends no credentials of ours (the dev server's UI has no login and no way to be told to): that one
   * path (and its CORS preflight) is allowed from this machine without them, for a UI whose browser
   * trusts the service's CA and for the CLI. (The embedded UI uses the plain-HTTP loopback listener,
   * {@code LoopbackCodecListener}, which is no route of the API.) Decoding returns only what the caller
   * sent, decompressed, and is bounded ({@code PayloadTranscoder}); encoding, and any caller from
   * elsewhere, goes through authorization like every other request.
   */
  private static boolean codecDecodeFromThisMachine(HttpRequest<?> request) {
    InetSocketAddress remote = request.getRemoteAddress();
    return request.getPath().equals("/codec/decode") && Set.of("POST", "OPTIONS").contains(request.getMethodName())
        && remote != null && remote.getAddress() != null && remote.getAddress().isLoopbackAddress();
  }
}
