package io.ordinal.metrics;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import io.swagger.v3.oas.annotations.Operation;

/**
 * {@code GET /metrics} in Prometheus's text format, as the API server serves its own: allowed to
 * whoever may {@code get} the non-resource URL {@code /metrics} (the {@code system:monitoring} group,
 * cluster-admin).
 */
@Controller
@ExecuteOn(TaskExecutors.BLOCKING)
public class MetricsEndpoint {
  static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

  private final PrometheusMeterRegistry registry;
  private final SetGauges sets;

  public MetricsEndpoint(PrometheusMeterRegistry registry, SetGauges sets) {
    this.registry = registry;
    this.sets = sets;
  }

  @Get(value = "/metrics", produces = CONTENT_TYPE)
  @Operation(summary = "Prometheus metrics: the service's, the Temporal SDK's, and one series per StatefulSet")
  public HttpResponse<String> scrape() {
    sets.refresh();
    return HttpResponse.ok(registry.scrape()).contentType(MediaType.of(CONTENT_TYPE));
  }
}
