package io.ordinal.store;

import io.micronaut.jdbc.DataSourceResolver;
import jakarta.inject.Singleton;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;

/**
 * Everything stored per namespace, for the namespace controller: what is left in one, and the last
 * step of its deletion. Sets, pods and claims go through their own deletions (processes to stop,
 * volumes to remove); what those leave, and the objects that are rows only, go here, with the
 * namespace's row, in one transaction.
 */
@Singleton
public class NamespaceContents {
  /** The tables of objects that need their own deletion; the namespace is finished only once they hold none. */
  public static final List<String> DELETED_BY_THEIR_CONTROLLERS = List.of("statefulsets", "pods", "persistent_volume_claims");
  /** The tables of rows only, deleted with the namespace. */
  public static final List<String> DELETED_WITH_THE_NAMESPACE = List.of("controller_revisions", "events", "roles",
      "role_bindings", "config_maps", "secrets", "service_accounts", "services", "service_cluster_ips", "endpoint_slices",
      "pod_addresses", "set_members", "member_hook_waits", "controller_outbox");
  /**
   * Every table with a namespace column, but the watch log (history: the deletions are written to it)
   * and the cluster-scoped RBAC tables (namespace '', never a namespace's name). NamespaceDeletionIT
   * checks this list against the schema, so a new table cannot be forgotten here.
   */
  public static final List<String> TABLES = java.util.stream.Stream.concat(DELETED_BY_THEIR_CONTROLLERS.stream(),
      DELETED_WITH_THE_NAMESPACE.stream()).toList();

  private final DataSource dataSource;

  public NamespaceContents(DataSource dataSource, DataSourceResolver resolver) {
    this.dataSource = resolver.resolve(dataSource); // plain statements, outside any transaction of the caller's
  }

  /** How many rows each table still holds for {@code namespace}: only those that hold any. */
  public Map<String, Long> remaining(String namespace) {
    String sql = String.join(" UNION ALL ", TABLES.stream()
        .map(table -> "SELECT '" + table + "', count(*) FROM " + table + " WHERE namespace = ?").toList());
    try (Connection c = dataSource.getConnection(); PreparedStatement q = c.prepareStatement(sql)) {
      for (int i = 1; i <= TABLES.size(); i++) {
        q.setString(i, namespace);
      }
      Map<String, Long> remaining = new LinkedHashMap<>();
      try (ResultSet rows = q.executeQuery()) {
        while (rows.next()) {
          if (rows.getLong(2) > 0) {
            remaining.put(rows.getString(1), rows.getLong(2));
          }
        }
      }
      return remaining;
    } catch (SQLException e) {
      throw new IllegalStateException("could not count what namespace " + namespace + " holds", e);
    }
  }

  /**
   * Deletes the namespace's row and every row of {@link #DELETED_WITH_THE_NAMESPACE} in it, together;
   * false (nothing done) while a set, pod or claim is still there.
   */
  public boolean finish(String namespace) {
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      try {
        for (String table : DELETED_BY_THEIR_CONTROLLERS) {
          try (PreparedStatement q = c.prepareStatement("SELECT 1 FROM " + table + " WHERE namespace = ? LIMIT 1")) {
            q.setString(1, namespace);
            try (ResultSet rows = q.executeQuery()) {
              if (rows.next()) {
                c.rollback();
                return false;
              }
            }
          }
        }
        for (String table : DELETED_WITH_THE_NAMESPACE) {
          delete(c, "DELETE FROM " + table + " WHERE namespace = ?", namespace);
        }
        delete(c, "DELETE FROM namespaces WHERE name = ?", namespace);
        c.commit();
        return true;
      } catch (SQLException | RuntimeException e) {
        c.rollback();
        throw e;
      }
    } catch (SQLException e) {
      throw new IllegalStateException("could not finish the deletion of namespace " + namespace, e);
    }
  }

  private static void delete(Connection c, String sql, String namespace) throws SQLException {
    try (PreparedStatement q = c.prepareStatement(sql)) {
      q.setString(1, namespace);
      q.executeUpdate();
    }
  }
}
