package io.ordinal.store;

import io.micronaut.jdbc.DataSourceResolver;
import jakarta.inject.Singleton;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * The asynchronous hooks waited on (table {@code member_hook_waits}): accepted by the hook, completed
 * by the member's report through the API. One row per member and hook at a time.
 */
@Singleton
public class HookWaitStore {
  /**
   * A hook's wait.
   *
   * @param succeeded null while no completion was reported
   */
  public record Wait(String pod, String hook, String workflowId, Instant acceptedAt, Instant deadline, Instant completedAt,
      Boolean succeeded, String message) {
    public boolean completed() {
      return completedAt != null;
    }
  }

  private final DataSource dataSource;

  public HookWaitStore(DataSource dataSource, DataSourceResolver resolver) {
    this.dataSource = resolver.resolve(dataSource); // plain auto-commit statements, outside any transaction
  }

  public Optional<Wait> find(String namespace, String setName, String pod, String hook) {
    try (Connection c = dataSource.getConnection(); PreparedStatement s = c.prepareStatement(
        "SELECT * FROM member_hook_waits WHERE namespace = ? AND set_name = ? AND pod_name = ? AND hook = ?")) {
      s.setString(1, namespace);
      s.setString(2, setName);
      s.setString(3, pod);
      s.setString(4, hook);
      try (ResultSet row = s.executeQuery()) {
        return row.next() ? Optional.of(wait(row)) : Optional.empty();
      }
    } catch (SQLException e) {
      throw new IllegalStateException("could not read the hook waits of " + namespace + "/" + setName, e);
    }
  }

  /** The hook of the member still waiting for its completion (the newest, should there be two), if any. */
  public Optional<Wait> pending(String namespace, String setName, String pod) {
    try (Connection c = dataSource.getConnection(); PreparedStatement s = c.prepareStatement(
        "SELECT * FROM member_hook_waits WHERE namespace = ? AND set_name = ? AND pod_name = ? AND completed_at IS NULL"
            + " ORDER BY accepted_at DESC LIMIT 1")) {
      s.setString(1, namespace);
      s.setString(2, setName);
      s.setString(3, pod);
      try (ResultSet row = s.executeQuery()) {
        return row.next() ? Optional.of(wait(row)) : Optional.empty();
      }
    } catch (SQLException e) {
      throw new IllegalStateException("could not read the hook waits of " + namespace + "/" + setName, e);
    }
  }

  /**
   * Records that the hook accepted in operation {@code workflowId}; a wait already there (an earlier
   * operation's, or one a crash left) is replaced.
   */
  public void accept(String namespace, String setName, String pod, String hook, String workflowId, Instant deadline) {
    update("INSERT INTO member_hook_waits (namespace, set_name, pod_name, hook, workflow_id, accepted_at, deadline)"
        + " VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (namespace, set_name, pod_name, hook) DO UPDATE SET"
        + " workflow_id = EXCLUDED.workflow_id, accepted_at = EXCLUDED.accepted_at, deadline = EXCLUDED.deadline,"
        + " completed_at = NULL, succeeded = NULL, message = NULL",
        namespace, setName, pod, hook, workflowId, Timestamp.from(Instant.now()), Timestamp.from(deadline));
  }

  /** Reports the completion of the member's waiting {@code hook}; false when it no longer waits. */
  public boolean complete(String namespace, String setName, String pod, String hook, boolean succeeded, String message) {
    return update("UPDATE member_hook_waits SET completed_at = ?, succeeded = ?, message = ?"
        + " WHERE namespace = ? AND set_name = ? AND pod_name = ? AND hook = ? AND completed_at IS NULL",
        Timestamp.from(Instant.now()), succeeded, message, namespace, setName, pod, hook) > 0;
  }

  /** The wait is over (taken by the hook, or abandoned). */
  public void forget(String namespace, String setName, String pod, String hook) {
    update("DELETE FROM member_hook_waits WHERE namespace = ? AND set_name = ? AND pod_name = ? AND hook = ?",
        namespace, setName, pod, hook);
  }

  private static Wait wait(ResultSet row) throws SQLException {
    Timestamp completed = row.getTimestamp("completed_at");
    return new Wait(row.getString("pod_name"), row.getString("hook"), row.getString("workflow_id"),
        row.getTimestamp("accepted_at").toInstant(),
        row.getTimestamp("deadline").toInstant(), completed == null ? null : completed.toInstant(),
        (Boolean) row.getObject("succeeded"), row.getString("message"));
  }

  private int update(String sql, Object... parameters) {
    try (Connection c = dataSource.getConnection(); PreparedStatement s = c.prepareStatement(sql)) {
      for (int i = 0; i < parameters.length; i++) {
        s.setObject(1 + i, parameters[i]);
      }
      return s.executeUpdate();
    } catch (SQLException e) {
      throw new IllegalStateException("could not update the hook waits", e);
    }
  }
}
