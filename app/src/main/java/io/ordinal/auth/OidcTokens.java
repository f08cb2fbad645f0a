package io.ordinal.auth;

import io.ordinal.request.User;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.jwk.source.JWKSource;
import com.nimbusds.jose.jwk.source.JWKSourceBuilder;
import com.nimbusds.jose.proc.BadJOSEException;
import com.nimbusds.jose.proc.JWSVerificationKeySelector;
import com.nimbusds.jose.proc.SecurityContext;
import com.nimbusds.jose.util.DefaultResourceRetriever;
import com.nimbusds.jose.util.Resource;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.proc.DefaultJWTClaimsVerifier;
import com.nimbusds.jwt.proc.DefaultJWTProcessor;
import io.micronaut.context.annotation.Value;
import io.micronaut.core.annotation.Nullable;
import io.ordinal.runtime.ServingTls;
import jakarta.inject.Singleton;
import java.io.IOException;
import java.net.URI;
import java.net.URL;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.text.ParseException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManagerFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * OpenID Connect ID tokens as bearer tokens, as kube-apiserver's {@code --oidc-*} flags take them
 * (settings {@code ORDINAL_OIDC_ISSUER_URL}, {@code _CLIENT_ID}, {@code _USERNAME_CLAIM} (sub),
 * {@code _USERNAME_PREFIX}, {@code _GROUPS_CLAIM}, {@code _GROUPS_PREFIX}, {@code _CA_FILE},
 * {@code _SIGNING_ALGS} (RS256)): the issuer's discovery document names its JWKS; a token is
 * valid if signed by one of its keys with an allowed algorithm, issued by exactly the issuer, for
 * the client id (aud), not expired. Its user is the username claim — prefixed by
 * {@code issuer#} unless the claim is {@code email} or a prefix is set ({@code -}: none), as
 * upstream — and its groups the groups claim (a string or a list of strings).
 *
 * <p>Fetching keys is network I/O: {@link #authenticate} blocks and is called off the event loop.
 */
@Singleton
public class OidcTokens {
  private static final Logger log = LoggerFactory.getLogger(OidcTokens.class);
  private static final int TIMEOUT_MILLIS = 5_000;
  private static final int SIZE_LIMIT = 512 * 1024;

  private final String issuer;
  private final String clientId;
  private final String usernameClaim;
  private final String usernamePrefix;
  private final String groupsClaim;
  private final String groupsPrefix;
  private final Set<JWSAlgorithm> algorithms;
  private final DefaultResourceRetriever retriever;
  private volatile DefaultJWTProcessor<SecurityContext> processor;

  public OidcTokens(@Nullable @Value("${ordinal.oidc.issuer-url:}") String issuer,
      @Nullable @Value("${ordinal.oidc.client-id:}") String clientId,
      @Value("${ordinal.oidc.username-claim:sub}") String usernameClaim,
      @Nullable @Value("${ordinal.oidc.username-prefix:}") String usernamePrefix,
      @Nullable @Value("${ordinal.oidc.groups-claim:}") String groupsClaim,
      @Nullable @Value("${ordinal.oidc.groups-prefix:}") String groupsPrefix,
      @Nullable @Value("${ordinal.oidc.ca-file:}") String caFile,
      @Value("${ordinal.oidc.signing-algs:RS256}") String signingAlgs) throws IOException, GeneralSecurityException {
    this.issuer = blankToNull(issuer);
    this.clientId = blankToNull(clientId);
    if (this.issuer != null) {
      if (!this.issuer.startsWith("https://")) {
        throw new IllegalArgumentException("ORDINAL_OIDC_ISSUER_URL must be an https URL, not " + this.issuer);
      }
      if (this.clientId == null) {
        throw new IllegalArgumentException("ORDINAL_OIDC_CLIENT_ID is required with ORDINAL_OIDC_ISSUER_URL");
      }
    }
    this.usernameClaim = usernameClaim;
    String prefix = blankToNull(usernamePrefix);
    this.usernamePrefix = prefix == null ? (usernameClaim.equals("email") ? "" : this.issuer + "#")
        : prefix.equals("-") ? "" : prefix;
    this.groupsClaim = blankToNull(groupsClaim);
    this.groupsPrefix = groupsPrefix == null ? "" : groupsPrefix;
    this.algorithms = new HashSet<>();
    for (String alg : signingAlgs.split(",")) {
      this.algorithms.add(JWSAlgorithm.parse(alg.trim()));
    }
    this.retriever = new DefaultResourceRetriever(TIMEOUT_MILLIS, TIMEOUT_MILLIS, SIZE_LIMIT, true,
        blankToNull(caFile) == null ? null : socketFactory(Path.of(caFile)));
  }

  public boolean configured() {
    return issuer != null;
  }

  /** A JWT has three dot-separated parts; Ordinal's own tokens have two. */
  public boolean looksLikeJwt(String token) {
    return configured() && token.chars().filter(c -> c == '.').count() == 2;
  }

  /** The token's user, or empty when it is not a valid ID token of the configured issuer. */
  public Optional<User> authenticate(String token) {
    try {
      JWTClaimsSet claims = processor().process(token, null);
      Optional<String> name = username(claims);
      if (name.isEmpty()) {
        return Optional.empty();
      }
      return Optional.of(User.authenticated(usernamePrefix + name.get(), "", groups(claims)));
    } catch (ParseException | BadJOSEException | JOSEException e) {
      // Why a token was refused is for the log (never the token itself): the client gets a bare 401.
      log.debug("OIDC token refused: {}", e.getMessage());
      return Optional.empty();
    } catch (IOException | RuntimeException e) {
      log.warn("OIDC issuer {} not reachable: {}", issuer, e.toString());
      return Optional.empty();
    }
  }

  private Optional<String> username(JWTClaimsSet claims) throws ParseException {
    String value = claims.getStringClaim(usernameClaim);
    if (value == null || value.isEmpty()) {
      return Optional.empty();
    }
    if (usernameClaim.equals("email") && claims.getClaim("email_verified") != null
        && !Boolean.TRUE.equals(claims.getBooleanClaim("email_verified"))) {
      return Optional.empty(); // upstream: an email claim must not be marked unverified
    }
    return Optional.of(value);
  }

  private List<String> groups(JWTClaimsSet claims) throws ParseException {
    if (groupsClaim == null || claims.getClaim(groupsClaim) == null) {
      return List.of();
    }
    Object value = claims.getClaim(groupsClaim);
    List<String> groups = value instanceof String single ? List.of(single) : claims.getStringListClaim(groupsClaim);
    List<String> prefixed = new ArrayList<>();
    for (String group : groups) {
      prefixed.add(groupsPrefix + group);
    }
    return prefixed;
  }

  /** Made on first use, and again after a failure: the issuer may be down when the service starts. */
  private DefaultJWTProcessor<SecurityContext> processor() throws IOException {
    DefaultJWTProcessor<SecurityContext> current = processor;
    if (current != null) {
      return current;
    }
    synchronized (this) {
      if (processor == null) {
        Resource discovery = retriever.retrieveResource(new URL(issuer.replaceAll("/+$", "") + "/.well-known/openid-configuration"));
        JsonNode document = new ObjectMapper().readTree(discovery.getContent());
        if (!issuer.equals(document.path("issuer").asText())) {
          throw new IOException("discovery document names issuer \"" + document.path("issuer").asText()
              + "\", expected \"" + issuer + "\"");
        }
        URL jwks = URI.create(document.path("jwks_uri").asText()).toURL();
        JWKSource<SecurityContext> keys = JWKSourceBuilder.<SecurityContext>create(jwks, retriever)
            .retrying(true).refreshAheadCache(true).build();
        DefaultJWTProcessor<SecurityContext> made = new DefaultJWTProcessor<>();
        made.setJWSKeySelector(new JWSVerificationKeySelector<>(algorithms, keys));
        made.setJWTClaimsSetVerifier(new DefaultJWTClaimsVerifier<>(clientId,
            new JWTClaimsSet.Builder().issuer(issuer).build(), new HashSet<>(Arrays.asList("exp", usernameClaim))));
        processor = made;
      }
      return processor;
    }
  }

  private static SSLSocketFactory socketFactory(Path caFile) throws IOException, GeneralSecurityException {
    TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    factory.init(ServingTls.trustStore(caFile));
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(null, factory.getTrustManagers(), null);
    return context.getSocketFactory();
  }

  private static String blankToNull(String value) {
    return value == null || value.isBlank() ? null : value.trim();
  }
}
