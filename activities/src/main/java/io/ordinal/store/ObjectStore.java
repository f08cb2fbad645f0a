package io.ordinal.store;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.micronaut.data.exceptions.DataAccessException;
import io.micronaut.jdbc.DataSourceResolver;
import jakarta.inject.Singleton;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * The kinds kept whole as JSON ({@link ObjectTable}: RBAC objects, ConfigMaps, Secrets, Services,
 * ServiceAccounts), one table per kind; uid, creationTimestamp and resourceVersion come from the row,
 * so what a client sends for them is never stored. A sealed table's objects are encrypted
 * ({@link SecretSealer}), in the table and so in the watch log. Writes are single statements (each its own transaction); an update or delete only happens
 * when the stored resourceVersion is the one the caller read (optimistic concurrency).
 */
@Singleton
public class ObjectStore {

  private final DataSource dataSource;

  private final SecretSealer sealer;

  public ObjectStore(DataSource dataSource, DataSourceResolver resolver, SecretSealer sealer) {
    // The pool itself: every statement here is its own transaction.
    this.dataSource = resolver.resolve(dataSource);
    this.sealer = sealer;
  }

  /** The objects of {@code kind} in {@code namespace} (every namespace when null), by namespace and name. */
  public <T extends HasMetadata> List<T> list(ObjectTable kind, Class<T> type, String namespace) {
    String sql = "SELECT namespace, name, uid, created_at, object, resource_version FROM " + kind.table()
        + (namespace == null ? "" : " WHERE namespace = ?") + " ORDER BY namespace, name";
    try (Connection c = dataSource.getConnection(); PreparedStatement q = c.prepareStatement(sql)) {
      if (namespace != null) {
        q.setString(1, namespace);
      }
      List<T> objects = new ArrayList<>();
      try (ResultSet rows = q.executeQuery()) {
        while (rows.next()) {
          objects.add(type.cast(object(kind, rows)));
        }
      }
      return objects;
    } catch (SQLException e) {
      throw failed(e);
    }
  }

  /** The namespaces that hold objects of {@code kind}, without reading the objects. */
  public List<String> namespaces(ObjectTable kind) {
    String sql = "SELECT DISTINCT namespace FROM " + kind.table() + " ORDER BY namespace";
    try (Connection c = dataSource.getConnection(); PreparedStatement q = c.prepareStatement(sql);
        ResultSet rows = q.executeQuery()) {
      List<String> namespaces = new ArrayList<>();
      while (rows.next()) {
        namespaces.add(rows.getString(1));
      }
      return namespaces;
    } catch (SQLException e) {
      throw failed(e);
    }
  }

  public <T extends HasMetadata> Optional<T> find(ObjectTable kind, Class<T> type, String namespace, String name) {
    String sql = "SELECT namespace, name, uid, created_at, object, resource_version FROM " + kind.table()
        + " WHERE namespace = ? AND name = ?";
    try (Connection c = dataSource.getConnection(); PreparedStatement q = c.prepareStatement(sql)) {
      q.setString(1, namespace);
      q.setString(2, name);
      try (ResultSet rows = q.executeQuery()) {
        return rows.next() ? Optional.of(type.cast(object(kind, rows))) : Optional.empty();
      }
    } catch (SQLException e) {
      throw failed(e);
    }
  }

  /** Stores a new object; its uid, creationTimestamp and resourceVersion are set on the returned copy. */
  public <T extends HasMetadata> T create(ObjectTable kind, T object, Instant now) {
    String namespace = namespace(kind, object);
    String uid = UUID.randomUUID().toString();
    String sql = "INSERT INTO " + kind.table() + " (namespace, name, uid, created_at, object) VALUES (?, ?, ?, ?, ?)"
        + " ON CONFLICT DO NOTHING RETURNING resource_version";
    try (Connection c = dataSource.getConnection(); PreparedStatement q = c.prepareStatement(sql)) {
      q.setString(1, namespace);
      q.setString(2, object.getMetadata().getName());
      q.setString(3, uid);
      q.setTimestamp(4, Timestamp.from(now));
      q.setString(5, stored(kind, namespace, object));
      try (ResultSet rows = q.executeQuery()) {
        if (!rows.next()) {
          throw new StoreException(StoreException.Reason.ALREADY_EXISTS, object.getMetadata().getName());
        }
        return withRow(object, namespace, uid, now, rows.getLong(1));
      }
    } catch (SQLException e) {
      throw failed(e);
    }
  }

  /**
   * Replaces a stored object if its resourceVersion is still {@code expected}; CONFLICT when it
   * changed, NOT_FOUND when it is gone. uid and creationTimestamp stay.
   */
  public <T extends HasMetadata> T update(ObjectTable kind, T object, long expected) {
    String namespace = namespace(kind, object);
    String name = object.getMetadata().getName();
    String sql = "UPDATE " + kind.table() + " SET object = ? WHERE namespace = ? AND name = ? AND resource_version = ?"
        + " RETURNING uid, created_at, resource_version";
    try (Connection c = dataSource.getConnection(); PreparedStatement q = c.prepareStatement(sql)) {
      q.setString(1, stored(kind, namespace, object));
      q.setString(2, namespace);
      q.setString(3, name);
      q.setLong(4, expected);
      try (ResultSet rows = q.executeQuery()) {
        if (!rows.next()) {
          throw missingOrChanged(kind, namespace, name);
        }
        return withRow(object, namespace, rows.getString(1), rows.getTimestamp(2).toInstant(), rows.getLong(3));
      }
    } catch (SQLException e) {
      throw failed(e);
    }
  }

  /** Deletes a stored object if its resourceVersion is still {@code expected}. */
  public void delete(ObjectTable kind, String namespace, String name, long expected) {
    String sql = "DELETE FROM " + kind.table() + " WHERE namespace = ? AND name = ? AND resource_version = ?";
    try (Connection c = dataSource.getConnection(); PreparedStatement q = c.prepareStatement(sql)) {
      q.setString(1, namespace);
      q.setString(2, name);
      q.setLong(3, expected);
      if (q.executeUpdate() == 0) {
        throw missingOrChanged(kind, namespace, name);
      }
    } catch (SQLException e) {
      throw failed(e);
    }
  }

  /**
   * Seals again, with the first key, every object of a sealed table that an older key (or none)
   * sealed: after a key rotation, once on start. Each is an update of its own (a new
   * resourceVersion, as upstream's rewrite of every Secret gives); one changed meanwhile is skipped,
   * its own write sealed it. Returns how many were sealed again.
   */
  public int reseal(ObjectTable kind) {
    if (!kind.sealed()) {
      return 0;
    }
    // Only rows an older key sealed are opened: on most starts none is, and nothing is decrypted.
    String select = "SELECT namespace, name, uid, created_at, object, resource_version FROM " + kind.table();
    String update = "UPDATE " + kind.table() + " SET object = ? WHERE namespace = ? AND name = ? AND resource_version = ?"
        + " AND object = ?";
    int resealed = 0;
    try (Connection c = dataSource.getConnection(); PreparedStatement rows = c.prepareStatement(select);
        ResultSet row = rows.executeQuery(); PreparedStatement q = c.prepareStatement(update)) {
      while (row.next()) {
        String current = row.getString(5);
        if (!sealer.sealedWithOlderKey(current)) {
          continue;
        }
        HasMetadata object = object(kind, row);
        q.setString(1, stored(kind, row.getString(1), object));
        q.setString(2, row.getString(1));
        q.setString(3, row.getString(2));
        q.setLong(4, row.getLong(6));
        q.setString(5, current);
        resealed += q.executeUpdate();
      }
    } catch (SQLException e) {
      throw failed(e);
    }
    return resealed;
  }

  /** The object a watch_log row (the table row as to_jsonb writes it) stands for. */
  HasMetadata fromWatchRow(ObjectTable kind, JsonNode row) {
    HasMetadata object = KubeJson.read(opened(kind, row.path("namespace").asText(), row.path("name").asText(),
        row.path("object").asText()), kind.type());
    return withRow(object, row.path("namespace").asText(), row.path("uid").asText(),
        OffsetDateTime.parse(row.path("created_at").asText()).toInstant(), row.path("resource_version").asLong());
  }

  private String opened(ObjectTable kind, String namespace, String name, String stored) {
    return kind.sealed() ? sealer.open(stored, kind.table(), namespace, name) : stored;
  }

  private StoreException missingOrChanged(ObjectTable kind, String namespace, String name) {
    boolean exists = find(kind, kind.type(), namespace, name).isPresent();
    return new StoreException(exists ? StoreException.Reason.CONFLICT : StoreException.Reason.NOT_FOUND, name);
  }

  private static String namespace(ObjectTable kind, HasMetadata object) {
    String namespace = object.getMetadata().getNamespace();
    return kind.namespaced() ? namespace : "";
  }

  /** The object as stored: without what the row's columns hold; sealed for a sealed table. */
  private String stored(ObjectTable kind, String namespace, HasMetadata object) {
    HasMetadata copy = KubeJson.read(KubeJson.write(object), object.getClass());
    copy.getMetadata().setUid(null);
    copy.getMetadata().setResourceVersion(null);
    copy.getMetadata().setCreationTimestamp(null);
    String json = KubeJson.write(copy);
    return kind.sealed() ? sealer.seal(json, kind.table(), namespace, object.getMetadata().getName()) : json;
  }

  private HasMetadata object(ObjectTable kind, ResultSet rows) throws SQLException {
    HasMetadata object = KubeJson.read(opened(kind, rows.getString(1), rows.getString(2), rows.getString(5)), kind.type());
    return withRow(object, rows.getString(1), rows.getString(3), rows.getTimestamp(4).toInstant(), rows.getLong(6));
  }

  private static <T extends HasMetadata> T withRow(T object, String namespace, String uid, Instant created,
      long resourceVersion) {
    object.getMetadata().setNamespace(namespace.isEmpty() ? null : namespace);
    object.getMetadata().setUid(uid);
    object.getMetadata().setCreationTimestamp(KubeJson.timestamp(created));
    object.getMetadata().setResourceVersion(Long.toString(resourceVersion));
    return object;
  }

  /** A constraint of a table the object's triggers write (a Service's ClusterIP taken meanwhile): a conflict to retry. */
  private static RuntimeException failed(SQLException e) {
    if ("23505".equals(e.getSQLState())) {
      return new StoreException(StoreException.Reason.CONFLICT, "a value it holds was taken meanwhile: " + e.getMessage());
    }
    return dataAccess(e);
  }

  private static DataAccessException dataAccess(SQLException e) {
    return new DataAccessException("the objects could not be read or written", e);
  }
}
