package io.ordinal.store;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import jakarta.inject.Singleton;
import io.micronaut.data.exceptions.DataAccessException;
import io.micronaut.jdbc.DataSourceResolver;
import io.micronaut.transaction.TransactionOperations;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Kubernetes Events, stored in PostgreSQL and correlated as upstream's recorder does (client-go's
 * EventCorrelator, without its spam filter, which drops events): the same event again counts on the
 * stored one (count, lastTimestamp); from the 10th different message of one object, type and reason
 * within 10 minutes of the last, one "(combined from similar events)" event counts them all. In the
 * database rather than in each process's memory, so instances and restarts share it. Events expire
 * {@code ordinal.events.ttl} (one hour, the API server's --event-ttl) after their last occurrence.
 */
@Singleton
public class EventRecorder {
  public static final String NORMAL = "Normal";
  public static final String WARNING = "Warning";
  /** Upstream's defaultAggregateMaxEvents and defaultAggregateIntervalInSeconds. */
  static final int AGGREGATE_MAX_MESSAGES = 10;
  static final Duration AGGREGATE_INTERVAL = Duration.ofMinutes(10);
  static final String COMBINED = "(combined from similar events): ";

  /** eventTime is a MicroTime: clients parse exactly six fractional digits (and drop the event otherwise). */
  private static final DateTimeFormatter MICRO_TIME =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSSSS'Z'").withZone(ZoneOffset.UTC);

  private static final Logger log = LoggerFactory.getLogger(EventRecorder.class);

  private final Repositories.Events events;
  private final DataSource dataSource;
  private final TransactionOperations<Connection> tx;

  public EventRecorder(Repositories.Events events, DataSource dataSource, DataSourceResolver resolver,
      TransactionOperations<Connection> tx) {
    this.events = events;
    this.dataSource = resolver.resolve(dataSource); // for expiry: plain statements outside any transaction
    this.tx = tx;
  }

  public void record(String namespace, String kind, String name, String uid, String type, String reason, String message) {
    // Also a log line, in the context of the step that recorded it (set, pod, operation, workflow ids).
    if (WARNING.equals(type)) {
      log.warn("{} {}/{}: {} {}", kind, namespace, name, reason, message);
    } else {
      log.info("{} {}/{}: {} {}", kind, namespace, name, reason, message);
    }
    // In the caller's transaction when it has one (a pod marked terminating and its event commit
    // together, and that transaction holds the writers' lock already), else in one of its own.
    tx.executeWrite(status -> {
      try {
        correlate(status.getConnection(), namespace, kind, name, uid, type, reason, message, Instant.now());
      } catch (SQLException e) {
        throw new DataAccessException("the event could not be recorded", e);
      }
      return null;
    });
  }

  private void correlate(Connection c, String namespace, String kind, String name, String uid, String type,
      String reason, String message, Instant now) throws SQLException {
    try (PreparedStatement lock = c.prepareStatement("SELECT pg_advisory_xact_lock(?)");
        PreparedStatement similar = c.prepareStatement("""
            INSERT INTO event_aggregates AS a (key, messages, last_time) VALUES (?, ARRAY[?::text], ?)
            ON CONFLICT (key) DO UPDATE SET
              messages = CASE WHEN a.last_time < ? THEN ARRAY[?::text]
                              WHEN ? = ANY(a.messages) THEN a.messages
                              ELSE array_append(a.messages, ?::text) END,
              last_time = EXCLUDED.last_time
            RETURNING cardinality(messages)""");
        PreparedStatement forget = c.prepareStatement(
            "UPDATE event_aggregates SET messages = messages[2:] WHERE key = ?");
        PreparedStatement same = c.prepareStatement("""
            SELECT id FROM events WHERE namespace = ? AND involved_name = ? AND reason = ? AND involved_kind = ?
              AND involved_uid IS NOT DISTINCT FROM ? AND type = ? AND aggregate = ? AND (aggregate OR message = ?)
            ORDER BY id DESC LIMIT 1""");
        PreparedStatement count = c.prepareStatement(
            "UPDATE events SET count = count + 1, last_time = ?, message = ? WHERE id = ?");
        PreparedStatement insert = c.prepareStatement("""
            INSERT INTO events (namespace, name, uid, involved_kind, involved_name, involved_uid, reason, message,
              type, event_time, resource_version, count, last_time, aggregate)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 1, ?, ?)""")) {
      // The watch log's writer lock first, as every writer of API objects takes it before row locks:
      // it also makes one recorder at a time correlate, so two never store the same event twice.
      lock.setLong(1, WatchLog.WRITERS_LOCK);
      lock.execute();
      OffsetDateTime at = now.atOffset(ZoneOffset.UTC);
      String group = String.join("/", namespace, kind, name, String.valueOf(uid), type, reason);
      similar.setString(1, group);
      similar.setString(2, message);
      similar.setObject(3, at);
      similar.setObject(4, now.minus(AGGREGATE_INTERVAL).atOffset(ZoneOffset.UTC));
      similar.setString(5, message);
      similar.setString(6, message);
      similar.setString(7, message);
      boolean aggregate;
      try (ResultSet rows = similar.executeQuery()) {
        rows.next();
        aggregate = rows.getInt(1) >= AGGREGATE_MAX_MESSAGES;
      }
      if (aggregate) {
        // Keeps the group below the threshold by one, as upstream's PopAny: every further message combines.
        forget.setString(1, group);
        forget.executeUpdate();
      }
      String stored = aggregate ? COMBINED + message : message;
      same.setString(1, namespace);
      same.setString(2, name);
      same.setString(3, reason);
      same.setString(4, kind);
      same.setString(5, uid);
      same.setString(6, type);
      same.setBoolean(7, aggregate);
      same.setString(8, message);
      Long existing = null;
      try (ResultSet rows = same.executeQuery()) {
        if (rows.next()) {
          existing = rows.getLong(1);
        }
      }
      if (existing != null) {
        count.setObject(1, at);
        count.setString(2, stored);
        count.setLong(3, existing);
        count.executeUpdate();
      } else {
        insert.setString(1, namespace);
        insert.setString(2, name + "." + Long.toHexString(now.toEpochMilli()) + UUID.randomUUID().toString().substring(0, 4));
        insert.setString(3, UUID.randomUUID().toString());
        insert.setString(4, kind);
        insert.setString(5, name);
        insert.setString(6, uid);
        insert.setString(7, reason);
        insert.setString(8, stored);
        insert.setString(9, type);
        insert.setObject(10, at);
        insert.setObject(11, at);
        insert.setBoolean(12, aggregate);
        insert.executeUpdate();
      }
    }
  }

  /** Removes the events last seen before {@code before} (and aggregation groups older than their interval). */
  public int expire(Instant before) {
    try (Connection c = dataSource.getConnection();
         PreparedStatement events = c.prepareStatement("DELETE FROM events WHERE last_time < ?");
         PreparedStatement groups = c.prepareStatement("DELETE FROM event_aggregates WHERE last_time < ?")) {
      events.setObject(1, before.atOffset(ZoneOffset.UTC));
      groups.setObject(1, Instant.now().minus(AGGREGATE_INTERVAL).atOffset(ZoneOffset.UTC));
      groups.executeUpdate();
      return events.executeUpdate();
    } catch (SQLException e) {
      throw new DataAccessException("events could not be expired", e);
    }
  }

  public Optional<Event> find(String namespace, String name) {
    return events.findByNamespaceAndName(namespace, name).map(EventRecorder::toObject);
  }

  /** The events of a namespace, or of all namespaces ({@code null}), oldest first. */
  public List<Event> list(String namespace) {
    return (namespace == null ? events.listOrderById() : events.findByNamespaceOrderById(namespace)).stream()
        .map(EventRecorder::toObject).toList();
  }

  static Event toObject(EventRow row) {
    String time = KubeJson.timestamp(row.eventTime());
    String apiVersion = "StatefulSet".equals(row.involvedKind()) ? "apps/v1" : "v1";
    return new EventBuilder()
        .withApiVersion("v1")
        .withKind("Event")
        .withNewMetadata()
          .withName(row.name()).withNamespace(row.namespace()).withUid(row.uid())
          .withResourceVersion(Long.toString(row.resourceVersion())).withCreationTimestamp(time)
        .endMetadata()
        .withNewInvolvedObject()
          .withApiVersion(apiVersion).withKind(row.involvedKind()).withName(row.involvedName())
          .withNamespace(row.namespace()).withUid(row.involvedUid())
        .endInvolvedObject()
        .withReason(row.reason())
        .withMessage(row.message())
        .withType(row.type())
        .withCount(row.count())
        .withFirstTimestamp(time)
        .withLastTimestamp(KubeJson.timestamp(row.lastTime()))
        .withNewEventTime(MICRO_TIME.format(row.eventTime()))
        .withNewSource().withComponent("statefulset-controller").endSource()
        .withReportingComponent("ordinal")
        .build();
  }
}
