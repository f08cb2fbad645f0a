package io.ordinal.e2e;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ordinal.runtime.ServingTls;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Ordinal against an external Temporal over mutual TLS, configured with the temporal CLI's
 * variables. The dev server has no TLS of its own, so a TLS front (HTTP/2 by ALPN, client
 * certificate required, as Temporal Cloud's endpoint is) stands in front of it and passes the bytes on.
 */
@E2eTest
class TemporalTlsIT {
  private static final String PASSWORD = "test";

  private static Process temporal;
  private static SSLServerSocket front;
  private static final Set<String> clientSubjects = ConcurrentHashMap.newKeySet();
  private static OrdinalService service;
  private static Api api;

  @BeforeAll
  static void startTemporalBehindMutualTls() throws Exception {
    Path pki = Files.createTempDirectory("temporal-pki");
    int temporalPort = OrdinalService.freePort();
    temporal = new ProcessBuilder(System.getenv().getOrDefault("ORDINAL_TEMPORAL_CLI", "temporal"),
        "server", "start-dev", "--headless", "--ip", "127.0.0.1", "--port", Integer.toString(temporalPort),
        "--ui-port", Integer.toString(OrdinalService.freePort()), "--http-port", Integer.toString(OrdinalService.freePort()),
        "--metrics-port", Integer.toString(OrdinalService.freePort()), "--log-level", "error")
        .redirectErrorStream(true).redirectOutput(pki.resolve("temporal.log").toFile()).start();

    KeyStore serving = ServingTls.ensure(pki, "127.0.0.1", null, null, PASSWORD).keyStore();
    ServingTls.ClientCertificate worker = ServingTls.issueClientCertificate(pki, "ordinal-worker", List.of(), Duration.ofDays(1));
    Files.writeString(pki.resolve("worker.crt"), worker.certificatePem());
    Files.writeString(pki.resolve("worker.key"), worker.keyPem());
    front = listen(serving, ServingTls.trustStore(pki.resolve("tls/client-ca.crt")));
    Thread.ofVirtual().start(() -> relay(temporalPort));

    service = new OrdinalService("temporal-tls", Map.of(
        "TEMPORAL_ADDRESS", "127.0.0.1:" + front.getLocalPort(),
        "TEMPORAL_TLS_CA", pki.resolve("tls/ca.crt").toString(),
        "TEMPORAL_TLS_CERT", pki.resolve("worker.crt").toString(),
        "TEMPORAL_TLS_KEY", pki.resolve("worker.key").toString(),
        "TEMPORAL_TLS_SERVER_NAME", "localhost"));
    service.start();
    api = service.api();
  }

  @AfterAll
  static void stop() throws IOException {
    if (service != null) {
      service.close();
    }
    if (front != null) {
      front.close();
    }
    if (temporal != null) {
      temporal.toHandle().descendants().forEach(ProcessHandle::destroy);
      temporal.destroy();
    }
  }

  @Test
  void scalingRunsItsWorkflowsOnATemporalThatWantsMutualTls(@Namespace String ns) {
    api.createSet(ns, Manifests.web("web", 2, 0, Map.of()));
    api.awaitConverged(ns, "web", 2, Duration.ofSeconds(90));
    assertFalse(clientSubjects.isEmpty(), "the service connected through the TLS front");
    assertTrue(clientSubjects.stream().allMatch(subject -> subject.contains("CN=ordinal-worker")), clientSubjects.toString());
  }

  private static SSLServerSocket listen(KeyStore keys, KeyStore clientCas) throws Exception {
    KeyManagerFactory keyManagers = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    keyManagers.init(keys, PASSWORD.toCharArray());
    TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    trust.init(clientCas);
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(keyManagers.getKeyManagers(), trust.getTrustManagers(), null);
    SSLServerSocket socket = (SSLServerSocket) context.getServerSocketFactory().createServerSocket();
    SSLParameters parameters = socket.getSSLParameters();
    parameters.setNeedClientAuth(true);
    parameters.setApplicationProtocols(new String[] {"h2"}); // gRPC insists on HTTP/2 by ALPN
    socket.setSSLParameters(parameters);
    socket.bind(new InetSocketAddress("127.0.0.1", 0));
    return socket;
  }

  /** Each TLS connection, once its client certificate checked out, piped to the dev server's plain port. */
  private static void relay(int temporalPort) {
    while (!front.isClosed()) {
      try {
        SSLSocket client = (SSLSocket) front.accept();
        Thread.ofVirtual().start(() -> {
          try (client; Socket upstream = new Socket("127.0.0.1", temporalPort)) {
            client.startHandshake();
            clientSubjects.add(((X509Certificate) client.getSession().getPeerCertificates()[0])
                .getSubjectX500Principal().getName());
            Thread back = Thread.ofVirtual().start(() -> pipe(upstream, client));
            pipe(client, upstream);
            back.join();
          } catch (IOException | InterruptedException e) {
            // a connection that fails its handshake or ends: the next one is served
          }
        });
      } catch (IOException e) {
        return; // closed
      }
    }
  }

  private static void pipe(Socket from, Socket to) {
    try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
      in.transferTo(out);
    } catch (IOException e) {
      // either side closed
    }
  }
}
