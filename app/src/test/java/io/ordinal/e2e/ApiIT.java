package io.ordinal.e2e;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.protobuf.util.JsonFormat;
import io.ordinal.store.KubeJson;
import io.ordinal.workflow.LargePayloadCodec;
import io.temporal.api.common.v1.Payload;
import io.temporal.api.common.v1.Payloads;
import java.io.ByteArrayInputStream;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;

/** The Kubernetes-shaped API: media types, metadata, concurrency, errors. */
@E2eTest
class ApiIT {
  static final String PROTOBUF_DEPRECATED = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf";
  static final String PROTOBUF = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf";
  /** The Go program that reads /openapi/v2's protobuf with gnostic. */
  static final Path OPENAPI_V2_PROTO = Path.of("..", "deploy", "kube", "openapi-v2-proto").toAbsolutePath().normalize();
  static Api api;

  @Test
  void healthIsUpWhenServiceDatabaseAndTemporalAreUp() {
    Api.Reply health = api.get("/health");
    assertEquals(200, health.code(), health.body());
    JsonNode details = health.json().get("details");
    assertEquals("UP", details.at("/jdbc/status").asText());
    assertEquals("UP", details.at("/temporal/status").asText());
  }

  @Test
  void theApiSpeaksHttp2AndStillHttp11OverTls() throws Exception {
    for (var version : List.of(java.net.http.HttpClient.Version.HTTP_2, java.net.http.HttpClient.Version.HTTP_1_1)) {
      try (var client = java.net.http.HttpClient.newBuilder().sslContext(OrdinalService.shared().tls()).version(version).build()) {
        var reply = client.send(api.request("/version").build(), java.net.http.HttpResponse.BodyHandlers.ofString());
        assertEquals(200, reply.statusCode(), reply.body());
        assertEquals(version, reply.version());
      }
    }
  }

  @Test
  void podsAreListedByLabelSelectorInANamespaceAndAcrossNamespaces(@Namespace String ns) {
    String other = ns + "-b";
    api.createSet(ns, Manifests.web("lsa", 2, 0, Map.of()));
    api.createSet(ns, Manifests.web("lsb", 1, 0, Map.of()));
    api.createSet(other, Manifests.web("lsa", 1, 0, Map.of()));
    api.awaitConverged(ns, "lsa", 2, java.time.Duration.ofSeconds(60));
    api.awaitConverged(ns, "lsb", 1, java.time.Duration.ofSeconds(60));
    api.awaitConverged(other, "lsa", 1, java.time.Duration.ofSeconds(60));
    java.util.function.Function<String, List<String>> names = path -> {
      List<String> found = new java.util.ArrayList<>();
      api.get(path).json().path("items").forEach(pod -> found.add(pod.at("/metadata/namespace").asText() + "/"
          + pod.at("/metadata/name").asText()));
      return found;
    };
    assertEquals(List.of(ns + "/lsa-0", ns + "/lsa-1"), names.apply(Paths.core(ns, "pods") + "?labelSelector=app%3Dlsa"));
    assertEquals(List.of(ns + "/lsa-1"), names.apply(Paths.core(ns, "pods")
        + "?labelSelector=app+in+(lsa),statefulset.kubernetes.io/pod-name!=lsa-0"));
    assertEquals(List.of(ns + "/lsa-0", ns + "/lsa-1", ns + "/lsb-0"),
        names.apply(Paths.core(ns, "pods") + "?labelSelector=app+in+(lsa,lsb)"));
    assertEquals(List.of(ns + "/lsa-0", ns + "/lsa-1", other + "/lsa-0").stream().sorted().toList(),
        names.apply("/api/v1/pods?labelSelector=app%3D%3Dlsa").stream().filter(n -> n.startsWith(ns)).sorted().toList());
    assertEquals(List.of(), names.apply(Paths.core(ns, "pods") + "?labelSelector=app%3Dlsa,app%3Dlsb"));
    List<String> wouldDelete = new java.util.ArrayList<>();
    api.delete(Paths.core(ns, "pods") + "?labelSelector=app%3Dlsa&dryRun=All").json().path("items")
        .forEach(pod -> wouldDelete.add(pod.at("/metadata/name").asText()));
    assertEquals(List.of("lsa-0", "lsa-1"), wouldDelete);
    api.delete(Paths.set(ns, "lsa"));
    api.delete(Paths.set(ns, "lsb"));
    api.delete(Paths.set(other, "lsa"));
  }

  @Test
  void createFillsMetadataAndUpstreamDefaults(@Namespace String ns) {
    ObjectNode manifest = Manifests.web("meta", 0, 0, Map.of());
    ((ObjectNode) manifest.get("spec")).remove(List.of("replicas", "minReadySeconds"));
    JsonNode set = api.createSet(ns, manifest).json();
    assertTrue(set.at("/metadata/uid").asText().length() > 10);
    assertEquals(1, set.at("/metadata/generation").asInt());
    assertTrue(set.at("/metadata/resourceVersion").asText().matches("\\d+"));
    assertTrue(set.at("/metadata/creationTimestamp").asText().matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z"));
    assertEquals(1, set.at("/spec/replicas").asInt());
    assertEquals("OrderedReady", set.at("/spec/podManagementPolicy").asText());
    assertEquals("RollingUpdate", set.at("/spec/updateStrategy/type").asText());
    assertEquals(0, set.at("/spec/updateStrategy/rollingUpdate/partition").asInt());
    assertEquals(10, set.at("/spec/revisionHistoryLimit").asInt());
    assertEquals("Retain", set.at("/spec/persistentVolumeClaimRetentionPolicy/whenDeleted").asText());
    assertEquals("Retain", set.at("/spec/persistentVolumeClaimRetentionPolicy/whenScaled").asText());
    api.awaitConverged(ns, "meta", 1, Duration.ofSeconds(60));
    JsonNode pod = api.pod(ns, "meta-0");
    assertEquals("meta-0", pod.at("/metadata/labels/statefulset.kubernetes.io~1pod-name").asText());
    assertEquals("0", pod.at("/metadata/labels/apps.kubernetes.io~1pod-index").asText());
    JsonNode status = api.set(ns, "meta").get("status");
    assertEquals(pod.at("/metadata/labels/controller-revision-hash").asText(), status.get("updateRevision").asText());
    assertEquals(status.get("updateRevision"), status.get("currentRevision"));
    assertEquals(1, status.get("currentReplicas").asInt());
    assertEquals(0, status.get("collisionCount").asInt());
  }

  @Test
  void yamlInYamlOutAndJsonByDefault(@Namespace String ns) throws Exception {
    String yaml = KubeJson.YAML.writeValueAsString(Manifests.web("yaml", 0, 0, Map.of()));
    Api.Reply created = api.send("POST", Paths.sets(ns), "application/yaml", yaml, "application/yaml");
    assertEquals(201, created.code(), created.body());
    assertTrue(created.contentType().startsWith("application/yaml"));
    JsonNode parsed = KubeJson.YAML.readTree(created.body());
    assertEquals("yaml", parsed.at("/metadata/name").asText());
    Api.Reply json = api.get(Paths.set(ns, "yaml"));
    assertTrue(json.contentType().startsWith("application/json"));
    Api.Reply list = api.get(Paths.sets(ns), "application/yaml");
    assertEquals("StatefulSetList", KubeJson.YAML.readTree(list.body()).get("kind").asText());
  }

  @Test
  void invalidManifestIsAnsweredWith422AndFieldPathedCauses(@Namespace String ns) {
    ObjectNode manifest = Manifests.web("bad", 0, 0, Map.of());
    ((ObjectNode) manifest.get("spec")).put("replicas", -1).put("podManagementPolicy", "Sometimes");
    ((ObjectNode) manifest.at("/spec/selector/matchLabels")).put("app", "other");
    Api.Reply reply = api.post(Paths.sets(ns), "application/json", Manifests.json(manifest));
    assertEquals(422, reply.code());
    JsonNode status = reply.json();
    assertEquals("Status", status.get("kind").asText());
    assertEquals("Failure", status.get("status").asText());
    assertEquals("Invalid", status.get("reason").asText());
    assertEquals(422, status.get("code").asInt());
    List<String> fields = new ArrayList<>();
    status.at("/details/causes").forEach(c -> fields.add(c.get("field").asText()));
    assertEquals(List.of("spec.replicas", "spec.podManagementPolicy", "spec.template.metadata.labels"), fields);
    assertTrue(status.get("message").asText().startsWith("StatefulSet.apps \"bad\" is invalid: spec.replicas: Invalid value: -1"));
    // Nothing was stored.
    assertEquals(404, api.get(Paths.set(ns, "bad")).code());
  }

  @Test
  void malformedBodiesAre400(@Namespace String ns) {
    assertStatus(400, "BadRequest", api.post(Paths.sets(ns), "application/json", "{\"metadata\": {"));
    assertStatus(400, "BadRequest", api.post(Paths.sets(ns), "application/yaml", "metadata: [unclosed"));
    assertStatus(400, "BadRequest", api.post(Paths.sets(ns), "application/json", "{\"spec\": {\"replicas\": \"three\"}}"));
    assertStatus(400, "BadRequest", api.post(Paths.sets(ns), "application/json", ""));
  }

  @Test
  void unsupportedMediaTypeIs415(@Namespace String ns) {
    assertStatus(415, "UnsupportedMediaType", api.post(Paths.sets(ns), "text/plain", "hello"));
    api.createSet(ns, Manifests.web("m", 0, 0, Map.of()));
    assertStatus(415, "UnsupportedMediaType", api.patch(Paths.set(ns, "m"), "application/json", "{}"));
  }

  @Test
  void unknownObjectsAre404(@Namespace String ns) {
    assertStatus(404, "NotFound", api.get(Paths.set(ns, "nothing")));
    assertStatus(404, "NotFound", api.get(Paths.pod(ns, "nothing-0")));
    assertStatus(404, "NotFound", api.get(Paths.core(ns, "persistentvolumeclaims/nothing")));
    assertStatus(404, "NotFound", api.delete(Paths.set(ns, "nothing")));
    assertStatus(404, "NotFound", api.get("/no/such/path"));
  }

  @Test
  void duplicateIs409AlreadyExists(@Namespace String ns) {
    ObjectNode manifest = Manifests.web("dup", 0, 0, Map.of());
    api.createSet(ns, manifest);
    assertStatus(409, "AlreadyExists", api.post(Paths.sets(ns), "application/json", Manifests.json(manifest)));
  }

  @Test
  void staleResourceVersionIs409AndSpecChangesBumpGeneration(@Namespace String ns) {
    api.createSet(ns, Manifests.web("rv", 0, 0, Map.of()));
    // Status writes bump resourceVersion too (as upstream): take the version once the controller is idle.
    ObjectNode update = api.awaitConverged(ns, "rv", 0, Duration.ofSeconds(60)).deepCopy();
    ((ObjectNode) update.get("spec")).put("minReadySeconds", 3);
    Api.Reply first = api.put(Paths.set(ns, "rv"), "application/json", KubeJson.write(update));
    assertEquals(200, first.code(), first.body());
    assertEquals(2, first.json().at("/metadata/generation").asInt());
    // The same resourceVersion again is stale now.
    ((ObjectNode) update.get("spec")).put("minReadySeconds", 4);
    assertStatus(409, "Conflict", api.put(Paths.set(ns, "rv"), "application/json", KubeJson.write(update)));
    // A metadata-only change does not bump the generation.
    Api.Reply labelled = api.patchSet(ns, "rv", "{\"metadata\":{\"labels\":{\"team\":\"storage\"}}}");
    assertEquals(2, labelled.json().at("/metadata/generation").asInt());
    assertEquals("storage", labelled.json().at("/metadata/labels/team").asText());
  }

  @Test
  void immutableFieldsAreRejectedOnUpdate(@Namespace String ns) {
    JsonNode created = api.createSet(ns, Manifests.web("imm", 0, 0, Map.of())).json();
    Api.Reply reply = api.patch(Paths.set(ns, "imm"), "application/merge-patch+json",
        "{\"spec\":{\"serviceName\":\"other\"}}");
    assertEquals(422, reply.code());
    assertEquals("spec.serviceName", reply.json().at("/details/causes/0/field").asText());
    assertEquals(created.at("/spec/serviceName"), api.set(ns, "imm").at("/spec/serviceName"));
  }

  @Test
  void scaleSubresourceReadsAndWritesReplicas(@Namespace String ns) {
    api.createSet(ns, Manifests.web("sc", 0, 0, Map.of()));
    JsonNode scale = api.get(Paths.set(ns, "sc") + "/scale").json();
    assertEquals("Scale", scale.get("kind").asText());
    assertEquals("autoscaling/v1", scale.get("apiVersion").asText());
    assertEquals("app=sc", scale.at("/status/selector").asText());
    assertStatus(422, "Invalid", api.put(Paths.set(ns, "sc") + "/scale", "application/json",
        "{\"spec\":{\"replicas\":-2}}"));
    Api.Reply scaled = api.put(Paths.set(ns, "sc") + "/scale", "application/json", "{\"spec\":{\"replicas\":2}}");
    assertEquals(200, scaled.code(), scaled.body());
    assertEquals(2, scaled.json().at("/spec/replicas").asInt());
    api.awaitConverged(ns, "sc", 2, Duration.ofSeconds(60));
    assertEquals(2, api.get(Paths.set(ns, "sc") + "/scale").json().at("/status/replicas").asInt());
  }

  @Test
  void podsFilterByLabelSelectorAndEventsCarryInvolvedObjects(@Namespace String ns) {
    api.createSet(ns, Manifests.web("a", 2, 0, Map.of()));
    api.createSet(ns, Manifests.web("b", 1, 0, Map.of()));
    api.awaitConverged(ns, "a", 2, Duration.ofSeconds(60));
    api.awaitConverged(ns, "b", 1, Duration.ofSeconds(60));
    assertEquals(2, api.pods(ns, "app=a").size());
    assertEquals(1, api.pods(ns, "app=b").size());
    assertEquals(3, api.pods(ns, "app in (a,b)").size());
    assertStatus(400, "BadRequest", api.get(Paths.core(ns, "pods?labelSelector=app%20in%20(a")));
    JsonNode event = api.events(ns).get(0);
    assertEquals("StatefulSet", event.at("/involvedObject/kind").asText());
    assertTrue(event.get("lastTimestamp").asText().matches(".*\\.\\d{3}Z"));
    assertTrue(event.get("reason").asText().startsWith("Successful"));
  }

  @Test
  void openApiDocumentIsServed() throws Exception {
    Api.Reply reply = api.get("/openapi.yaml");
    assertEquals(200, reply.code());
    JsonNode doc = KubeJson.YAML.readTree(reply.body());
    assertTrue(doc.get("openapi").asText().startsWith("3."));
    // The routes of their own (subresources, tokens, reviews); the resources are in /openapi/v3.
    assertTrue(doc.at("/paths").has("/apis/apps/v1/namespaces/{namespace}/statefulsets/{name}/scale"), doc.at("/paths").toString());
    assertTrue(doc.at("/paths").has("/apis/auth.ordinal.io/v1/tokens"), doc.at("/paths").toString());
  }

  @Test
  void kubernetesOpenApiDocumentsAreServedAsKubectlFetchesThem() {
    JsonNode index = api.get("/openapi/v3").json();
    String url = index.at("/paths/apis~1apps~1v1/serverRelativeURL").asText();
    assertTrue(url.startsWith("/openapi/v3/apis/apps/v1?hash="), index.toString());

    Api.Reply apps = api.get(url, "application/json");
    assertEquals(200, apps.code());
    assertEquals("public, immutable", apps.headers().firstValue("Cache-Control").orElse(""));
    assertTrue(apps.json().at("/components/schemas").has("io.k8s.api.apps.v1.StatefulSet"));
    String etag = apps.headers().firstValue("ETag").orElseThrow();
    assertEquals(304, api.send("GET", url, null, null, "application/json", "If-None-Match", etag).code());
    // An index cached before an upgrade names an old hash: the client is sent to the current one.
    Api.Reply stale = api.get("/openapi/v3/apis/apps/v1?hash=0");
    assertEquals(301, stale.code());
    assertEquals(url, stale.headers().firstValue("Location").orElse(""));

    assertEquals("2.0", api.get("/openapi/v2").json().get("swagger").asText());
    // The v3 documents are JSON only: a client that accepts nothing else is told so.
    assertStatus(406, "NotAcceptable", api.get(url, "application/com.github.proto-openapi.spec.v3@v1.0+protobuf"));
    assertStatus(406, "NotAcceptable", api.get("/openapi/v2", "text/plain"));
  }

  /**
   * client-go's OpenAPISchema() asks /openapi/v2 in protobuf only (kubectl when v3 lacks a kind or
   * is turned off): gnostic's openapi_v2.Document, which gnostic itself reads back to the JSON
   * document, value for value, and which is what gnostic makes of the JSON (deploy/kube/openapi-v2-proto).
   */
  @Test
  void openApiV2IsServedInProtobufAsClientGoAsksForIt() throws Exception {
    Api.Reply json = api.get("/openapi/v2", "application/json");
    assertEquals(200, json.code());
    String jsonEtag = json.headers().firstValue("ETag").orElseThrow();

    HttpResponse<byte[]> proto = getBytes("/openapi/v2", "Accept", PROTOBUF_DEPRECATED);
    assertEquals(200, proto.statusCode());
    // kube-openapi answers either protobuf type with the newer name.
    assertEquals(PROTOBUF, proto.headers().firstValue("Content-Type").orElse(""));
    String etag = proto.headers().firstValue("ETag").orElseThrow();
    assertTrue(etag.matches("\"[0-9A-F]{128}\""), etag);
    assertTrue(!etag.equals(jsonEtag), "the protobuf's ETag is its own");
    assertTrue(proto.headers().allValues("Vary").toString().contains("Accept"), proto.headers().toString());
    assertTrue(proto.headers().firstValue("Last-Modified").isPresent(), proto.headers().toString());
    assertEquals(304, getBytes("/openapi/v2", "Accept", PROTOBUF_DEPRECATED, "If-None-Match", etag).statusCode());
    HttpResponse<byte[]> newer = getBytes("/openapi/v2", "Accept", PROTOBUF);
    assertArrayEquals(proto.body(), newer.body());
    // Gzipped when asked, as Go's transport asks.
    HttpResponse<byte[]> gzipped = getBytes("/openapi/v2", "Accept", PROTOBUF_DEPRECATED, "Accept-Encoding", "gzip");
    assertEquals("gzip", gzipped.headers().firstValue("Content-Encoding").orElse(""));
    try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(gzipped.body()))) {
      assertArrayEquals(proto.body(), in.readAllBytes());
    }

    Path dir = Files.createTempDirectory("openapi-v2");
    Path jsonFile = Files.writeString(dir.resolve("v2.json"), json.body());
    Path protoFile = Files.write(dir.resolve("v2.pb"), proto.body());
    Command.Result check = Command.run(Duration.ofMinutes(5), Map.of("GOFLAGS", "-mod=mod"), OPENAPI_V2_PROTO, null,
        List.of("go", "run", ".", jsonFile.toString(), protoFile.toString()));
    assertEquals(0, check.code(), check.output());
    assertTrue(check.out().contains("; 0 differences"), check.output());
    assertTrue(check.out().contains("equal to gnostic's encoding of the JSON; byte for byte: true"), check.output());
  }

  private static HttpResponse<byte[]> getBytes(String path, String... headers) throws Exception {
    return api.client().send(api.request(path).headers(headers).timeout(Duration.ofSeconds(30)).build(),
        HttpResponse.BodyHandlers.ofByteArray());
  }

  static void assertStatus(int code, String reason, Api.Reply reply) {
    assertEquals(code, reply.code(), reply.body());
    JsonNode status = reply.json();
    assertEquals("Status", status.path("kind").asText(), reply.body());
    assertEquals(reason, status.path("reason").asText(), reply.body());
    assertEquals(code, status.path("code").asInt());
  }

  @Test
  void unknownFieldsAreDroppedWithAWarningAsKubernetesDoes(@Namespace String ns) {
    ObjectNode set = Manifests.web("web", 1, 0, Map.of());
    ((ObjectNode) set.get("spec")).put("replicaz", 3);
    ((ObjectNode) set.at("/spec/template/spec/containers/0")).put("imagePullPolice", "Always");
    ((ObjectNode) set.get("spec")).putObject("updateStrategy").put("type", "RollingUpdate")
        .putObject("rollingUpdate").put("paused", false);

    Api.Reply strict = api.post(Paths.sets(ns) + "?fieldValidation=Strict", "application/json", Manifests.json(set));
    assertEquals(400, strict.code(), strict.body());
    assertEquals("strict decoding error: unknown field \"spec.replicaz\", unknown field "
        + "\"spec.template.spec.containers[0].imagePullPolice\"", strict.json().get("message").asText());
    assertEquals(400, api.post(Paths.sets(ns) + "?fieldValidation=Sometimes", "application/json", Manifests.json(set)).code());

    Api.Reply warned = api.createSet(ns, set);
    assertEquals(List.of("299 - \"unknown field \\\"spec.replicaz\\\"\"",
        "299 - \"unknown field \\\"spec.template.spec.containers[0].imagePullPolice\\\"\""), warned.warnings());
    JsonNode stored = api.set(ns, "web");
    assertTrue(stored.at("/spec/replicaz").isMissingNode(), "the unknown field was stored");
    assertTrue(stored.at("/spec/template/spec/containers/0/imagePullPolice").isMissingNode());
    assertEquals(false, stored.at("/spec/updateStrategy/rollingUpdate/paused").asBoolean(true), "paused is Ordinal's own field");

    Api.Reply ignored = api.patch(Paths.set(ns, "web") + "?fieldValidation=Ignore", "application/merge-patch+json",
        "{\"spec\":{\"colour\":\"blue\"}}");
    assertEquals(200, ignored.code(), ignored.body());
    assertTrue(ignored.warnings().isEmpty(), ignored.warnings().toString());
    Api.Reply patched = api.patch(Paths.set(ns, "web"), "application/merge-patch+json", "{\"metadata\":{\"colour\":\"blue\"}}");
    assertEquals(List.of("299 - \"unknown field \\\"metadata.colour\\\"\""), patched.warnings());
    // Found by fuzzing: a field name that is not printable ASCII made the Warning header invalid (500).
    Api.Reply odd = api.patchSet(ns, "web", "{\"spec\":{\"\\u00e9\\n\":1}}");
    assertEquals(List.of("299 - \"unknown field \\\"spec.\\u00e9\\u000a\\\"\""), odd.warnings());
  }

  @Test
  void theWebUiDecodesCompressedPayloadsThroughTheCodecEndpoint() throws Exception {
    // An observation of a large set is stored compressed; the Web UI asks the service to decode it.
    List<Map<String, Object>> pods = IntStream.range(0, 1000)
        .mapToObj(i -> Map.<String, Object>of("name", "web-" + i, "revision", "web-6c8f7d9b5")).toList();
    Payload compressed =
        LargePayloadCodec.dataConverter().toPayload(pods).orElseThrow();
    assertEquals("binary/zlib", compressed.getMetadataOrThrow("encoding").toStringUtf8());
    String body = JsonFormat.printer().print(
        Payloads.newBuilder().addPayloads(compressed).build());

    Api.Reply decoded = api.send("POST", "/codec/decode", "application/json", body, null,
        "Origin", "http://localhost:8233", "X-Namespace", "default");
    assertEquals(200, decoded.code(), decoded.body());
    assertEquals("http://localhost:8233", decoded.headers().firstValue("Access-Control-Allow-Origin").orElse(null));
    var payloads = Payloads.newBuilder();
    JsonFormat.parser().merge(decoded.body(), payloads);
    Payload plain = payloads.getPayloads(0);
    assertEquals("json/plain", plain.getMetadataOrThrow("encoding").toStringUtf8());
    assertEquals(1000, KubeJson.JSON.readTree(plain.getData().toStringUtf8()).size());

    Api.Reply preflight = api.send("OPTIONS", "/codec/decode", null, null, null,
        "Origin", "http://127.0.0.1:8233", "Access-Control-Request-Method", "POST");
    assertTrue(preflight.code() < 300, preflight.code() + " " + preflight.body());
    assertEquals("http://127.0.0.1:8233", preflight.headers().firstValue("Access-Control-Allow-Origin").orElse(null));
    assertTrue(preflight.headers().firstValue("Access-Control-Allow-Headers").orElse("").contains("X-Namespace"));
    Api.Reply foreign = api.send("POST", "/codec/decode", "application/json", body, null, "Origin", "https://example.com");
    assertTrue(foreign.headers().firstValue("Access-Control-Allow-Origin").isEmpty(), "another site may not use the codec");

    assertEquals(400, api.post("/codec/decode", "application/json", "{\"payloads\": 7}").code());
  }

  @Test
  void aQueryParameterOutOfRangeIsABadRequest() {
    // Found by fuzzing: tailLines beyond int32 was a 500.
    Api.Reply reply = api.get(Paths.pod("default", "web-0") + "/log?tailLines=2147483648");
    assertEquals(400, reply.code(), reply.body());
    assertTrue(reply.json().get("message").asText().contains("tailLines"), reply.body());
  }
}
