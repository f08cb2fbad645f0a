package io.ordinal;

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
public class StartupHealthIndicator extends AbstractHealthIndicator<Map<String, Object>> {
  private final Startup startup;

  public StartupHealthIndicator(Startup startup) {
    this.startup = startup;
  }

  @Override
  protected Map<String, Object> getHealthInformation() {
    healthStatus = startup.started() ? HealthStatus.UP : HealthStatus.DOWN;
    return Map.of("started", startup.started());
  }

  @Override
  protected String getName() {
    return "worker";
  }
}
