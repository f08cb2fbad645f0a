package io.ordinal.e2e;

import com.sun.net.httpserver.HttpServer;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * An OTLP/HTTP trace receiver ({@code POST /v1/traces}, protobuf), as a collector would be: it keeps
 * every span it is sent, with its service's name.
 */
final class OtlpReceiver implements AutoCloseable {
  /** A received span; ids in lowercase hex, {@code parentSpanId} empty for a root. */
  record Span(String service, String scope, String traceId, String spanId, String parentSpanId, String name,
      String kind, Map<String, String> attributes) {}

  private final HttpServer server;
  private final List<Span> spans = new CopyOnWriteArrayList<>();
  private final List<String> contentTypes = new CopyOnWriteArrayList<>();

  OtlpReceiver() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/v1/traces", exchange -> {
      try (InputStream body = exchange.getRequestBody()) {
        contentTypes.add(exchange.getRequestHeaders().getFirst("Content-Type"));
        receive(ExportTraceServiceRequest.parseFrom(body));
        byte[] reply = ExportTraceServiceResponse.getDefaultInstance().toByteArray();
        exchange.getResponseHeaders().add("Content-Type", "application/x-protobuf");
        exchange.sendResponseHeaders(200, reply.length == 0 ? -1 : reply.length);
        exchange.getResponseBody().write(reply);
      } catch (IOException | RuntimeException e) {
        exchange.sendResponseHeaders(400, -1);
      } finally {
        exchange.close();
      }
    });
    server.start();
  }

  /** What a service sets {@code OTEL_EXPORTER_OTLP_ENDPOINT} to (the exporter adds {@code /v1/traces}). */
  String endpoint() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  List<Span> spans() {
    return List.copyOf(spans);
  }

  List<String> contentTypes() {
    return List.copyOf(contentTypes);
  }

  private void receive(ExportTraceServiceRequest request) {
    HexFormat hex = HexFormat.of();
    request.getResourceSpansList().forEach(resource -> {
      String service = attributes(resource.getResource().getAttributesList()).getOrDefault("service.name", "");
      resource.getScopeSpansList().forEach(scope -> scope.getSpansList().forEach(span -> spans.add(new Span(service,
          scope.getScope().getName(), hex.formatHex(span.getTraceId().toByteArray()),
          hex.formatHex(span.getSpanId().toByteArray()), hex.formatHex(span.getParentSpanId().toByteArray()),
          span.getName(), span.getKind().name(), attributes(span.getAttributesList())))));
    });
  }

  private static Map<String, String> attributes(List<KeyValue> keyValues) {
    Map<String, String> attributes = new LinkedHashMap<>();
    keyValues.forEach(kv -> attributes.put(kv.getKey(), text(kv.getValue())));
    return attributes;
  }

  private static String text(AnyValue value) {
    return switch (value.getValueCase()) {
      case STRING_VALUE -> value.getStringValue();
      case INT_VALUE -> Long.toString(value.getIntValue());
      case BOOL_VALUE -> Boolean.toString(value.getBoolValue());
      case DOUBLE_VALUE -> Double.toString(value.getDoubleValue());
      default -> value.toString();
    };
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
