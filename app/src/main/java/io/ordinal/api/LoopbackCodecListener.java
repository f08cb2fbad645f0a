package io.ordinal.api;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.ordinal.apimachinery.ApiException;
import io.ordinal.apimachinery.GoFields;
import io.ordinal.store.KubeJson;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Executors;

/**
 * The embedded Temporal Web UI's codec: plain HTTP on a loopback port of its own, so that a browser
 * on a fresh machine reaches it with no certificate to trust (the API's {@code /codec} is HTTPS with
 * the service's own CA, which no browser trusts, and the UI then shows "Codec Server could not
 * connect"). Pods have network namespaces of their own, so this machine's loopback is out of their
 * reach.
 *
 * <p>It serves {@code POST /codec/decode} and its CORS preflight, nothing else (404): not a route of
 * the API, so that no filter or controller of the API is ever one check away from plain HTTP.
 * Decoding returns only what the caller sent, decompressed, bounded as the API's is (one
 * {@link PayloadTranscoder} for both). Browsers may call it from the Web UI's own origins only, and
 * by this machine's names only (a DNS-rebound name is refused), so no other site a user visits can
 * make their browser use it.
 */
public final class LoopbackCodecListener {
  static final String DECODE = "/codec/decode";
  /** As the API's {@code micronaut.server.max-request-size}: a body beyond is 413 before it is read. */
  static final int MAX_REQUEST_BYTES = 3 << 20;
  private final PayloadTranscoder transcoder;
  private final Set<String> origins;
  private final Set<String> hosts;

  private LoopbackCodecListener(PayloadTranscoder transcoder, int uiPort, int port) {
    this.transcoder = transcoder;
    this.origins = Set.of("http://localhost:" + uiPort, "http://127.0.0.1:" + uiPort);
    this.hosts = Set.of("localhost:" + port, "127.0.0.1:" + port);
  }

  /**
   * Starts answering on {@code server} (bound already, on loopback, so that the Web UI could be
   * given its port before the service started) for the Web UI at {@code uiPort}.
   */
  public static void serve(HttpServer server, PayloadTranscoder transcoder, int uiPort) {
    LoopbackCodecListener listener = new LoopbackCodecListener(transcoder, uiPort, server.getAddress().getPort());
    server.createContext("/", listener::handle);
    // A thread per request: one waiting for the codec (up to 10 s) holds no other request up, and
    // no body either (PayloadTranscoder reads it once it may work on it).
    server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
    server.start();
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      try {
        answer(exchange);
      } catch (ApiException e) {
        respond(exchange, e);
      }
    }
  }

  private void answer(HttpExchange exchange) throws IOException {
    String origin = exchange.getRequestHeaders().getFirst("Origin");
    String host = exchange.getRequestHeaders().getFirst("Host");
    String method = exchange.getRequestMethod();
    if (!exchange.getRequestURI().getRawPath().equals(DECODE) || !Set.of("POST", "OPTIONS").contains(method)) {
      throw ApiException.of(404, "NotFound", "this port serves the Temporal Web UI's codec only: POST " + DECODE);
    }
    if (host == null || !hosts.contains(host.toLowerCase(Locale.ROOT)) || origin != null && !origins.contains(origin)) {
      throw ApiException.of(403, "Forbidden", "the codec answers the Web UI's origins only, at this machine's loopback names");
    }
    if (origin != null) {
      exchange.getResponseHeaders().set("Access-Control-Allow-Origin", origin);
      exchange.getResponseHeaders().set("Vary", "Origin");
    }
    if (method.equals("OPTIONS")) {
      var headers = exchange.getResponseHeaders();
      headers.set("Access-Control-Allow-Methods", "POST, OPTIONS");
      headers.set("Access-Control-Allow-Headers", PayloadTranscoder.ALLOWED_HEADERS);
      headers.set("Access-Control-Max-Age", "600");
      if ("true".equals(exchange.getRequestHeaders().getFirst("Access-Control-Request-Private-Network"))) {
        // Chromium's Private Network Access preflight, should it ever ask between two loopback origins.
        headers.set("Access-Control-Allow-Private-Network", "true");
      }
      exchange.sendResponseHeaders(204, -1);
      return;
    }
    String type = exchange.getRequestHeaders().getFirst("Content-Type");
    if (type == null || !type.toLowerCase(Locale.ROOT).startsWith("application/json")) {
      // As the API's route, which consumes JSON only; a browser cannot send it cross-site without a preflight.
      throw ApiException.of(415, "UnsupportedMediaType", "the codec takes application/json");
    }
    send(exchange, 200, transcoder.decode(() -> body(exchange)));
  }

  private static String body(HttpExchange exchange) throws IOException {
    String length = exchange.getRequestHeaders().getFirst("Content-Length");
    if (length != null && length.chars().allMatch(Character::isDigit) && length.length() < 18
        && Long.parseLong(length) > MAX_REQUEST_BYTES) {
      throw tooLarge();
    }
    try (InputStream in = exchange.getRequestBody()) {
      byte[] bytes = in.readNBytes(MAX_REQUEST_BYTES + 1);
      if (bytes.length > MAX_REQUEST_BYTES) {
        throw tooLarge();
      }
      return new String(bytes, StandardCharsets.UTF_8);
    }
  }

  private static ApiException tooLarge() {
    return ApiException.of(413, "RequestEntityTooLarge", "the request body exceeds " + MAX_REQUEST_BYTES + " bytes");
  }

  private static void respond(HttpExchange exchange, ApiException e) throws IOException {
    send(exchange, e.code(), KubeJson.JSON.writeValueAsString(GoFields.tree(e.status())));
  }

  private static void send(HttpExchange exchange, int code, String json) throws IOException {
    byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    exchange.sendResponseHeaders(code, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }
}
