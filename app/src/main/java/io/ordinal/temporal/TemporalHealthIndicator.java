package io.ordinal.temporal;

import io.grpc.health.v1.HealthCheckResponse;
import io.micronaut.health.HealthStatus;
import io.micronaut.management.health.indicator.AbstractHealthIndicator;
import io.micronaut.management.health.indicator.annotation.Readiness;
import io.temporal.serviceclient.WorkflowServiceStubs;
import jakarta.inject.Singleton;
import java.util.Map;

/** {@code GET /health} is UP only when the Temporal frontend answers its gRPC health check. */
@Singleton
@Readiness
public class TemporalHealthIndicator extends AbstractHealthIndicator<Map<String, Object>> {
  private final WorkflowServiceStubs stubs;

  public TemporalHealthIndicator(WorkflowServiceStubs stubs) {
    this.stubs = stubs;
  }

  @Override
  protected Map<String, Object> getHealthInformation() {
    HealthCheckResponse response = stubs.healthCheck();
    boolean serving = response.getStatus() == HealthCheckResponse.ServingStatus.SERVING;
    healthStatus = serving ? HealthStatus.UP : HealthStatus.DOWN;
    return Map.of("status", response.getStatus().name());
  }

  @Override
  protected String getName() {
    return "temporal";
  }
}
