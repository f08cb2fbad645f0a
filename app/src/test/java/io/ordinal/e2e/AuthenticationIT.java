package io.ordinal.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Who may reach the API: bearer tokens, the anonymous user, the admin token, loopback only. */
@E2eTest
class AuthenticationIT {
  static OrdinalService service;
  static Api api;

  @Test
  void withoutATokenOnlyTheVersionAndHealthAreServedAndAnythingElseIsForbiddenInUpstreamsWords(@Namespace String ns) {
    Api anonymous = api.as(null);
    assertEquals(200, anonymous.get("/version").code());
    Api.Reply health = anonymous.get("/health");
    assertEquals(200, health.code());
    assertEquals("UP", health.json().path("status").asText());
    assertTrue(health.json().path("details").isMissingNode(), "details are for authenticated users: " + health.body());
    assertFalse(api.get("/health").json().path("details").isMissingNode(), "an authenticated user sees the details");
    assertEquals("ok", anonymous.get("/readyz").body());
    assertEquals("ok", anonymous.get("/livez").body());
    String verbose = anonymous.get("/readyz?verbose").body();
    assertTrue(verbose.contains("[+]jdbc ok") && verbose.endsWith("readyz check passed\n"), verbose);

    Api.Reply list = anonymous.get(Paths.sets(ns));
    assertEquals(403, list.code(), list.body());
    assertEquals("Forbidden", list.json().path("reason").asText());
    assertEquals("statefulsets.apps is forbidden: User \"system:anonymous\" cannot list resource \"statefulsets\""
        + " in API group \"apps\" in the namespace \"" + ns + "\"", list.json().path("message").asText());
    Api.Reply scale = anonymous.patch(Paths.set(ns, "web") + "/scale", "application/merge-patch+json", "{}");
    assertEquals("statefulsets.apps \"web\" is forbidden: User \"system:anonymous\" cannot patch resource"
        + " \"statefulsets/scale\" in API group \"apps\" in the namespace \"" + ns + "\"", scale.json().path("message").asText());
    assertEquals("forbidden: User \"system:anonymous\" cannot get path \"/apis\"",
        anonymous.get("/apis").json().path("message").asText());
  }

  @Test
  void aTokenThatIsNotValidIsUnauthorized(@Namespace String ns) {
    for (String token : new String[] {"nonsense", "abcdefgh.0123456789abcdefghijklmnopqrstuv", api.token() + "x"}) {
      Api.Reply reply = api.as(token).get(Paths.sets(ns));
      assertEquals(401, reply.code(), token);
      assertEquals("Unauthorized", reply.json().path("reason").asText());
    }
  }

  @Test
  void tokensAreIssuedAndRevokedWithoutARestartAndOnlyByClusterAdmins(@Namespace String ns) throws IOException {
    Api.Reply issued = api.post("/apis/auth.ordinal.io/v1/tokens", "application/json",
        "{\"spec\":{\"user\":\"alice\",\"groups\":[\"dev\"],\"description\":\"for the test\",\"expirationSeconds\":3600}}");
    assertEquals(201, issued.code(), issued.body());
    String token = issued.json().at("/status/token").asText();
    String id = issued.json().at("/metadata/name").asText();
    Api alice = api.as(token);
    // Without a binding alice may do what every authenticated user may (RBAC's system:discovery), no more.
    assertEquals(200, alice.get("/apis").code(), "a token works at once");
    assertEquals(403, alice.get(Paths.sets(ns)).code());
    assertTrue(issued.json().at("/spec/expirationTimestamp").isTextual());

    JsonNode listed = api.get("/apis/auth.ordinal.io/v1/tokens").json();
    assertTrue(listed.toString().contains("\"alice\""));
    assertFalse(listed.toString().contains(token.substring(9)), "a list never shows a secret");
    Api.Reply notAdmin = alice.post("/apis/auth.ordinal.io/v1/tokens", "application/json", "{\"spec\":{\"user\":\"mallory\"}}");
    assertEquals(403, notAdmin.code(), notAdmin.body());
    assertEquals(422, api.post("/apis/auth.ordinal.io/v1/tokens", "application/json", "{\"spec\":{}}").code());

    assertEquals(200, api.delete("/apis/auth.ordinal.io/v1/tokens/" + id).code());
    assertEquals(401, alice.get("/apis").code(), "a revoked token stops working at once");
    assertFalse(Files.readString(service.dataDir.resolve("service.log")).contains(token.substring(9)),
        "no token secret is ever logged");
  }

  @Test
  void kubectlWithABadTokenIsToldToLogIn(@Namespace String ns) {
    // (Without any credentials kubectl asks for a user name on a TLS server: the API test above covers it.)
    Kubectl.Result bad = new Kubectl(api.base(), api.caCertificate(), "nope", ns).run("get", "sts");
    assertTrue(bad.err().contains("You must be logged in to the server"), bad.err());
    assertEquals(0, new Kubectl(api.base(), api.caCertificate(), api.token(), ns).run("get", "sts").code());
  }

  @Test
  void theAdminTokenIsReadableByItsOwnerOnlyAndNeverLogged() throws IOException {
    Path file = service.dataDir.resolve("auth").resolve("admin.token");
    assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
    assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file.getParent())));
    String secret = Files.readString(file).trim().substring(9);
    assertFalse(Files.readString(service.dataDir.resolve("service.log")).contains(secret));
  }

  @Test
  void theApiSpeaksOnlyTlsAndOnlyOnLoopbackByDefault() throws Exception {
    Optional<InetAddress> external = NetworkInterface.networkInterfaces().filter(i -> !isLoopback(i))
        .flatMap(NetworkInterface::inetAddresses).filter(a -> a instanceof Inet4Address && !a.isLoopbackAddress())
        .findFirst();
    if (external.isPresent()) {
      try (Socket socket = new Socket()) {
        assertThrows(IOException.class, () -> socket.connect(new InetSocketAddress(external.get(), service.httpPort), 2000),
            "the API answered on " + external.get());
      }
    }
    HttpRequest plain = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + service.httpPort + "/version"))
        .timeout(Duration.ofSeconds(5)).build();
    assertThrows(IOException.class, () -> HttpClient.newHttpClient().send(plain, HttpResponse.BodyHandlers.ofString()),
        "plain HTTP is not served");
    // Trusting the system's CAs only, the certificate is refused: it is signed by the service's own CA.
    HttpRequest secure = HttpRequest.newBuilder(URI.create(service.url() + "/version")).timeout(Duration.ofSeconds(5)).build();
    assertThrows(IOException.class, () -> HttpClient.newHttpClient().send(secure, HttpResponse.BodyHandlers.ofString()));
    assertEquals(200, api.as(null).get("/version").code(), "with the service's CA it is trusted");
  }

  private static boolean isLoopback(NetworkInterface networkInterface) {
    try {
      return networkInterface.isLoopback();
    } catch (IOException e) {
      return true;
    }
  }
}
