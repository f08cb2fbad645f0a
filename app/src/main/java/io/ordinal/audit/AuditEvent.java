package io.ordinal.audit;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.ordinal.request.RequestAttributes;
import io.ordinal.request.User;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One {@code audit.k8s.io/v1} Event at level Metadata (upstream's
 * staging/src/k8s.io/apiserver/pkg/apis/audit/v1/types.go): who did what to which object, and how it
 * ended. Metadata level has no request or response bodies, so neither a token a request sends nor
 * one a token creation returns can reach the log; the request's headers are not part of it either,
 * except the User-Agent.
 *
 * @param user null when the request did not authenticate (401): upstream's empty user
 * @param failure the response's Status (status, reason, message) when the request failed; null on success
 */
public record AuditEvent(String auditId, Stage stage, String requestUri, String verb, User user, List<String> sourceIps,
    String userAgent, RequestAttributes attributes, int code, Failure failure, Instant received, Instant stageTime,
    Map<String, String> annotations) {

  /** Upstream's stages that Ordinal writes: long-running requests (exec) are logged once their response has started. */
  public enum Stage { ResponseStarted, ResponseComplete }

  /** The failure fields of a response's {@code metav1.Status}. */
  public record Failure(String status, String message, String reason) {}

  private static final ObjectMapper JSON = new ObjectMapper();
  /** metav1.MicroTime: RFC 3339 in UTC with exactly six fractional digits. */
  private static final DateTimeFormatter MICRO_TIME =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSSSS'Z'").withZone(ZoneOffset.UTC);

  public static String microTime(Instant instant) {
    return MICRO_TIME.format(instant.truncatedTo(ChronoUnit.MICROS));
  }

  /** The event as one JSON line (without the newline), fields in the order of upstream's struct. */
  public String toJson() {
    Map<String, Object> event = new LinkedHashMap<>();
    event.put("kind", "Event");
    event.put("apiVersion", "audit.k8s.io/v1");
    event.put("level", "Metadata");
    event.put("auditID", auditId);
    event.put("stage", stage.name());
    event.put("requestURI", requestUri);
    event.put("verb", verb);
    Map<String, Object> userInfo = new LinkedHashMap<>();
    if (user != null) {
      userInfo.put("username", user.name());
      if (user.uid() != null && !user.uid().isEmpty()) {
        userInfo.put("uid", user.uid());
      }
      userInfo.put("groups", user.groups());
    }
    event.put("user", userInfo);
    event.put("sourceIPs", sourceIps);
    if (userAgent != null && !userAgent.isEmpty()) {
      event.put("userAgent", userAgent);
    }
    if (attributes != null && attributes.resourceRequest()) {
      Map<String, Object> objectRef = new LinkedHashMap<>();
      putIfSet(objectRef, "resource", attributes.resource());
      putIfSet(objectRef, "namespace", attributes.namespace());
      putIfSet(objectRef, "name", attributes.name());
      putIfSet(objectRef, "apiGroup", attributes.apiGroup());
      putIfSet(objectRef, "apiVersion", attributes.apiVersion());
      putIfSet(objectRef, "subresource", attributes.subresource());
      event.put("objectRef", objectRef);
    }
    Map<String, Object> status = new LinkedHashMap<>();
    status.put("metadata", Map.of());
    if (failure != null) {
      putIfSet(status, "status", failure.status());
      putIfSet(status, "message", failure.message());
      putIfSet(status, "reason", failure.reason());
    }
    status.put("code", code);
    event.put("responseStatus", status);
    event.put("requestReceivedTimestamp", microTime(received));
    event.put("stageTimestamp", microTime(stageTime));
    if (!annotations.isEmpty()) {
      event.put("annotations", new TreeMap<>(annotations));
    }
    try {
      return JSON.writeValueAsString(event);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  private static void putIfSet(Map<String, Object> map, String key, String value) {
    if (value != null && !value.isEmpty()) {
      map.put(key, value);
    }
  }
}
