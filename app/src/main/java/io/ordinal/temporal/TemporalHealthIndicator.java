package io.ordinal.temporal;

import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckResponse;
import io.micronaut.health.HealthStatus;
import io.micronaut.management.health.indicator.AbstractHealthIndicator;
import io.micronaut.management.health.indicator.annotation.Readiness;
import io.temporal.serviceclient.WorkflowServiceStubs;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.util.Map;

/**
 * {@code GET /health} is UP only when the Temporal frontend answers its gRPC health check, within
 * {@link #TIMEOUT}: a frontend that hangs is DOWN, not a probe that hangs.
 */
@Singleton
@Readiness
public class TemporalHealthIndicator extends AbstractHealthIndicator<Map<String, Object>> {
  /** Each health check's deadline (the SDK's default is longer). */
  public static final Duration TIMEOUT = Duration.ofSeconds(3);
  private final WorkflowServiceStubs stubs;

  public TemporalHealthIndicator(WorkflowServiceStubs stubs) {
    this.stubs = stubs;
  }

  @Override
  protected Map<String, Object> getHealthInformation() {
    HealthCheckResponse response;
    try {
      response = stubs.healthCheck(); // its deadline: the stubs' health-check attempt timeout (TemporalFactory)
    } catch (StatusRuntimeException e) {
      healthStatus = HealthStatus.DOWN;
      return Map.of("status", e.getStatus().getCode().name());
    }
    boolean serving = response.getStatus() == HealthCheckResponse.ServingStatus.SERVING;
    healthStatus = serving ? HealthStatus.UP : HealthStatus.DOWN;
    return Map.of("status", response.getStatus().name());
  }

  @Override
  protected String getName() {
    return "temporal";
  }
}
