package io.ordinal.temporal;

import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.micronaut.health.HealthStatus;
import io.micronaut.management.health.indicator.AbstractHealthIndicator;
import io.micronaut.management.health.indicator.annotation.Readiness;
import io.temporal.serviceclient.WorkflowServiceStubs;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * {@code GET /health} is UP only when the Temporal frontend answers its gRPC health check, within
 * {@link #TIMEOUT}: a frontend that hangs is DOWN, not a probe that hangs.
 */
@Singleton
@Readiness
public class TemporalHealthIndicator extends AbstractHealthIndicator<Map<String, Object>> {
  static final Duration TIMEOUT = Duration.ofSeconds(3);
  private static final String SERVICE = "temporal.api.workflowservice.v1.WorkflowService";
  private final WorkflowServiceStubs stubs;

  public TemporalHealthIndicator(WorkflowServiceStubs stubs) {
    this.stubs = stubs;
  }

  @Override
  protected Map<String, Object> getHealthInformation() {
    HealthCheckResponse response;
    try {
      response = HealthGrpc.newBlockingStub(stubs.getRawChannel()).withDeadlineAfter(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
          .check(HealthCheckRequest.newBuilder().setService(SERVICE).build());
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
