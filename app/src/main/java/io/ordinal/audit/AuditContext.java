package io.ordinal.audit;

import io.micronaut.http.HttpRequest;
import io.micronaut.http.context.ServerRequestContext;
import io.ordinal.request.User;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The audit record of one request while it is served: its id, when it arrived, and the annotations
 * the layers that handle it add (the authorization decision, the workflows it signalled). Kept as a
 * request attribute by {@link AuditFilter}; code deeper down (which has no request in hand) finds
 * the request it serves through Micronaut's propagated request context.
 */
public final class AuditContext {
  static final String ATTRIBUTE = "ordinal.audit";
  public static final String DECISION = "authorization.k8s.io/decision";
  public static final String WORKFLOW = "ordinal.io/workflow";
  public static final String WORKFLOW_SIGNAL = "ordinal.io/workflow-signal";

  private final String auditId;
  private final Instant received;
  private final Map<String, String> annotations = new LinkedHashMap<>();

  AuditContext(String auditId, Instant received) {
    this.auditId = auditId;
    this.received = received;
  }

  public String auditId() {
    return auditId;
  }

  Instant received() {
    return received;
  }

  /** Sets an annotation, replacing an earlier value. */
  public synchronized void annotate(String key, String value) {
    annotations.put(key, value);
  }

  /** Adds a value to a comma-separated annotation (one request may signal more than one workflow). */
  public synchronized void append(String key, String value) {
    annotations.merge(key, value, (old, added) -> ("," + old + ",").contains("," + added + ",") ? old : old + "," + added);
  }

  synchronized Map<String, String> annotations() {
    return Map.copyOf(annotations);
  }

  /** The audit record of {@code request}; empty for a request the audit filter has not seen. */
  public static Optional<AuditContext> of(HttpRequest<?> request) {
    return request.getAttribute(ATTRIBUTE, AuditContext.class);
  }

  /** The audit record of the request this thread serves, if any (not for resync or start-up work). */
  public static Optional<AuditContext> current() {
    return ServerRequestContext.currentRequest().flatMap(AuditContext::of);
  }

  /**
   * The name of the user whose request this thread serves, to be recorded in the workflow history
   * with the signal or update it causes; empty for the service's own work (resync, start-up nudge).
   */
  public static Optional<String> currentUser() {
    return ServerRequestContext.currentRequest()
        .flatMap(request -> User.of(request))
        .map(User::name);
  }

  /** Notes in the current request's audit record that it sent {@code signal} to {@code workflowId}. */
  public static void signalled(String workflowId, String signal) {
    current().ifPresent(audit -> {
      audit.append(WORKFLOW, workflowId);
      audit.append(WORKFLOW_SIGNAL, signal);
    });
  }
}
