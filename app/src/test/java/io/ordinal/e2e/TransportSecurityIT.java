package io.ordinal.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import io.ordinal.runtime.ServingTls;
import java.io.IOException;
import java.math.BigInteger;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.Map;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedKeyManager;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Who a connection is, beyond Ordinal's own tokens: client certificates (CN the user, O its groups),
 * OIDC ID tokens from an identity provider (a real HTTPS issuer with a JWKS, in this test), and a
 * serving certificate that can be replaced while the service runs.
 */
@E2eTest
class TransportSecurityIT {
  private static final String PASSWORD = "test";
  private static final String CLIENT_ID = "ordinal";

  static OrdinalService service;
  static Api api;

  /** A CA of the test's own (signs the issuer's and the second service's serving certificates). */
  private static Path pki;
  private static HttpsServer issuer;
  private static String issuerUrl;
  private static RSAKey signingKey;
  private static OrdinalService external;
  private static Api externalApi;

  @BeforeAll
  static void startIssuerAndService() throws Exception {
    pki = Files.createTempDirectory("ordinal-pki");
    ServingTls.Serving issuerTls = ServingTls.ensure(pki, "127.0.0.1", null, null, PASSWORD);
    signingKey = new RSAKeyGenerator(2048).keyID("test-key").generate();
    issuer = HttpsServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    issuer.setHttpsConfigurator(new HttpsConfigurator(serverContext(issuerTls.keyStore())));
    issuerUrl = "https://127.0.0.1:" + issuer.getAddress().getPort();
    String discovery = "{\"issuer\":\"" + issuerUrl + "\",\"jwks_uri\":\"" + issuerUrl + "/keys\"}";
    String keys = new JWKSet(signingKey.toPublicJWK()).toString();
    issuer.createContext("/.well-known/openid-configuration", exchange -> respond(exchange, discovery));
    issuer.createContext("/keys", exchange -> respond(exchange, keys));
    issuer.start();

    external = new OrdinalService("external-identity", Map.of(
        "ORDINAL_TLS_CERT_FILE", pki.resolve("tls/serving.crt").toString(),
        "ORDINAL_TLS_KEY_FILE", pki.resolve("tls/serving.key").toString(),
        "ORDINAL_TLS_CHECK_INTERVAL", "1s",
        "ORDINAL_OIDC_ISSUER_URL", issuerUrl,
        "ORDINAL_OIDC_CLIENT_ID", CLIENT_ID,
        "ORDINAL_OIDC_USERNAME_CLAIM", "email",
        "ORDINAL_OIDC_GROUPS_CLAIM", "groups",
        "ORDINAL_OIDC_GROUPS_PREFIX", "oidc:",
        "ORDINAL_OIDC_CA_FILE", pki.resolve("tls/ca.crt").toString()))
        .trusting(pki.resolve("tls/ca.crt"));
    external.start();
    externalApi = external.api();
  }

  @AfterAll
  static void stopIssuerAndService() {
    if (external != null) {
      external.close();
    }
    if (issuer != null) {
      issuer.stop(0);
    }
  }

  @Test
  void aClientCertificateOfTheClientCaIsItsCommonNameInItsOrganisations() throws Exception {
    Kubectl alice = new Kubectl(launcher("kubeconfig", "--user", "alice", "--group", "dev", "--group", "ops").ok().out());
    Kubectl.Result whoami = alice.run("auth", "whoami", "-o", "json").ok();
    JsonNode user = new com.fasterxml.jackson.databind.ObjectMapper().readTree(whoami.out()).path("status").path("userInfo");
    assertEquals("alice", user.path("username").asText(), whoami.out());
    assertEquals(List.of("dev", "ops", "system:authenticated"), texts(user.path("groups")));
    Kubectl.Result tokens = alice.run("get", "--raw", "/apis/auth.ordinal.io/v1/tokens");
    assertNotEquals(0, tokens.code());
    assertTrue(tokens.err().contains("User \"alice\" cannot list resource \"tokens\""), tokens.err());

    Kubectl root = new Kubectl(launcher("kubeconfig", "--user", "root", "--group", "system:masters").ok().out());
    root.run("get", "--raw", "/apis/auth.ordinal.io/v1/tokens").ok();
  }

  @Test
  void aClientCertificateOfAnotherCaIsRefusedInTheHandshake() throws Exception {
    // Signed by the test's CA, which signs serving certificates and is no client CA of the service.
    KeyStore foreign = ServingTls.ensure(pki, "127.0.0.1", null, null, PASSWORD).keyStore();
    KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    keys.init(foreign, PASSWORD.toCharArray());
    // Offered whatever CAs the server names (a JDK client otherwise keeps quiet about a certificate
    // the server did not ask for, and is merely anonymous).
    X509ExtendedKeyManager own = (X509ExtendedKeyManager) keys.getKeyManagers()[0];
    X509ExtendedKeyManager insistent = new X509ExtendedKeyManager() {
      @Override public String[] getClientAliases(String type, Principal[] issuers) { return new String[] {"ordinal"}; }
      @Override public String chooseClientAlias(String[] types, Principal[] issuers, Socket socket) { return "ordinal"; }
      @Override public String chooseEngineClientAlias(String[] types, Principal[] issuers, SSLEngine engine) { return "ordinal"; }
      @Override public String[] getServerAliases(String type, Principal[] issuers) { return null; }
      @Override public String chooseServerAlias(String type, Principal[] issuers, Socket socket) { return null; }
      @Override public X509Certificate[] getCertificateChain(String alias) { return own.getCertificateChain(alias); }
      @Override public PrivateKey getPrivateKey(String alias) { return own.getPrivateKey(alias); }
    };
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(new KeyManager[] {insistent}, trust(service.caCertificate()), null);
    HttpClient client = HttpClient.newBuilder().sslContext(context).build();
    assertThrows(IOException.class, () -> client.send(HttpRequest.newBuilder(URI.create(api.base() + "/version")).build(),
        HttpResponse.BodyHandlers.ofString()));
  }

  @Test
  void aServingCertificateReplacedOnDiskIsServedToNewConnectionsWithoutARestart() throws Exception {
    BigInteger before = servedSerial();
    Files.delete(pki.resolve("tls/serving.crt"));
    X509Certificate renewed = ServingTls.ensure(pki, "127.0.0.1", null, null, PASSWORD).certificate();
    assertNotEquals(before, renewed.getSerialNumber());
    Instant deadline = Instant.now().plusSeconds(30);
    while (!servedSerial().equals(renewed.getSerialNumber()) && Instant.now().isBefore(deadline)) {
      Thread.sleep(200);
    }
    assertEquals(renewed.getSerialNumber(), servedSerial(), "the replaced certificate is served within 30 s");
    assertEquals(200, externalApi.get("/apis/apps/v1/statefulsets").code());
  }

  @Test
  void anIdTokenOfTheIssuerIsItsEmailClaimWithPrefixedGroups() throws Exception {
    String token = idToken(claims().build(), signingKey);
    JsonNode user = whoAmI(externalApi.as(token));
    assertEquals("alice@example.com", user.path("username").asText(), user.toString());
    assertEquals(List.of("oidc:dev", "oidc:system:masters", "system:authenticated"), texts(user.path("groups")));
    Api.Reply tokens = externalApi.as(token).get("/apis/auth.ordinal.io/v1/tokens");
    assertEquals(403, tokens.code(), "a group of the identity provider is not Ordinal's system:masters: " + tokens.body());
  }

  @Test
  void idTokensThatAreExpiredForAnotherClientFromAnotherIssuerUnverifiedOrSignedByAnotherKeyAreUnauthorized()
      throws Exception {
    RSAKey stranger = new RSAKeyGenerator(2048).keyID("test-key").generate();
    Map<String, String> refused = Map.of(
        "expired", idToken(claims().expirationTime(Date.from(Instant.now().minusSeconds(600))).build(), signingKey),
        "another client", idToken(claims().audience("someone-else").build(), signingKey),
        "another issuer", idToken(claims().issuer("https://accounts.example.com").build(), signingKey),
        "email not verified", idToken(claims().claim("email_verified", false).build(), signingKey),
        "another key", idToken(claims().build(), stranger),
        "no email", idToken(claims().claim("email", null).build(), signingKey));
    refused.forEach((why, token) -> {
      Api.Reply reply = externalApi.as(token).get("/apis/apps/v1/statefulsets");
      assertEquals(401, reply.code(), why + ": " + reply.body());
      assertEquals("Unauthorized", reply.json().path("reason").asText(), why);
    });
  }

  private static JWTClaimsSet.Builder claims() {
    Instant now = Instant.now();
    return new JWTClaimsSet.Builder()
        .issuer(issuerUrl)
        .audience(CLIENT_ID)
        .subject("1234")
        .issueTime(Date.from(now))
        .expirationTime(Date.from(now.plusSeconds(600)))
        .claim("email", "alice@example.com")
        .claim("email_verified", true)
        .claim("groups", List.of("dev", "system:masters"));
  }

  private static String idToken(JWTClaimsSet claims, RSAKey key) throws JOSEException {
    SignedJWT jwt = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.RS256).keyID(key.getKeyID()).build(), claims);
    jwt.sign(new RSASSASigner(key));
    return jwt.serialize();
  }

  /** The user the service sees, from a SelfSubjectReview ({@code kubectl auth whoami}). */
  private static JsonNode whoAmI(Api as) {
    Api.Reply reply = as.post("/apis/authentication.k8s.io/v1/selfsubjectreviews", "application/json",
        "{\"apiVersion\":\"authentication.k8s.io/v1\",\"kind\":\"SelfSubjectReview\"}");
    assertEquals(201, reply.code(), reply.body());
    return reply.json().path("status").path("userInfo");
  }

  /** The serial number of the certificate a new connection to the second service is served. */
  private static BigInteger servedSerial() throws Exception {
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(null, trust(external.caCertificate()), null);
    try (SSLSocket socket = (SSLSocket) context.getSocketFactory().createSocket("127.0.0.1", external.httpPort)) {
      socket.startHandshake();
      return ((X509Certificate) socket.getSession().getPeerCertificates()[0]).getSerialNumber();
    }
  }

  /** Runs the repository's launcher against the shared service's data dir and port. */
  private static Kubectl.Result launcher(String... args) throws Exception {
    Path script = Path.of(System.getProperty("user.dir")).getParent().resolve("ordinal");
    List<String> command = java.util.stream.Stream.concat(java.util.stream.Stream.of(script.toString()),
        java.util.Arrays.stream(args)).toList();
    Command.Result result = Command.run(Duration.ofMinutes(2), Map.of("ORDINAL_DATA_DIR", service.dataDir.toString(),
        "ORDINAL_HTTP_PORT", Integer.toString(service.httpPort)), null, null, command);
    return new Kubectl.Result(result.code(), result.out(), result.err());
  }

  private static javax.net.ssl.TrustManager[] trust(Path ca) throws IOException, GeneralSecurityException {
    TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    factory.init(ServingTls.trustStore(ca));
    return factory.getTrustManagers();
  }

  private static SSLContext serverContext(KeyStore keyStore) throws GeneralSecurityException {
    KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    keys.init(keyStore, PASSWORD.toCharArray());
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(keys.getKeyManagers(), null, null);
    return context;
  }

  private static void respond(com.sun.net.httpserver.HttpExchange exchange, String json) throws IOException {
    byte[] body = json.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    exchange.sendResponseHeaders(200, body.length);
    try (var out = exchange.getResponseBody()) {
      out.write(body);
    }
  }

  private static List<String> texts(JsonNode array) {
    return java.util.stream.StreamSupport.stream(array.spliterator(), false).map(JsonNode::asText).sorted().toList();
  }
}
