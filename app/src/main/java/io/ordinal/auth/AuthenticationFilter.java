package io.ordinal.auth;

import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.micronaut.http.HttpHeaders;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.MutableHttpResponse;
import io.micronaut.http.annotation.Filter;
import io.micronaut.http.filter.HttpServerFilter;
import io.micronaut.http.filter.ServerFilterChain;
import io.ordinal.apimachinery.KubeCodec;
import io.ordinal.request.RequestFilters;
import io.ordinal.request.User;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.bouncycastle.asn1.x500.RDN;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x500.style.BCStyle;
import org.bouncycastle.asn1.x500.style.IETFUtils;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Every request names its user before anything else runs: a client certificate, a bearer token
 * (401 Unauthorized when it is not a valid one), or no credentials at all (the anonymous user). The
 * user is the request's from then on ({@link User#of}); {@link AuthorizationFilter} decides next.
 * Tokens are checked in memory ({@link Tokens}), so this never blocks the event loop.
 */
@Filter(Filter.MATCH_ALL_PATTERN)
public class AuthenticationFilter implements HttpServerFilter {
  private final Tokens tokens;
  private final OidcTokens oidc;

  public AuthenticationFilter(Tokens tokens, OidcTokens oidc) {
    this.tokens = tokens;
    this.oidc = oidc;
  }

  @Override
  public int getOrder() {
    return RequestFilters.AUTHENTICATION;
  }

  @Override
  public Publisher<MutableHttpResponse<?>> doFilter(HttpRequest<?> request, ServerFilterChain chain) {
    return authenticate(request).flatMap(user -> {
      if (user.isEmpty()) {
        return Mono.just(KubeCodec.respond(request, 401, new StatusBuilder().withApiVersion("v1").withKind("Status")
            .withNewMetadata().endMetadata().withStatus("Failure").withCode(401).withReason("Unauthorized")
            .withMessage("Unauthorized").build()));
      }
      request.setAttribute(User.ATTRIBUTE, user.get());
      return Mono.from(chain.proceed(request));
    });
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
}
