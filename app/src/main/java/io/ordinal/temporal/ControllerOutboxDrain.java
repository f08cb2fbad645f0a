package io.ordinal.temporal;

import io.micronaut.context.annotation.Value;
import io.micronaut.jdbc.DataSourceResolver;
import io.ordinal.model.SetKey;
import io.ordinal.store.OutboxRow;
import io.ordinal.store.Repositories;
import jakarta.annotation.PreDestroy;
import jakarta.inject.Singleton;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import javax.sql.DataSource;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Scope;
import io.ordinal.tracing.Tracing;
import org.postgresql.PGConnection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Signals the controllers of the spec changes queued in the controller outbox, after their writes
 * committed: woken by the outbox's NOTIFY (or each second, should one be lost), it reads the oldest
 * rows, tells each set's controller of them in order (sets side by side), and deletes each row once
 * Temporal took its signal. A row whose signal failed stays, and is tried again a second later.
 */
@Singleton
public class ControllerOutboxDrain {
  private static final Logger log = LoggerFactory.getLogger(ControllerOutboxDrain.class);
  private static final String CHANNEL = "controller_outbox";
  private static final int BATCH = 500;
  private static final Duration WAIT = Duration.ofSeconds(1);

  private final Repositories.ControllerOutbox outbox;
  private final SetSignals signals;
  private final DataSource dataSource;
  private final boolean held;
  private final Tracing tracing;
  private final ExecutorService senders = Executors.newVirtualThreadPerTaskExecutor();
  private volatile boolean running = true;
  private Thread drainer;

  /**
   * @param held for tests only: the outbox is written and never drained, as if the service died after
   *     each write's commit ({@code ORDINAL_OUTBOX_HOLD=true})
   */
  public ControllerOutboxDrain(Repositories.ControllerOutbox outbox, SetSignals signals, DataSource dataSource,
      DataSourceResolver resolver, @Value("${ordinal.outbox.hold:false}") boolean held, Tracing tracing) {
    this.outbox = outbox;
    this.signals = signals;
    this.dataSource = resolver.resolve(dataSource); // LISTEN lives outside any transaction
    this.held = held;
    this.tracing = tracing;
  }

  /** Starts draining (once the worker runs, so that the signals it sends are taken up at once). */
  public synchronized void start() {
    if (drainer == null && !held) {
      drainer = Thread.ofPlatform().daemon().name("controller-outbox").start(this::run);
    }
  }

  @PreDestroy
  void stop() {
    running = false;
    senders.shutdownNow();
  }

  private void run() {
    while (running) {
      try (Connection connection = dataSource.getConnection()) {
        try (Statement listen = connection.createStatement()) {
          listen.execute("LISTEN " + CHANNEL);
        }
        PGConnection notifications = connection.unwrap(PGConnection.class);
        try {
          // Several instances share the outbox: one drains it, so each change is signalled once and
          // in order; another takes over within a second of the first one's connection closing.
          while (running && !call(connection, "pg_try_advisory_lock")) {
            notifications.getNotifications((int) WAIT.toMillis());
          }
          while (running) {
            drain();
            notifications.getNotifications((int) WAIT.toMillis()); // drains them; the table says what is new
          }
        } finally {
          unlock(connection);
        }
      } catch (Exception e) {
        if (running) {
          log.warn("controller outbox: {}; retrying in {}", e.toString(), WAIT);
          sleep();
        }
      }
    }
  }

  /** The outbox's lock: session-level, so a dead instance's is released with its connection. */
  private static boolean call(Connection connection, String function) throws SQLException {
    try (Statement statement = connection.createStatement();
        ResultSet result = statement.executeQuery("SELECT " + function + "(hashtext('" + CHANNEL + "'))")) {
      return result.next() && result.getBoolean(1);
    }
  }

  /** A pooled connection outlives this loop: it must not go back to the pool holding the lock. */
  private static void unlock(Connection connection) {
    try {
      if (!connection.isClosed()) {
        call(connection, "pg_advisory_unlock");
      }
    } catch (SQLException e) {
      // the session is gone, and its locks with it
    }
  }

  /** Sends what the outbox holds; returns when it is empty or a signal failed (tried again later). */
  void drain() throws InterruptedException, ExecutionException {
    List<OutboxRow> rows;
    do {
      rows = outbox.oldest(BATCH);
      Map<SetKey, List<OutboxRow>> bySet = new LinkedHashMap<>();
      rows.forEach(row -> bySet.computeIfAbsent(new SetKey(row.namespace(), row.name()), k -> new ArrayList<>()).add(row));
      List<Future<Boolean>> sent = new ArrayList<>();
      bySet.forEach((key, queued) -> sent.add(senders.submit(() -> send(key, queued))));
      for (Future<Boolean> each : sent) {
        if (!each.get()) {
          return;
        }
      }
    } while (rows.size() == BATCH);
  }

  /** One set's queued changes, oldest first, each signalled with who made it; false at the first failure. */
  private boolean send(SetKey key, List<OutboxRow> queued) {
    for (OutboxRow row : queued) {
      if (!signalInItsTrace(key, row)) {
        return false;
      }
      outbox.sent(key.namespace(), key.name(), row.id());
    }
    return true;
  }

  /** The signal, as a span of the trace of the request that queued it (when tracing is on and it had one). */
  private boolean signalInItsTrace(SetKey key, OutboxRow row) {
    Span span = tracing.tracer().spanBuilder("controller outbox: specChanged " + key)
        .setParent(tracing.fromTraceparent(row.traceparent()))
        .setSpanKind(SpanKind.PRODUCER)
        .setAttribute("k8s.namespace.name", key.namespace())
        .setAttribute("k8s.statefulset.name", key.name())
        .setAttribute("ordinal.generation", row.generation())
        .startSpan();
    try (Scope ignored = span.makeCurrent()) {
      boolean sent = signals.specChanged(key, row.generation(), row.requestedBy());
      if (!sent) {
        span.setStatus(StatusCode.ERROR, "Temporal did not take the signal; tried again later");
      }
      return sent;
    } finally {
      span.end();
    }
  }

  private void sleep() {
    try {
      Thread.sleep(WAIT.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      running = false;
    }
  }
}
