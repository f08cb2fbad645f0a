package io.ordinal.auth;

import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.micronaut.core.order.Ordered;
import io.micronaut.http.HttpHeaders;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.MutableHttpResponse;
import io.micronaut.http.annotation.Filter;
import io.micronaut.http.filter.HttpServerFilter;
import io.micronaut.http.filter.ServerFilterChain;
import io.micronaut.http.filter.ServerFilterPhase;
import io.micronaut.health.HealthStatus;
import io.micronaut.http.HttpStatus;
import io.micronaut.management.health.indicator.HealthResult;
import io.ordinal.api.ApiException;
import io.ordinal.audit.AuditContext;
import io.ordinal.api.KubeCodec;
import java.net.InetSocketAddress;
import java.time.Instant;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Mono;

/**
 * Every request names its user before anything else runs: a bearer token (401 Unauthorized when
 * it is not a valid one), or no credentials at all (the anonymous user). Then {@link Authorization}
 * decides (403 Forbidden, in upstream's words). The user is the request's principal from then on.
 * Tokens are checked in memory ({@link Tokens}), so this never blocks the event loop.
 */
@Filter(Filter.MATCH_ALL_PATTERN)
public class AuthenticationFilter implements HttpServerFilter {
  /** Request attribute: the {@link User} who made the request. */
  public static final String USER = "ordinal.user";

  private final Tokens tokens;
  private final Authorization authorization;

  public AuthenticationFilter(Tokens tokens, Authorization authorization) {
    this.tokens = tokens;
    this.authorization = authorization;
  }

  @Override
  public int getOrder() {
    return ServerFilterPhase.SECURITY.order();
  }

  @Override
  public Publisher<MutableHttpResponse<?>> doFilter(HttpRequest<?> request, ServerFilterChain chain) {
    Optional<User> user = authenticate(request);
    if (user.isEmpty()) {
      return Mono.just(KubeCodec.respond(request, 401, new StatusBuilder().withApiVersion("v1").withKind("Status")
          .withNewMetadata().endMetadata().withStatus("Failure").withCode(401).withReason("Unauthorized")
          .withMessage("Unauthorized").build()));
    }
    request.setAttribute(USER, user.get());
    RequestAttributes attributes = RequestAttributes.of(request.getMethodName(), request.getPath(),
        request.getParameters().get("watch"), request.getParameters().get("fieldSelector"));
    boolean allowed = authorization.allows(user.get(), attributes) || codecFromThisMachine(request);
    AuditContext.of(request).ifPresent(audit -> audit.annotate(AuditContext.DECISION, allowed ? "allow" : "forbid"));
    if (!allowed) {
      ApiException forbidden = ApiException.forbidden(Authorization.forbiddenMessage(user.get(), attributes),
          attributes.apiGroup(), attributes.resource(), attributes.name());
      return Mono.just(KubeCodec.respond(request, 403, forbidden.status()));
    }
    if (user.get().anonymous() && request.getPath().startsWith("/health")) {
      return Mono.from(chain.proceed(request)).map(AuthenticationFilter::statusOnly);
    }
    return chain.proceed(request);
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
   * The user of the request's credentials; the anonymous user without credentials (or with a scheme
   * other than Bearer, as upstream); empty for a bearer token that is not valid.
   */
  private Optional<User> authenticate(HttpRequest<?> request) {
    String header = request.getHeaders().get(HttpHeaders.AUTHORIZATION);
    if (header == null) {
      return Optional.of(User.ANONYMOUS);
    }
    String[] fields = header.trim().split("\\s+");
    if (fields.length < 2 || !fields[0].toLowerCase(Locale.ROOT).equals("bearer")) {
      return Optional.of(User.ANONYMOUS);
    }
    return tokens.authenticate(fields[1], Instant.now());
  }

  /**
   * The Temporal Web UI decodes workflow payloads through {@code /codec} from the browser, which has
   * no token of ours: allowed from this machine only (the service listens on loopback).
   */
  private static boolean codecFromThisMachine(HttpRequest<?> request) {
    InetSocketAddress remote = request.getRemoteAddress();
    return request.getPath().startsWith("/codec/") && remote != null && remote.getAddress() != null
        && remote.getAddress().isLoopbackAddress();
  }
}
