package io.ordinal.tracing;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.autoconfigure.AutoConfiguredOpenTelemetrySdk;
import io.opentelemetry.sdk.resources.Resource;
import io.ordinal.node.ThisNode;
import jakarta.annotation.PreDestroy;
import jakarta.inject.Singleton;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Ordinal's traces: off (OpenTelemetry's no-op, and no Temporal interceptors) unless an OTLP endpoint
 * is configured with the standard variables ({@code OTEL_EXPORTER_OTLP_ENDPOINT} or
 * {@code OTEL_EXPORTER_OTLP_TRACES_ENDPOINT}), or {@code OTEL_TRACES_EXPORTER} names an exporter.
 * Every other {@code OTEL_*} setting (protocol, headers, sampler, resource attributes) is
 * OpenTelemetry's own autoconfiguration; Ordinal only changes its defaults: service name
 * {@code ordinal}, OTLP over HTTP/protobuf (the specification's default), traces only (metrics
 * are at {@code /metrics}, logs in the log).
 */
@Singleton
public class Tracing {
  /** The instrumentation scope of Ordinal's own spans (the Temporal SDK's are its interceptors'). */
  public static final String SCOPE = "io.ordinal";
  private static final Map<String, String> DEFAULTS = Map.of(
      "otel.service.name", "ordinal",
      "otel.traces.exporter", "otlp",
      "otel.metrics.exporter", "none",
      "otel.logs.exporter", "none",
      "otel.exporter.otlp.protocol", "http/protobuf");

  /** Whether the settings ask for traces (the service's own environment, or system properties): read once. */
  private static final boolean ENABLED = fromSettings();

  public static boolean enabled() {
    return ENABLED;
  }

  private static boolean fromSettings() {
    if ("true".equalsIgnoreCase(setting("otel.sdk.disabled"))) {
      return false;
    }
    String exporter = setting("otel.traces.exporter");
    if (exporter != null) {
      return !exporter.isBlank() && !exporter.equals("none");
    }
    return setting("otel.exporter.otlp.endpoint") != null || setting("otel.exporter.otlp.traces.endpoint") != null;
  }

  /** A setting as OpenTelemetry reads it: the system property, else its variable ({@code OTEL_...}). */
  private static String setting(String property) {
    String value = System.getProperty(property);
    if (value == null) {
      value = System.getenv(property.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_'));
    }
    return value == null || value.isBlank() ? null : value;
  }

  private final OpenTelemetry openTelemetry;
  private final Tracer tracer;

  public Tracing(ThisNode node) {
    this.openTelemetry = enabled() ? AutoConfiguredOpenTelemetrySdk.builder()
        .addPropertiesSupplier(() -> DEFAULTS)
        .addResourceCustomizer((resource, config) -> resource.merge(Resource.create(Attributes.of(
            AttributeKey.stringKey("service.instance.id"), node.name()))))
        .disableShutdownHook() // closed with the service's context, after the worker (its own hook would race it)
        .build().getOpenTelemetrySdk()
        : OpenTelemetry.noop();
    this.tracer = openTelemetry.getTracer(SCOPE);
  }

  public OpenTelemetry openTelemetry() {
    return openTelemetry;
  }

  public Tracer tracer() {
    return tracer;
  }

  /** Exports the spans still queued. */
  @PreDestroy
  void close() {
    if (openTelemetry instanceof OpenTelemetrySdk sdk) {
      sdk.close();
    }
  }

  /** The current trace as a W3C {@code traceparent}, to carry it where a header cannot go; null without one. */
  public String traceparent() {
    Map<String, String> carrier = new HashMap<>();
    openTelemetry.getPropagators().getTextMapPropagator().inject(Context.current(), carrier, Map::put);
    return carrier.get("traceparent");
  }

  /** The trace a {@code traceparent} names, as the parent of the spans made under it. */
  public Context fromTraceparent(String traceparent) {
    if (traceparent == null) {
      return Context.root();
    }
    return openTelemetry.getPropagators().getTextMapPropagator()
        .extract(Context.root(), Map.of("traceparent", traceparent), MAP_GETTER);
  }

  private static final TextMapGetter<Map<String, String>> MAP_GETTER = new TextMapGetter<>() {
    @Override
    public Iterable<String> keys(Map<String, String> carrier) {
      return List.copyOf(carrier.keySet());
    }

    @Override
    public String get(Map<String, String> carrier, String key) {
      return carrier == null ? null : carrier.get(key);
    }
  };
}
