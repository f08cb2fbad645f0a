package io.ordinal.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.temporal.api.common.v1.Header;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Traces, sent by OTLP to a receiver: a request that carries a W3C {@code traceparent} is a span of the
 * caller's trace, and so is all it causes — the controller outbox's signal, the controller's handling of
 * it, the operation it starts and that operation's activities — through the Temporal SDK's interceptors.
 * Without an endpoint (the suite's shared service) nothing is traced and workflows carry no trace header.
 */
@E2eTest
class TracingIT {
  static final Duration TIMEOUT = Duration.ofSeconds(90);
  static Api api;
  private static OtlpReceiver receiver;
  private static OrdinalService traced;

  @BeforeAll
  static void startATracedService() throws Exception {
    receiver = new OtlpReceiver();
    traced = new OrdinalService("tracing", Map.of("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.endpoint(),
        "OTEL_BSP_SCHEDULE_DELAY", "100"));
    traced.start();
  }

  @AfterAll
  static void stop() {
    if (traced != null) {
      traced.close();
    }
    if (receiver != null) {
      receiver.close();
    }
  }

  @Test
  void aRequestsTraceRunsThroughTheOutboxIntoTheOperationAndItsActivities() throws Exception {
    Api tracedApi = traced.api();
    String[] probe = traceparent();
    assertEquals(200, tracedApi.send("GET", "/health", null, null, null, "traceparent", probe[0]).code());
    String[] create = traceparent();
    Api.Reply created = tracedApi.send("POST", Paths.sets("traced"), "application/json",
        Manifests.json(Manifests.web("web", 2, 0, Map.of())), null, "traceparent", create[0]);
    assertEquals(201, created.code(), created.body());
    tracedApi.awaitConverged("traced", "web", 2, TIMEOUT);

    List<OtlpReceiver.Span> path = awaitPath(create[1], "RunActivity:CreatePod");
    assertEquals(List.of("POST", "controller outbox: specChanged traced/web", "SignalWithStartWorkflow:StatefulSetControllerWorkflow",
        "HandleSignal:specChanged", "StartChildWorkflow:OperationWorkflow", "RunWorkflow:OperationWorkflow",
        "StartActivity:CreatePod", "RunActivity:CreatePod"), names(path), "the path from the request to a pod's creation");
    OtlpReceiver.Span server = path.get(0);
    assertEquals(create[2], server.parentSpanId(), "the request's span is the caller's child");
    assertEquals("SPAN_KIND_SERVER", server.kind());
    assertEquals("ordinal", server.service());
    assertEquals("create", server.attributes().get("k8s.verb"));
    assertEquals("statefulsets", server.attributes().get("k8s.resource"));
    assertEquals("traced", server.attributes().get("k8s.namespace.name"));
    assertEquals("201", server.attributes().get("http.response.status_code"));
    assertEquals("POST /apis/apps/v1/namespaces/{namespace}/statefulsets", server.name());
    // The controller's own work for the change (observing the set, its status) is in the change's trace
    // too, under the signal: no span hangs under the controller's run, which lasts as long as the set.
    awaitCompleteTree(create[1], create[2]);
    // The log lines of the work the request caused carry its trace.
    String createdLine = awaitLogLine(line -> line.contains("create Pod web-0 ") && line.contains("set=traced/web"));
    assertTrue(createdLine.contains("trace_id=" + create[1]), createdLine);

    // A later change reaches the operation it starts, though the controller's own run began with the create.
    String revision = tracedApi.set("traced", "web").at("/status/currentRevision").asText();
    String[] rollout = traceparent();
    Api.Reply patched = tracedApi.send("PATCH", Paths.set("traced", "web"), "application/json-patch+json",
        Manifests.imagePatch("k8s.gcr.io/nginx-slim:0.9"), null, "traceparent", rollout[0]);
    assertEquals(200, patched.code(), patched.body());
    tracedApi.awaitRolledOut("traced", 2, revision);
    List<OtlpReceiver.Span> rolled = awaitPath(rollout[1], "RunActivity:DeletePod");
    assertTrue(names(rolled).containsAll(List.of("controller outbox: specChanged traced/web", "HandleSignal:specChanged",
        "StartChildWorkflow:OperationWorkflow", "RunWorkflow:OperationWorkflow")), names(rolled).toString());
    assertEquals("patch", rolled.get(0).attributes().get("k8s.verb"));
    assertEquals(rollout[2], rolled.get(0).parentSpanId());
    awaitCompleteTree(rollout[1], rollout[2]);
    assertEquals(List.of(), spansOf(probe[1]), "probes are not traced");
  }

  @Test
  void withoutAnEndpointWorkflowsCarryNoTraceHeader(@Namespace String ns) throws Exception {
    api.createSet(ns, Manifests.web("web", 1, 0, Map.of()));
    api.awaitConverged(ns, "web", 1, TIMEOUT);
    assertFalse(controllerStartHeader(OrdinalService.shared(), ns).getFieldsMap().containsKey("_tracer-data"));
    traced.api().createSet(ns, Manifests.web("web", 1, 0, Map.of()));
    traced.api().awaitConverged(ns, "web", 1, TIMEOUT);
    assertTrue(controllerStartHeader(traced, ns).getFieldsMap().containsKey("_tracer-data"), "the traced service's do");
  }

  private static Header controllerStartHeader(OrdinalService service, String ns) {
    return service.withTemporal(client -> client.fetchHistory("statefulset/" + ns + "/web").getHistory().getEvents(0)
        .getWorkflowExecutionStartedEventAttributes().getHeader());
  }

  /** A new trace and its caller's span: the header, the trace id and the span id. */
  private static String[] traceparent() {
    HexFormat hex = HexFormat.of();
    byte[] trace = new byte[16];
    byte[] span = new byte[8];
    ThreadLocalRandom.current().nextBytes(trace);
    ThreadLocalRandom.current().nextBytes(span);
    String traceId = hex.formatHex(trace);
    String spanId = hex.formatHex(span);
    return new String[] {"00-" + traceId + "-" + spanId + "-01", traceId, spanId};
  }

  private static List<OtlpReceiver.Span> spansOf(String traceId) {
    return receiver.spans().stream().filter(s -> s.traceId().equals(traceId)).toList();
  }

  /** Waits until every span of the trace is received and has its parent there (the first: the caller's span). */
  private static void awaitCompleteTree(String traceId, String callerSpanId) {
    Instant deadline = Instant.now().plusSeconds(20);
    while (true) {
      List<OtlpReceiver.Span> trace = spansOf(traceId);
      List<String> ids = new ArrayList<>(trace.stream().map(OtlpReceiver.Span::spanId).toList());
      ids.add(callerSpanId);
      List<String> orphans = trace.stream().filter(s -> !ids.contains(s.parentSpanId()))
          .map(s -> s.name() + " <- " + s.parentSpanId()).toList();
      if (orphans.isEmpty()) {
        return;
      }
      assertTrue(Instant.now().isBefore(deadline), "spans of trace " + traceId + " whose parent never came: " + orphans);
      Api.sleep(200);
    }
  }

  /** The spans from the trace's first to a span named {@code last}, parent before child, once all are received. */
  private static List<OtlpReceiver.Span> awaitPath(String traceId, String last) {
    Instant deadline = Instant.now().plusSeconds(30);
    while (true) {
      List<OtlpReceiver.Span> trace = spansOf(traceId);
      Map<String, OtlpReceiver.Span> byId = trace.stream()
          .collect(Collectors.toMap(OtlpReceiver.Span::spanId, s -> s, (a, b) -> a));
      for (OtlpReceiver.Span leaf : trace.stream().filter(s -> s.name().equals(last)).toList()) {
        List<OtlpReceiver.Span> path = new ArrayList<>();
        Optional<OtlpReceiver.Span> at = Optional.of(leaf);
        while (at.isPresent()) {
          path.addFirst(at.get());
          at = Optional.ofNullable(byId.get(at.get().parentSpanId()));
        }
        if (path.get(0).kind().equals("SPAN_KIND_SERVER")) {
          return path;
        }
      }
      assertTrue(Instant.now().isBefore(deadline), "no path from the request to " + last + " in trace " + traceId
          + ": " + trace.stream().map(s -> s.name() + " " + s.spanId() + " <- " + s.parentSpanId()).toList());
      Api.sleep(200);
    }
  }

  private static String awaitLogLine(java.util.function.Predicate<String> wanted) throws Exception {
    Path file = traced.dataDir.resolve("ordinal.log");
    Instant deadline = Instant.now().plus(TIMEOUT);
    while (true) {
      Optional<String> line = Files.readAllLines(file).stream().filter(wanted).findFirst();
      if (line.isPresent()) {
        return line.get();
      }
      assertTrue(Instant.now().isBefore(deadline), "no such line in " + file);
      Api.sleep(200);
    }
  }

  private static List<String> names(List<OtlpReceiver.Span> path) {
    return path.stream().map(s -> s.name().startsWith("POST ") ? "POST" : s.name()).toList();
  }
}
