package io.ordinal.api;

import io.micronaut.health.HealthStatus;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.management.endpoint.health.HealthEndpoint;
import io.micronaut.management.health.indicator.HealthCheckType;
import io.micronaut.management.health.indicator.HealthResult;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import io.swagger.v3.oas.annotations.Operation;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import reactor.core.publisher.Mono;

/**
 * The API server's probes, {@code /livez} and {@code /readyz}: {@code ok}, or with {@code ?verbose}
 * one line per check ({@code [+]jdbc ok}); a failing probe is a 500 whose body always lists the
 * checks, with the reason withheld as upstream does (anyone may probe; details stay in the service's
 * own health endpoint, for authenticated users).
 */
@Controller
@ExecuteOn(TaskExecutors.BLOCKING)
public class HealthProbes {
  private static final Duration CHECK_TIMEOUT = Duration.ofSeconds(10);

  private final HealthEndpoint health;

  public HealthProbes(HealthEndpoint health) {
    this.health = health;
  }

  @Get(value = "/livez", produces = MediaType.TEXT_PLAIN)
  @Operation(summary = "Liveness probe: ok, or the checks (?verbose)")
  public HttpResponse<String> livez(HttpRequest<?> request) {
    return probe("livez", HealthCheckType.LIVENESS, request.getParameters().contains("verbose"));
  }

  @Get(value = "/readyz", produces = MediaType.TEXT_PLAIN)
  @Operation(summary = "Readiness probe (PostgreSQL, Temporal, the worker): ok, or the checks (?verbose)")
  public HttpResponse<String> readyz(HttpRequest<?> request) {
    return probe("readyz", HealthCheckType.READINESS, request.getParameters().contains("verbose"));
  }

  private HttpResponse<String> probe(String name, HealthCheckType type, boolean verbose) {
    HealthResult result = Mono.from(health.getHealth(null, type)).block(CHECK_TIMEOUT);
    boolean passed = result != null && !down(result.getStatus().getName());
    StringBuilder body = new StringBuilder();
    if (result != null && result.getDetails() instanceof Map<?, ?> checks) {
      new TreeMap<>(checks).forEach((check, value) -> body.append(up(value) ? "[+]" + check + " ok\n"
          : "[-]" + check + " failed: reason withheld\n"));
    }
    if (passed) {
      return HttpResponse.ok(verbose ? body + name + " check passed\n" : "ok").contentType(MediaType.TEXT_PLAIN);
    }
    return HttpResponse.<String>serverError(body + name + " check failed\n").contentType(MediaType.TEXT_PLAIN);
  }

  private static boolean up(Object check) {
    if (check instanceof HealthResult result) {
      return !down(result.getStatus().getName());
    }
    return !(check instanceof Map<?, ?> map) || !down(String.valueOf(map.get("status")));
  }

  private static boolean down(String status) {
    return HealthStatus.NAME_DOWN.equals(status);
  }
}
