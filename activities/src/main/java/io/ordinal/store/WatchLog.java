package io.ordinal.store;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.module.SimpleModule;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.micronaut.data.exceptions.DataAccessException;
import io.micronaut.jdbc.DataSourceResolver;
import jakarta.inject.Singleton;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The watch log (written by triggers, see V4__watch_log.sql): every change of an API object in
 * resourceVersion order, read back as the objects clients see.
 */
@Singleton
public class WatchLog {
  /** The channel the triggers notify on each change (delivered at commit). */
  public static final String CHANNEL = "watch_log";
  private static final Logger log = LoggerFactory.getLogger(WatchLog.class);

  /** A change: the object as it was right after it (right before it, for DELETED). */
  public record Change(long resourceVersion, String resource, String namespace, String name, String type,
      HasMetadata object) {}

  /** Rows as PostgreSQL's to_jsonb writes them: snake_case columns, timestamps with an offset. */
  private static final ObjectMapper ROWS = JsonMapper.builder()
      .propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
      .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
      .addModule(new SimpleModule().addDeserializer(Instant.class, new JsonDeserializer<>() {
        @Override
        public Instant deserialize(JsonParser parser, DeserializationContext context) throws IOException {
          return OffsetDateTime.parse(parser.getValueAsString()).toInstant();
        }
      }))
      .build();

  /** The advisory lock every writer of API objects holds from its first write to its commit (V4__watch_log.sql). */
  static final long WRITERS_LOCK = 7305620;
  private final DataSource dataSource;
  private final ObjectStore objects;

  public WatchLog(DataSource dataSource, DataSourceResolver resolver, ObjectStore objects) {
    this.objects = objects;
    // The pool itself: these reads and the LISTEN connection live outside any transaction.
    this.dataSource = resolver.resolve(dataSource);
  }

  /** Up to {@code limit} changes after {@code resourceVersion}, oldest first. */
  public List<Change> since(long resourceVersion, int limit) {
    try (Connection connection = dataSource.getConnection();
         PreparedStatement query = connection.prepareStatement("""
             SELECT resource_version, resource, namespace, name, type, row::text FROM watch_log
             WHERE resource_version > ? ORDER BY resource_version LIMIT ?""")) {
      query.setLong(1, resourceVersion);
      query.setInt(2, limit);
      List<Change> changes = new ArrayList<>();
      try (ResultSet rows = query.executeQuery()) {
        while (rows.next()) {
          HasMetadata object;
          try {
            object = toObject(rows.getString(2), rows.getString(6), rows.getLong(1));
          } catch (SealedException e) {
            // One Secret this instance cannot open (its key file lacks the key) must not stop every
            // watch and the authorizer's feed: the change is skipped here, and said.
            log.error("watch log entry {} skipped: {}", rows.getLong(1), e.getMessage());
            continue;
          }
          changes.add(new Change(rows.getLong(1), rows.getString(2), rows.getString(3), rows.getString(4),
              rows.getString(5), object));
        }
      }
      return changes;
    } catch (SQLException e) {
      throw new DataAccessException("the watch log could not be read or written", e);
    }
  }

  /** The newest committed resourceVersion, and the oldest one a watch can still resume from. */
  public record Versions(long current, long compacted) {}

  public Versions versions() {
    try (Connection connection = dataSource.getConnection();
         PreparedStatement query = connection.prepareStatement("""
             SELECT GREATEST((SELECT max(resource_version) FROM watch_log), c.resource_version), c.resource_version
             FROM watch_compaction c""");
         ResultSet rows = query.executeQuery()) {
      rows.next();
      return new Versions(rows.getLong(1), rows.getLong(2));
    } catch (SQLException e) {
      throw new DataAccessException("the watch log could not be read or written", e);
    }
  }

  /** Drops the entries logged before {@code before}; returns how many. */
  public int compact(Instant before) {
    try (Connection connection = dataSource.getConnection();
         PreparedStatement query = connection.prepareStatement("""
             WITH dropped AS (DELETE FROM watch_log WHERE logged_at < ? RETURNING resource_version)
             UPDATE watch_compaction SET resource_version = GREATEST(resource_version,
               (SELECT max(resource_version) FROM dropped))
             WHERE EXISTS (SELECT 1 FROM dropped)""")) {
      query.setObject(1, before.atOffset(ZoneOffset.UTC));
      return query.executeUpdate();
    } catch (SQLException e) {
      throw new DataAccessException("the watch log could not be read or written", e);
    }
  }

  /** A connection of its own for LISTEN, held by the caller while it waits for notifications. */
  public Connection listen() throws SQLException {
    Connection connection = dataSource.getConnection();
    try (var statement = connection.createStatement()) {
      statement.execute("LISTEN " + CHANNEL);
    }
    return connection;
  }

  private HasMetadata toObject(String resource, String row, long resourceVersion) {
    try {
      HasMetadata object = switch (resource) {
        case "statefulsets" -> StatefulSetStore.toObject(ROWS.readValue(row, StatefulSetRow.class));
        case "pods" -> PodStore.toObject(ROWS.readValue(row, PodRow.class));
        case "persistent_volume_claims" -> PodStore.toObject(ROWS.readValue(row, PvcRow.class));
        case "controller_revisions" -> RevisionStore.toObject(ROWS.readValue(row, ControllerRevisionRow.class),
            ROWS.readTree(row).path("set_uid").asText(null));
        case "events" -> EventRecorder.toObject(ROWS.readValue(row, EventRow.class));
        case "namespaces" -> NamespaceStore.toObject(ROWS.readValue(row, NamespaceRow.class));
        default -> objects.fromWatchRow(ObjectTable.ofTable(resource)
            .orElseThrow(() -> new IllegalStateException("no API object is stored in " + resource)), ROWS.readTree(row));
      };
      // A deletion has a resourceVersion of its own, as upstream's DELETED events do.
      object.getMetadata().setResourceVersion(Long.toString(resourceVersion));
      return object;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
