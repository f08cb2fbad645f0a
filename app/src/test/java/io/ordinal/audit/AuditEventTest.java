package io.ordinal.audit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.micronaut.http.HttpRequest;
import io.ordinal.request.RequestAttributes;
import io.ordinal.request.User;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class AuditEventTest {
  static final ObjectMapper JSON = new ObjectMapper();
  static final String TOKEN = "sekr3t-token-value";

  @Test
  void aPatchOfAScaleIsOneMetadataEventInUpstreamsShape() throws Exception {
    HttpRequest<?> request = HttpRequest.PATCH("/apis/apps/v1/namespaces/ns/statefulsets/web/scale?fieldManager=kubectl", "{}")
        .header("Authorization", "Bearer " + TOKEN)
        .header("User-Agent", "kubectl/v1.32.0 (linux/amd64)")
        .header("X-Forwarded-For", "10.0.0.5, 10.0.0.6");
    request.setAttribute(User.ATTRIBUTE, User.authenticated("alice", "u-1", List.of("dev")));
    AuditContext audit = new AuditContext("0f8e-id", Instant.parse("2025-01-01T10:00:00.123456789Z"));
    audit.annotate(AuditContext.DECISION, "allow");
    audit.append(AuditContext.WORKFLOW, "statefulset/ns/web");
    audit.append(AuditContext.WORKFLOW, "statefulset/ns/web");
    RequestAttributes attributes = RequestAttributes.of("PATCH", request.getPath(), null, null);

    String line = AuditFilter.event(request, attributes, audit, 200, null, Instant.parse("2025-01-01T10:00:00.125Z")).toJson();
    JsonNode event = JSON.readTree(line);

    assertFalse(line.contains("\n"));
    assertEquals("Event", event.path("kind").asText());
    assertEquals("audit.k8s.io/v1", event.path("apiVersion").asText());
    assertEquals("Metadata", event.path("level").asText());
    assertEquals("0f8e-id", event.path("auditID").asText());
    assertEquals("ResponseComplete", event.path("stage").asText());
    assertEquals("/apis/apps/v1/namespaces/ns/statefulsets/web/scale?fieldManager=kubectl", event.path("requestURI").asText());
    assertEquals("patch", event.path("verb").asText());
    assertEquals("alice", event.at("/user/username").asText());
    assertEquals("u-1", event.at("/user/uid").asText());
    assertEquals("[\"dev\",\"system:authenticated\"]", event.at("/user/groups").toString());
    assertEquals("10.0.0.5", event.at("/sourceIPs/0").asText());
    assertEquals("10.0.0.6", event.at("/sourceIPs/1").asText());
    assertEquals("kubectl/v1.32.0 (linux/amd64)", event.path("userAgent").asText());
    assertEquals("{\"resource\":\"statefulsets\",\"namespace\":\"ns\",\"name\":\"web\",\"apiGroup\":\"apps\","
        + "\"apiVersion\":\"v1\",\"subresource\":\"scale\"}", event.path("objectRef").toString());
    assertEquals("{\"metadata\":{},\"code\":200}", event.path("responseStatus").toString());
    assertEquals("2025-01-01T10:00:00.123456Z", event.path("requestReceivedTimestamp").asText());
    assertEquals("2025-01-01T10:00:00.125000Z", event.path("stageTimestamp").asText());
    assertEquals("allow", event.at("/annotations/authorization.k8s.io~1decision").asText());
    assertEquals("statefulset/ns/web", event.at("/annotations/ordinal.io~1workflow").asText());
    // Metadata level: no headers but the User-Agent, no bodies; the token is nowhere.
    assertFalse(line.contains(TOKEN), line);
    assertFalse(line.toLowerCase().contains("authorization\":"), line);
    assertFalse(event.has("requestObject"));
    assertFalse(event.has("responseObject"));
  }

  @Test
  void aRefusalCarriesTheStatusOfItsResponse() throws Exception {
    String body = "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
        + "\"message\":\"statefulsets.apps is forbidden: User \\\"bob\\\" cannot create\",\"reason\":\"Forbidden\",\"code\":403}";
    AuditEvent.Failure failure = AuditFilter.failure(403, body);
    assertEquals(new AuditEvent.Failure("Failure", "statefulsets.apps is forbidden: User \"bob\" cannot create", "Forbidden"),
        failure);
    assertEquals("Forbidden", AuditFilter.failure(403, "kind: Status\nstatus: Failure\nreason: Forbidden\n").reason());
    assertEquals(new AuditEvent.Failure("Failure", null, null), AuditFilter.failure(500, "not a status"));
    assertNull(AuditFilter.failure(201, body));

    HttpRequest<?> request = HttpRequest.POST("/apis/apps/v1/namespaces/ns/statefulsets", "{}");
    AuditContext audit = new AuditContext("id", Instant.now());
    JsonNode event = JSON.readTree(AuditFilter.event(request, RequestAttributes.of("POST", request.getPath(), null, null),
        audit, 403, failure, Instant.now()).toJson());
    assertEquals("{\"metadata\":{},\"status\":\"Failure\",\"message\":\"statefulsets.apps is forbidden: User \\\"bob\\\" "
        + "cannot create\",\"reason\":\"Forbidden\",\"code\":403}", event.path("responseStatus").toString());
    assertEquals("{}", event.path("user").toString(), "no authenticated user");
    assertFalse(event.has("annotations"));
  }

  @Test
  void writesExecsAndRefusalsAreAuditedReadsAreNot() {
    assertTrue(AuditFilter.audited(RequestAttributes.of("POST", "/apis/apps/v1/namespaces/ns/statefulsets/web/rollout/pause", null, null), 200));
    assertTrue(AuditFilter.audited(RequestAttributes.of("DELETE", "/apis/apps/v1/namespaces/ns/statefulsets", null, null), 200));
    assertTrue(AuditFilter.audited(RequestAttributes.of("DELETE", "/apis/auth.ordinal.io/v1/tokens/t1", null, null), 200));
    assertTrue(AuditFilter.audited(RequestAttributes.of("GET", "/api/v1/namespaces/ns/pods/p/exec", null, null), 101));
    assertTrue(AuditFilter.audited(RequestAttributes.of("GET", "/apis/apps/v1/namespaces/ns/statefulsets", null, null), 403));
    assertTrue(AuditFilter.audited(RequestAttributes.of("GET", "/version", null, null), 401));
    assertFalse(AuditFilter.audited(RequestAttributes.of("GET", "/apis/apps/v1/namespaces/ns/statefulsets", "1", null), 200));
    assertFalse(AuditFilter.audited(RequestAttributes.of("GET", "/apis/apps/v1/namespaces/ns/statefulsets/web", null, null), 404));
    assertFalse(AuditFilter.audited(RequestAttributes.of("POST", "/codec/encode", null, null), 200));
  }

  @Test
  void microTimeHasSixFractionalDigitsInUtc() {
    assertEquals("2025-01-01T10:00:00.000000Z", AuditEvent.microTime(Instant.parse("2025-01-01T10:00:00Z")));
    assertEquals("2025-01-01T10:00:00.000001Z", AuditEvent.microTime(Instant.parse("2025-01-01T10:00:00.000001999Z")));
  }
}
