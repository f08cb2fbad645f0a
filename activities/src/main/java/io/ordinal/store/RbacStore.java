package io.ordinal.store;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
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
 * The RBAC objects (V6__rbac.sql): one table per kind, the object kept whole as JSON; uid,
 * creationTimestamp and resourceVersion come from the row, so what a client sends for them is never
 * stored. Writes are single statements (each its own transaction); an update or delete only happens
 * when the stored resourceVersion is the one the caller read (optimistic concurrency).
 */
@Singleton
public class RbacStore {

  /** The four kinds and their tables. */
  public enum Kind {
    ROLE("roles", "Role", Role.class, true),
    ROLE_BINDING("role_bindings", "RoleBinding", RoleBinding.class, true),
    CLUSTER_ROLE("cluster_roles", "ClusterRole", ClusterRole.class, false),
    CLUSTER_ROLE_BINDING("cluster_role_bindings", "ClusterRoleBinding", ClusterRoleBinding.class, false);

    public final String table;
    public final String kind;
    public final Class<? extends HasMetadata> type;
    public final boolean namespaced;

    Kind(String table, String kind, Class<? extends HasMetadata> type, boolean namespaced) {
      this.table = table;
      this.kind = kind;
      this.type = type;
      this.namespaced = namespaced;
    }

    public static Optional<Kind> ofTable(String table) {
      for (Kind k : values()) {
        if (k.table.equals(table)) {
          return Optional.of(k);
        }
      }
      return Optional.empty();
    }
  }

  private final DataSource dataSource;

  public RbacStore(DataSource dataSource, DataSourceResolver resolver) {
    // The pool itself: every statement here is its own transaction.
    this.dataSource = resolver.resolve(dataSource);
  }

  /** The objects of {@code kind} in {@code namespace} (every namespace when null), by namespace and name. */
  public <T extends HasMetadata> List<T> list(Kind kind, Class<T> type, String namespace) {
    String sql = "SELECT namespace, name, uid, created_at, object, resource_version FROM " + kind.table
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

  public <T extends HasMetadata> Optional<T> find(Kind kind, Class<T> type, String namespace, String name) {
    String sql = "SELECT namespace, name, uid, created_at, object, resource_version FROM " + kind.table
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
  public <T extends HasMetadata> T create(Kind kind, T object, Instant now) {
    String namespace = namespace(kind, object);
    String uid = UUID.randomUUID().toString();
    String sql = "INSERT INTO " + kind.table + " (namespace, name, uid, created_at, object) VALUES (?, ?, ?, ?, ?)"
        + " ON CONFLICT DO NOTHING RETURNING resource_version";
    try (Connection c = dataSource.getConnection(); PreparedStatement q = c.prepareStatement(sql)) {
      q.setString(1, namespace);
      q.setString(2, object.getMetadata().getName());
      q.setString(3, uid);
      q.setTimestamp(4, Timestamp.from(now));
      q.setString(5, stored(object));
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
  public <T extends HasMetadata> T update(Kind kind, T object, long expected) {
    String namespace = namespace(kind, object);
    String name = object.getMetadata().getName();
    String sql = "UPDATE " + kind.table + " SET object = ? WHERE namespace = ? AND name = ? AND resource_version = ?"
        + " RETURNING uid, created_at, resource_version";
    try (Connection c = dataSource.getConnection(); PreparedStatement q = c.prepareStatement(sql)) {
      q.setString(1, stored(object));
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
  public void delete(Kind kind, String namespace, String name, long expected) {
    String sql = "DELETE FROM " + kind.table + " WHERE namespace = ? AND name = ? AND resource_version = ?";
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

  /** The object a watch_log row (the table row as to_jsonb writes it) stands for. */
  static HasMetadata fromWatchRow(Kind kind, JsonNode row) {
    HasMetadata object = KubeJson.read(row.path("object").asText(), kind.type);
    return withRow(object, row.path("namespace").asText(), row.path("uid").asText(),
        OffsetDateTime.parse(row.path("created_at").asText()).toInstant(), row.path("resource_version").asLong());
  }

  private StoreException missingOrChanged(Kind kind, String namespace, String name) {
    boolean exists = find(kind, kind.type, namespace, name).isPresent();
    return new StoreException(exists ? StoreException.Reason.CONFLICT : StoreException.Reason.NOT_FOUND, name);
  }

  private static String namespace(Kind kind, HasMetadata object) {
    String namespace = object.getMetadata().getNamespace();
    return kind.namespaced ? namespace : "";
  }

  /** The object as stored: without what the row's columns hold. */
  private static String stored(HasMetadata object) {
    HasMetadata copy = KubeJson.read(KubeJson.write(object), object.getClass());
    copy.getMetadata().setUid(null);
    copy.getMetadata().setResourceVersion(null);
    copy.getMetadata().setCreationTimestamp(null);
    return KubeJson.write(copy);
  }

  private static HasMetadata object(Kind kind, ResultSet rows) throws SQLException {
    HasMetadata object = KubeJson.read(rows.getString(5), kind.type);
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

  private static DataAccessException failed(SQLException e) {
    return new DataAccessException("the RBAC objects could not be read or written", e);
  }
}
