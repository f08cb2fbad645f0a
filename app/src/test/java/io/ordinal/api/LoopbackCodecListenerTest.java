package io.ordinal.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import com.google.protobuf.util.JsonFormat;
import com.sun.net.httpserver.HttpServer;
import io.ordinal.workflow.LargePayloadCodec;
import io.temporal.api.common.v1.Payload;
import io.temporal.api.common.v1.Payloads;
import io.temporal.common.converter.DefaultDataConverter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class LoopbackCodecListenerTest {
  static final int UI_PORT = 8233;
  static final String UI = "http://localhost:" + UI_PORT;
  HttpServer server;
  String base;
  final HttpClient http = HttpClient.newHttpClient();

  @BeforeEach
  void start() throws Exception {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0), 0);
    LoopbackCodecListener.serve(server, new PayloadTranscoder(), UI_PORT);
    base = "http://127.0.0.1:" + server.getAddress().getPort();
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  @Test
  void theWebUiDecodesThroughItAfterItsPreflight() throws Exception {
    HttpResponse<String> preflight = send("OPTIONS", "/codec/decode", null, "Origin", UI,
        "Access-Control-Request-Method", "POST", "Access-Control-Request-Headers", "content-type,x-namespace");
    assertEquals(204, preflight.statusCode());
    assertEquals(UI, preflight.headers().firstValue("Access-Control-Allow-Origin").orElseThrow());
    assertEquals("Content-Type, X-Namespace", preflight.headers().firstValue("Access-Control-Allow-Headers").orElseThrow());

    Payload plain = DefaultDataConverter.STANDARD_INSTANCE.toPayload("x".repeat(40_000)).orElseThrow();
    Payload compressed = new LargePayloadCodec().encode(List.of(plain)).getFirst();
    assertEquals("binary/zlib", compressed.getMetadataOrThrow("encoding").toStringUtf8());
    HttpResponse<String> decoded = send("POST", "/codec/decode?preserveStorageRefs=true",
        JsonFormat.printer().print(Payloads.newBuilder().addPayloads(compressed).build()),
        "Origin", "http://127.0.0.1:" + UI_PORT, "X-Namespace", "default", "Content-Type", "application/json");
    assertEquals(200, decoded.statusCode(), decoded.body());
    assertEquals("http://127.0.0.1:" + UI_PORT, decoded.headers().firstValue("Access-Control-Allow-Origin").orElseThrow());
    Payloads.Builder out = Payloads.newBuilder();
    JsonFormat.parser().merge(decoded.body(), out);
    assertEquals(plain, out.getPayloads(0));
  }

  @Test
  void everythingButDecodingIsNotFound() throws Exception {
    for (String[] request : List.of(new String[] {"POST", "/codec/encode"}, new String[] {"GET", "/codec/decode"},
        new String[] {"GET", "/"}, new String[] {"GET", "/api/v1/namespaces"}, new String[] {"POST", "/codec/decode/x"},
        new String[] {"DELETE", "/codec/decode"})) {
      HttpResponse<String> answer = send(request[0], request[1], request[0].equals("GET") ? null : "{}",
          "Content-Type", "application/json");
      assertEquals(404, answer.statusCode(), request[0] + " " + request[1]);
      assertTrue(answer.body().contains("\"reason\":\"NotFound\""), answer.body());
    }
  }

  @Test
  void anotherOriginOrAnotherMediaTypeIsRefused() throws Exception {
    assertEquals(403, send("POST", "/codec/decode", "{}", "Origin", "https://example.com", "Content-Type", "application/json").statusCode());
    assertEquals(403, send("OPTIONS", "/codec/decode", null, "Origin", "http://localhost:9999").statusCode());
    // text/plain is what another site could send without a preflight
    assertEquals(415, send("POST", "/codec/decode", "{}", "Content-Type", "text/plain").statusCode());
    assertEquals(400, send("POST", "/codec/decode", "{\"payloads\": 7}", "Content-Type", "application/json").statusCode());
  }

  @Test
  void moreThanTheDecodedCapIsRefused() throws Exception {
    Payload big = Payload.newBuilder().setData(ByteString.copyFrom(new byte[PayloadTranscoder.MAX_DECODED_BYTES])).build();
    Payload compressed = new LargePayloadCodec().encode(List.of(big)).getFirst();
    HttpResponse<String> refused = send("POST", "/codec/decode",
        JsonFormat.printer().print(Payloads.newBuilder().addPayloads(compressed).build()), "Content-Type", "application/json");
    assertEquals(413, refused.statusCode(), refused.body());
    assertTrue(refused.body().contains("\"reason\":\"RequestEntityTooLarge\""), refused.body());
  }

  private HttpResponse<String> send(String method, String path, String body, String... headers) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(30))
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    if (headers.length > 0) {
      request.headers(headers);
    }
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }
}
