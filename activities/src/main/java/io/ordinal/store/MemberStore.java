package io.ordinal.store;

import io.micronaut.jdbc.DataSourceResolver;
import jakarta.inject.Singleton;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/** The members of sets with membership hooks (table {@code set_members}). Every write is idempotent. */
@Singleton
public class MemberStore {
  private final DataSource dataSource;

  public MemberStore(DataSource dataSource, DataSourceResolver resolver) {
    this.dataSource = resolver.resolve(dataSource); // plain auto-commit statements, outside any transaction
  }

  public List<Integer> ordinals(String namespace, String setName) {
    List<Integer> ordinals = new ArrayList<>();
    try (Connection c = dataSource.getConnection();
        PreparedStatement s = c.prepareStatement(
            "SELECT ordinal FROM set_members WHERE namespace = ? AND set_name = ? ORDER BY ordinal")) {
      s.setString(1, namespace);
      s.setString(2, setName);
      try (var rows = s.executeQuery()) {
        while (rows.next()) {
          ordinals.add(rows.getInt(1));
        }
      }
      return ordinals;
    } catch (SQLException e) {
      throw new IllegalStateException("could not read the members of " + namespace + "/" + setName, e);
    }
  }

  public void join(String namespace, String setName, int ordinal) {
    update("INSERT INTO set_members (namespace, set_name, ordinal, joined_at) VALUES (?, ?, ?, ?)"
        + " ON CONFLICT DO NOTHING", namespace, setName, ordinal, Timestamp.from(Instant.now()));
  }

  public void leave(String namespace, String setName, int ordinal) {
    update("DELETE FROM set_members WHERE namespace = ? AND set_name = ? AND ordinal = ?", namespace, setName, ordinal);
  }

  /** The set is gone: its members, and the hooks of theirs still waited on. */
  public void forget(String namespace, String setName) {
    update("DELETE FROM set_members WHERE namespace = ? AND set_name = ?", namespace, setName);
    update("DELETE FROM member_hook_waits WHERE namespace = ? AND set_name = ?", namespace, setName);
  }

  /** Runs {@code sql} with {@code parameters}, the namespace and the set's name first. */
  private void update(String sql, String namespace, String setName, Object... parameters) {
    try (Connection c = dataSource.getConnection(); PreparedStatement s = c.prepareStatement(sql)) {
      s.setString(1, namespace);
      s.setString(2, setName);
      for (int i = 0; i < parameters.length; i++) {
        s.setObject(3 + i, parameters[i]);
      }
      s.executeUpdate();
    } catch (SQLException e) {
      throw new IllegalStateException("could not update the members of " + namespace + "/" + setName, e);
    }
  }
}
