package io.ordinal.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.protobuf.util.JsonFormat;
import io.ordinal.store.KubeJson;
import io.ordinal.workflow.LargePayloadCodec;
import io.temporal.api.common.v1.Payload;
import io.temporal.api.common.v1.Payloads;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.client.WorkflowExecutionMetadata;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.Socket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The embedded Web UI's codec, as a browser on a fresh machine meets it: plain HTTP on a loopback
 * port of its own (default: a free one), so headless Chromium that trusts no certificate of ours
 * shows a large set's compressed observations decoded and no codec error; and that port serves the
 * decode route only, bounded as the API's.
 */
class WebUiCodecIT {
  static final Duration TIMEOUT = Duration.ofSeconds(120);
  /** A set this large has observations of 32 KiB or more, which are stored compressed. */
  static final int REPLICAS = 300;
  static int uiPort;
  static OrdinalService service;
  static HttpClient http = HttpClient.newHttpClient();

  @BeforeAll
  static void start() throws Exception {
    uiPort = OrdinalService.freePort();
    service = new OrdinalService("web-ui-codec", Map.of("ORDINAL_TEMPORAL_HEADLESS", "false",
        "ORDINAL_TEMPORAL_UI_PORT", Integer.toString(uiPort)));
    service.start();
  }

  @AfterAll
  static void stop() {
    if (service != null) {
      service.close();
    }
  }

  @Test
  void anOperationPageShowsDecodedPayloadsAndNoCodecError() throws Exception {
    ObjectNode set = Manifests.web("big", REPLICAS, 0, Map.of());
    ((ObjectNode) set.get("spec")).put("podManagementPolicy", "Parallel");
    service.api().createSet("default", set);
    service.api().awaitConverged("default", "big", REPLICAS, TIMEOUT);
    WorkflowExecutionMetadata scale = service.withTemporal(client ->
        client.listExecutions("OrdinalStatefulSet = 'big' AND OrdinalOperation = 'scale'").toList()).stream()
        .max(Comparator.comparing(WorkflowExecutionMetadata::getStartTime)).orElseThrow();
    String id = scale.getExecution().getWorkflowId();
    String run = scale.getExecution().getRunId();
    // The last observation the scale recorded compressed (a complete reading: every pod).
    List<HistoryEvent> compressed = service.withTemporal(client -> client.fetchHistory(id, run).getEvents()).stream()
        .filter(event -> event.hasMarkerRecordedEventAttributes() && event.toString().contains("binary/zlib")).toList();
    assertFalse(compressed.isEmpty(), "the scale's history holds a compressed observation");
    long event = compressed.getLast().getEventId();
    // Something only that payload says, near its end: the version of the set it read. (Not the set's
    // status: what the observation holds is the status stored before it, which may still be the first.)
    String observed = "\"version\": " + observedVersion(compressed.getLast());

    String page = "http://localhost:" + uiPort + "/namespaces/default/workflows/" + URLEncoder.encode(id, StandardCharsets.UTF_8)
        + "/" + run + "/history/events/" + event;
    // Decoded, the observation ends with the set's status; undecoded, the UI would show its zlib bytes in base64.
    Files.createDirectories(WebUiScreenshotsIT.SCREENSHOTS);
    String html = WebUiScreenshotsIT.render(page, WebUiScreenshotsIT.SCREENSHOTS.resolve("codec-decoded.png").toString(),
        observed, "--code-end");
    assertTrue(html.contains("data-testid=\"data-encoder-status-success\""), "the UI says its codec converted the payloads");
    assertFalse(html.contains("data-encoder-status-error"), "the UI shows a codec error");
    assertFalse(html.contains("Codec Server could not connect"), "the UI shows a codec error");
  }

  /** The set version an observation (a local activity's marker whose result is compressed) read, decoded here. */
  static long observedVersion(HistoryEvent marker) throws IOException {
    for (Payloads details : marker.getMarkerRecordedEventAttributes().getDetailsMap().values()) {
      for (Payload payload : LargePayloadCodec.decode(details.getPayloadsList(), 64 << 20)) {
        JsonNode result = KubeJson.JSON.readTree(payload.getData().toStringUtf8());
        if (result.has("version") && result.has("complete")) {
          return result.path("version").asLong();
        }
      }
    }
    throw new AssertionError("no observation in " + marker);
  }

  @Test
  void theCodecPortServesOnlyTheDecodeRouteOnLoopbackWithinItsBounds() throws Exception {
    String codec = codecEndpoint();
    Matcher url = Pattern.compile("http://127\\.0\\.0\\.1:(\\d+)/codec").matcher(codec);
    assertTrue(url.matches(), "the Web UI's codec is plain HTTP on loopback: " + codec);
    int port = Integer.parseInt(url.group(1));

    // Bound to loopback only, by the service's JVM (IPv4 loopback, which Java's dual-stack socket shows mapped).
    Command.Result ss = Command.run(Duration.ofSeconds(30), "ss", "-ltnpH", "sport = :" + port);
    assertEquals(0, ss.code(), ss.output());
    List<String> lines = ss.out().lines().filter(line -> !line.isBlank()).toList();
    assertEquals(1, lines.size(), ss.out());
    assertTrue(lines.getFirst().matches(".*\\s(\\[::ffff:)?127\\.0\\.0\\.1]?:" + port + "\\s.*"), ss.out());
    assertTrue(lines.getFirst().contains("pid=" + service.handle().pid() + ","), "the service's JVM listens: " + ss.out());

    String origin = "http://localhost:" + uiPort;
    // The Web UI's preflight and request (its data encoder sends Content-Type and X-Namespace).
    HttpResponse<String> preflight = send("OPTIONS", codec + "/decode", null, "Origin", origin,
        "Access-Control-Request-Method", "POST", "Access-Control-Request-Headers", "content-type,x-namespace");
    assertEquals(204, preflight.statusCode(), preflight.body());
    assertEquals(origin, preflight.headers().firstValue("Access-Control-Allow-Origin").orElse(null));
    assertTrue(preflight.headers().firstValue("Access-Control-Allow-Headers").orElse("").contains("X-Namespace"));
    String small = JsonFormat.printer().print(Payloads.newBuilder().addPayloads(PayloadCodecIT.zlibBomb(1 << 20)).build());
    HttpResponse<String> decoded = send("POST", codec + "/decode?preserveStorageRefs=true", small, "Origin", origin,
        "X-Namespace", "default", "Content-Type", "application/json");
    assertEquals(200, decoded.statusCode(), decoded.body());
    assertEquals(origin, decoded.headers().firstValue("Access-Control-Allow-Origin").orElse(null));
    Payloads.Builder payloads = Payloads.newBuilder();
    JsonFormat.parser().merge(decoded.body(), payloads);
    assertEquals(1 << 20, payloads.getPayloads(0).getData().size());

    // Beyond the 4 MiB decoded cap, and a body beyond the API's 3 MiB: 413.
    String bomb = JsonFormat.printer().print(Payloads.newBuilder().addPayloads(PayloadCodecIT.zlibBomb(64 << 20)).build());
    HttpResponse<String> refused = send("POST", codec + "/decode", bomb, "Content-Type", "application/json");
    assertEquals(413, refused.statusCode(), refused.body());
    assertTrue(refused.body().contains("the decoded payloads would exceed 4 MiB"), refused.body());
    // (refused by its length, before a byte of it is read: none is sent)
    assertEquals("HTTP/1.1 413 Request Entity Too Large", statusLine(port, "POST /codec/decode HTTP/1.1\r\nHost: 127.0.0.1:" + port
        + "\r\nContent-Type: application/json\r\nContent-Length: " + ((3 << 20) + 1) + "\r\n\r\n"));

    // Nothing else: not encoding, not the API, not another method.
    for (String[] other : List.of(new String[] {"POST", "/codec/encode"}, new String[] {"GET", "/codec/decode"},
        new String[] {"GET", "/"}, new String[] {"GET", "/api/v1/namespaces"}, new String[] {"GET", "/openapi/v3"},
        new String[] {"GET", "/health"}, new String[] {"POST", "/codec/decode/"}, new String[] {"PUT", "/codec/decode"})) {
      HttpResponse<String> answer = send(other[0], "http://127.0.0.1:" + port + other[1],
          other[0].equals("GET") ? null : "{}", "Content-Type", "application/json");
      assertEquals(404, answer.statusCode(), other[0] + " " + other[1] + ": " + answer.body());
    }
    // Another site in the user's browser, directly or through a name rebound to 127.0.0.1: refused.
    HttpResponse<String> foreign = send("POST", codec + "/decode", small, "Origin", "https://example.com",
        "Content-Type", "application/json");
    assertEquals(403, foreign.statusCode(), foreign.body());
    assertTrue(foreign.headers().firstValue("Access-Control-Allow-Origin").isEmpty());
    assertEquals("HTTP/1.1 403 Forbidden", statusLine(port, "POST /codec/decode HTTP/1.1\r\nHost: rebound.example:" + port
        + "\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"));
    // TLS is the API's: this port speaks plain HTTP only, and the API's own codec still answers.
    assertEquals(200, service.api().post("/codec/decode", "application/json", small).code());
  }

  /** The codec endpoint the dev server's Web UI was given (its command line). */
  private static String codecEndpoint() {
    List<String> arguments = service.handle().descendants()
        .map(process -> process.info().arguments().map(List::of).orElse(List.of()))
        .filter(args -> args.contains("--ui-codec-endpoint")).findFirst()
        .orElseThrow(() -> new AssertionError("no dev server with --ui-codec-endpoint among the service's processes"));
    return arguments.get(arguments.indexOf("--ui-codec-endpoint") + 1);
  }

  private static HttpResponse<String> send(String method, String uri, String body, String... headers) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(uri)).timeout(Duration.ofSeconds(30))
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    if (headers.length > 0) {
      request.headers(headers);
    }
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  /** The status line of the answer to a request as written (a Host or Content-Length Java's client will not send). */
  private static String statusLine(int port, String request) throws Exception {
    try (Socket socket = new Socket("127.0.0.1", port)) {
      socket.setSoTimeout(30_000);
      socket.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
      socket.getOutputStream().flush();
      return new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.ISO_8859_1)).readLine();
    }
  }
}
