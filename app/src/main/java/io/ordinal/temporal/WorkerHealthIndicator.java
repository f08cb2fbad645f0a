package io.ordinal.temporal;

import io.micronaut.health.HealthStatus;
import io.micronaut.management.health.indicator.AbstractHealthIndicator;
import io.micronaut.management.health.indicator.annotation.Readiness;
import jakarta.inject.Singleton;
import java.util.Map;

/**
 * {@code GET /health} is UP only once the worker runs and the drivers have re-adopted their pods:
 * before that, stored pod statuses are what the previous run last saw.
 */
@Singleton
@Readiness
public class WorkerHealthIndicator extends AbstractHealthIndicator<Map<String, Object>> {
  private final WorkerLifecycle lifecycle;

  public WorkerHealthIndicator(WorkerLifecycle lifecycle) {
    this.lifecycle = lifecycle;
  }

  @Override
  protected Map<String, Object> getHealthInformation() {
    healthStatus = lifecycle.started() ? HealthStatus.UP : HealthStatus.DOWN;
    return Map.of("started", lifecycle.started());
  }

  @Override
  protected String getName() {
    return "worker";
  }
}
