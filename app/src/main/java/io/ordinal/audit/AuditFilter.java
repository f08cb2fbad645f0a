package io.ordinal.audit;

import com.fasterxml.jackson.databind.JsonNode;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.MutableHttpResponse;
import io.micronaut.http.annotation.Filter;
import io.micronaut.http.filter.HttpServerFilter;
import io.micronaut.http.filter.ServerFilterChain;
import io.ordinal.request.RequestAttributes;
import io.ordinal.request.RequestFilters;
import io.ordinal.request.User;
import io.ordinal.store.KubeJson;
import java.net.InetSocketAddress;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;

/**
 * Audits requests as the API server's audit filter does, at level Metadata: every request gets an
 * {@code Audit-Id} response header, and every request that changes something (create, update,
 * patch, delete, deletecollection, which includes the rollout verbs, token creation and revocation)
 * or execs into a pod, and every request refused with 401 or 403, gets one event in the
 * {@link AuditLog}. Reads (get, list, watch) are not logged. It runs before authentication, so that
 * it sees the 401s and 403s that filter answers.
 */
@Filter(Filter.MATCH_ALL_PATTERN)
public class AuditFilter implements HttpServerFilter {
  /** Upstream's header (kube-apiserver spells it Audit-Id in responses). */
  public static final String HEADER = "Audit-Id";
  /** Verbs that only read; every other verb may change something (the rollout verbs pause, resume, ... too). */
  static final Set<String> READING = Set.of("get", "list", "watch");
  /** Long-running subresources that are audited: their event is written once the response (101) has started. */
  static final Set<String> LONG_RUNNING = Set.of("exec", "attach", "portforward");

  private final AuditLog auditLog;

  public AuditFilter(AuditLog auditLog) {
    this.auditLog = auditLog;
  }

  @Override
  public int getOrder() {
    return RequestFilters.AUDIT;
  }

  @Override
  public Publisher<MutableHttpResponse<?>> doFilter(HttpRequest<?> request, ServerFilterChain chain) {
    AuditContext audit = new AuditContext(UUID.randomUUID().toString(), Instant.now());
    request.setAttribute(AuditContext.ATTRIBUTE, audit);
    return Flux.from(chain.proceed(request)).map(response -> {
      response.header(HEADER, audit.auditId());
      RequestAttributes attributes = RequestAttributes.of(request);
      int code = response.code();
      if (audited(attributes, code)) {
        auditLog.write(event(request, attributes, audit, code, failure(code, response.getBody().orElse(null)), Instant.now()));
      }
      return response;
    });
  }

  /** Writes and execs, and refusals of anything. */
  static boolean audited(RequestAttributes attributes, int code) {
    return code == 401 || code == 403 || attributes.resourceRequest()
        && (!READING.contains(attributes.verb()) || LONG_RUNNING.contains(attributes.subresource()));
  }

  static AuditEvent event(HttpRequest<?> request, RequestAttributes attributes, AuditContext audit, int code,
      AuditEvent.Failure failure, Instant now) {
    User user = User.of(request).orElse(null);
    AuditEvent.Stage stage = LONG_RUNNING.contains(attributes.subresource()) && code < 300
        ? AuditEvent.Stage.ResponseStarted : AuditEvent.Stage.ResponseComplete;
    return new AuditEvent(audit.auditId(), stage, request.getUri().toString(), attributes.verb(), user,
        sourceIps(request), request.getHeaders().get("User-Agent"), attributes, code, failure, audit.received(), now,
        audit.annotations());
  }

  /**
   * Upstream's SourceIPs: the X-Forwarded-For addresses, then X-Real-Ip, then the peer's address,
   * each once. The forwarded ones are what the client claims, as upstream records them.
   */
  static List<String> sourceIps(HttpRequest<?> request) {
    List<String> ips = new ArrayList<>();
    String forwarded = request.getHeaders().get("X-Forwarded-For");
    if (forwarded != null) {
      for (String ip : forwarded.split(",")) {
        if (!ip.isBlank()) {
          ips.add(ip.trim());
        }
      }
    }
    String realIp = request.getHeaders().get("X-Real-Ip");
    if (realIp != null && !realIp.isBlank() && !ips.contains(realIp.trim())) {
      ips.add(realIp.trim());
    }
    InetSocketAddress remote = request.getRemoteAddress();
    if (remote != null && remote.getAddress() != null) {
      String peer = remote.getAddress().getHostAddress();
      if (ips.isEmpty() || !ips.getLast().equals(peer)) {
        ips.add(peer);
      }
    }
    return ips;
  }

  /** The status, reason and message of a failed response's Status body (JSON or YAML); null on success. */
  static AuditEvent.Failure failure(int code, Object body) {
    if (code < 400) {
      return null;
    }
    String status = "Failure";
    String message = null;
    String reason = null;
    try {
      JsonNode node = body instanceof String text
          ? (text.stripLeading().startsWith("{") ? KubeJson.JSON.readTree(text) : KubeJson.YAML.readTree(text))
          : body == null ? null : KubeJson.JSON.valueToTree(body);
      if (node != null && "Status".equals(node.path("kind").asText())) {
        status = node.path("status").asText(status);
        message = node.path("message").asText(null);
        reason = node.path("reason").asText(null);
      }
    } catch (Exception e) {
      // not a Status: the code says enough
    }
    return new AuditEvent.Failure(status, message, reason);
  }
}
