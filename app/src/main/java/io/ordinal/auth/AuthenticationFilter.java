package io.ordinal.auth;

import io.ordinal.request.RequestAttributes;
import io.ordinal.request.User;
import io.fabric8.kubernetes.api.model.StatusBuilder;
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
import io.ordinal.apimachinery.ApiException;
import io.ordinal.audit.AuditContext;
import io.ordinal.apimachinery.KubeCodec;
import org.bouncycastle.asn1.x500.RDN;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x500.style.BCStyle;
import org.bouncycastle.asn1.x500.style.IETFUtils;
import java.security.cert.X509Certificate;
import java.net.InetSocketAddress;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Every request names its user before anything else runs: a client certificate, a bearer token
 * (401 Unauthorized when it is not a valid one), or no credentials at all (the anonymous user). Then {@link Authorization}
 * decides (403 Forbidden, in upstream's words). The user is the request's principal from then on.
 * Tokens are checked in memory ({@link Tokens}), so this never blocks the event loop.
 */
@Filter(Filter.MATCH_ALL_PATTERN)
public class AuthenticationFilter implements HttpServerFilter {
  private final Tokens tokens;
  private final OidcTokens oidc;
  private final Authorization authorization;

  public AuthenticationFilter(Tokens tokens, OidcTokens oidc, Authorization authorization) {
    this.tokens = tokens;
    this.oidc = oidc;
    this.authorization = authorization;
  }

  @Override
  public int getOrder() {
    return ServerFilterPhase.SECURITY.order();
  }

  @Override
  public Publisher<MutableHttpResponse<?>> doFilter(HttpRequest<?> request, ServerFilterChain chain) {
    return authenticate(request).flatMap(user -> Mono.from(authorize(request, user, chain)));
  }

  private Publisher<MutableHttpResponse<?>> authorize(HttpRequest<?> request, Optional<User> user, ServerFilterChain chain) {
    if (user.isEmpty()) {
      return Mono.just(KubeCodec.respond(request, 401, new StatusBuilder().withApiVersion("v1").withKind("Status")
          .withNewMetadata().endMetadata().withStatus("Failure").withCode(401).withReason("Unauthorized")
          .withMessage("Unauthorized").build()));
    }
    request.setAttribute(User.ATTRIBUTE, user.get());
    RequestAttributes attributes = RequestAttributes.of(request);
    if (webSocketUpgradeThatCreates(request, attributes) && authorization.allows(user.get(), attributes)) {
      // upstream's AuthorizePodWebsocketUpgradeCreatePermission (on by default since 1.31): a GET that
      // upgrades to exec in a pod needs create too, as the POST does
      attributes = attributes.withVerb("create");
    }
    boolean allowed = authorization.allows(user.get(), attributes) || codecDecodeFromThisMachine(request);
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
   * The user of the request's credentials, in upstream's order: a client certificate the TLS
   * handshake verified against the client CA (CN the name, O the groups), else a bearer token (one
   * of Ordinal's, or an OIDC ID token, checked off the event loop as it may fetch the issuer's
   * keys); the anonymous user without credentials (or with a scheme other than Bearer, as
   * upstream); empty for a bearer token that is not valid.
   */
  private Mono<Optional<User>> authenticate(HttpRequest<?> request) {
    Optional<User> certified = request.getCertificate()
        .filter(X509Certificate.class::isInstance)
        .flatMap(certificate -> userOf((X509Certificate) certificate));
    if (certified.isPresent()) {
      return Mono.just(certified);
    }
    String header = request.getHeaders().get(HttpHeaders.AUTHORIZATION);
    if (header == null) {
      return Mono.just(Optional.of(User.ANONYMOUS));
    }
    String[] fields = header.trim().split("\\s+");
    if (fields.length < 2 || !fields[0].toLowerCase(Locale.ROOT).equals("bearer")) {
      return Mono.just(Optional.of(User.ANONYMOUS));
    }
    String token = fields[1];
    if (oidc.looksLikeJwt(token)) {
      return Mono.fromCallable(() -> oidc.authenticate(token)).subscribeOn(Schedulers.boundedElastic());
    }
    return Mono.just(tokens.authenticate(token, Instant.now()));
  }

  /** The user a verified client certificate names: CN the name, each O a group (upstream's CommonNameUserConversion). */
  private static Optional<User> userOf(X509Certificate certificate) {
    X500Name subject = X500Name.getInstance(certificate.getSubjectX500Principal().getEncoded());
    RDN[] names = subject.getRDNs(BCStyle.CN);
    if (names.length == 0) {
      return Optional.empty();
    }
    String name = IETFUtils.valueToString(names[0].getFirst().getValue());
    if (name.isEmpty()) {
      return Optional.empty();
    }
    List<String> groups = java.util.Arrays.stream(subject.getRDNs(BCStyle.O))
        .map(rdn -> IETFUtils.valueToString(rdn.getFirst().getValue())).toList();
    return Optional.of(User.authenticated(name, "", groups));
  }

  /**
   * The Temporal Web UI decodes workflow payloads through {@code /codec/decode} from the browser,
   * which sends no credentials of ours (the dev server's UI has no login and no way to be told to):
   * that one path (and its CORS preflight) is allowed from this machine without them. Decoding returns
   * only what the caller sent, decompressed, and is bounded ({@code PayloadCodecApi}); encoding, and
   * any caller from elsewhere, goes through authorization like every other request.
   */
  private static boolean codecDecodeFromThisMachine(HttpRequest<?> request) {
    InetSocketAddress remote = request.getRemoteAddress();
    return request.getPath().equals("/codec/decode") && Set.of("POST", "OPTIONS").contains(request.getMethodName())
        && remote != null && remote.getAddress() != null && remote.getAddress().isLoopbackAddress();
  }
}
