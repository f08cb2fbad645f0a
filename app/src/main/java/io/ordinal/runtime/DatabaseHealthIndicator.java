package io.ordinal.runtime;

import io.micronaut.health.HealthStatus;
import io.micronaut.jdbc.DataSourceResolver;
import io.micronaut.management.health.indicator.AbstractHealthIndicator;
import io.micronaut.management.health.indicator.annotation.Readiness;
import jakarta.inject.Singleton;
import java.sql.Connection;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.sql.DataSource;

/**
 * {@code GET /health}'s {@code jdbc} check: a connection from the pool that answers within
 * {@link #TIMEOUT}. The pool may wait up to its own connection timeout (30 s) for a connection, and a
 * database that hangs may never answer, so the check runs on a thread of its own and is DOWN when
 * it has not answered in time.
 */
@Singleton
@Readiness
public class DatabaseHealthIndicator extends AbstractHealthIndicator<Map<String, Object>> {
  static final Duration TIMEOUT = Duration.ofSeconds(3);
  private static final ExecutorService CHECKS = Executors.newVirtualThreadPerTaskExecutor();

  private final DataSource dataSource;

  public DatabaseHealthIndicator(DataSource dataSource, DataSourceResolver resolver) {
    this.dataSource = resolver.resolve(dataSource);
  }

  @Override
  protected Map<String, Object> getHealthInformation() {
    CompletableFuture<Boolean> valid = CompletableFuture.supplyAsync(this::connectionIsValid, CHECKS);
    try {
      boolean up = valid.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      healthStatus = up ? HealthStatus.UP : HealthStatus.DOWN;
      return Map.of("valid", up);
    } catch (TimeoutException e) {
      valid.cancel(true);
      healthStatus = HealthStatus.DOWN;
      return Map.of("error", "no answer within " + TIMEOUT.toSeconds() + "s");
    } catch (ExecutionException e) {
      healthStatus = HealthStatus.DOWN;
      return Map.of("error", String.valueOf(e.getCause()));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      healthStatus = HealthStatus.DOWN;
      return Map.of("error", "interrupted");
    }
  }

  private boolean connectionIsValid() {
    try (Connection connection = dataSource.getConnection()) {
      return connection.isValid((int) TIMEOUT.toSeconds());
    } catch (java.sql.SQLException e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
  }

  @Override
  protected String getName() {
    return "jdbc";
  }
}
