package io.ordinal.temporal;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.context.annotation.Value;
import io.temporal.worker.WorkerFactory;
import jakarta.annotation.PreDestroy;
import jakarta.inject.Singleton;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stops this instance's workers taking tasks while its database does not answer, and lets them take
 * tasks again once it does. Cut off from PostgreSQL, an instance can run no step (each reads and
 * writes the store), yet kept polling it would take tasks the other instances could run: a
 * workflow's tasks stick to the instance that ran it last, and one whose local activities fail is
 * held while they are retried. Suspended, its workflows' tasks go to the other instances once the
 * sticky queue's schedule-to-start timeout (5 s) passes, and a step here, its local activities failed
 * at once ({@link DatabaseGate}), gives its task up at the local retry threshold (ActivityStubs).
 */
@Singleton
public class WorkerPollingGuard {
  private static final Logger log = LoggerFactory.getLogger(WorkerPollingGuard.class);
  /** Failed checks in a row before polling stops: a single slow answer is not an outage. */
  static final int FAILURES_TO_SUSPEND = 2;
  /** How long a check waits for the database to connect or answer. */
  static final int CHECK_TIMEOUT_SECONDS = 3;

  private final WorkerFactory factory;
  private final DatabaseGate gate;
  private final String url;
  private final Properties credentials = new Properties();
  private final Duration interval;
  /** Its own thread: the shared scheduler's jobs block on the same database (30 s for a pooled connection). */
  private final ScheduledExecutorService checks = Executors.newSingleThreadScheduledExecutor(
      Thread.ofPlatform().name("worker-polling-guard").daemon().factory());
  /**
   * The check's own connection, outside the pool: a pool busy under load is no outage, and its 30 s wait
   * for a connection would make each check that long.
   */
  private Connection connection;
  private int failures;
  private volatile boolean suspended;

  public WorkerPollingGuard(WorkerFactory factory, DatabaseGate gate, MeterRegistry meters,
      @Value("${datasources.default.url}") String url, @Value("${datasources.default.username:}") String user,
      @Value("${datasources.default.password:}") String password,
      @Value("${ordinal.worker.database-check-interval:2s}") Duration interval) {
    this.factory = factory;
    this.gate = gate;
    this.url = url;
    if (!user.isEmpty()) {
      credentials.setProperty("user", user);
      credentials.setProperty("password", password);
    }
    credentials.setProperty("connectTimeout", Integer.toString(CHECK_TIMEOUT_SECONDS));
    credentials.setProperty("socketTimeout", Integer.toString(CHECK_TIMEOUT_SECONDS));
    credentials.setProperty("ApplicationName", "ordinal-database-check");
    this.interval = interval;
    Gauge.builder("ordinal.worker.polling.suspended", () -> suspended ? 1 : 0)
        .description("1 while this instance takes no Temporal tasks because its database does not answer")
        .register(meters);
  }

  /** Checks the database every interval from now on (once the workers have started). */
  void start() {
    checks.scheduleWithFixedDelay(this::check, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
  }

  void check() {
    if (!factory.isStarted() || factory.isShutdown() || factory.isTerminated()) {
      return;
    }
    if (databaseAnswers()) {
      failures = 0;
      if (suspended) {
        gate.open();
        factory.resumePolling();
        suspended = false;
        log.info("the database answers again: taking Temporal tasks again");
      }
    } else if (++failures >= FAILURES_TO_SUSPEND && !suspended) {
      factory.suspendPolling();
      gate.close();
      suspended = true;
      log.warn("the database has not answered {} checks in a row: taking no Temporal tasks until it does"
          + " (other instances run this one's workflows meanwhile)", failures);
    }
  }

  private boolean databaseAnswers() {
    try {
      if (connection == null) {
        connection = DriverManager.getConnection(url, credentials);
      }
      if (connection.isValid(CHECK_TIMEOUT_SECONDS)) {
        return true;
      }
    } catch (SQLException e) {
      // no connection, or none that answers: the check failed
    }
    closeConnection();
    return false;
  }

  private void closeConnection() {
    if (connection != null) {
      try {
        connection.close();
      } catch (SQLException e) {
        // already broken
      }
      connection = null;
    }
  }

  @PreDestroy
  void stop() {
    checks.shutdownNow();
    closeConnection();
  }
}
