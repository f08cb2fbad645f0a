package io.ordinal.store;

import io.micronaut.jdbc.DataSourceResolver;
import jakarta.inject.Singleton;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import javax.sql.DataSource;

/** The instances that share this database (table {@code nodes}): each registers itself at start. */
@Singleton
public class NodeStore {
  private final DataSource dataSource;

  public NodeStore(DataSource dataSource, DataSourceResolver resolver) {
    this.dataSource = resolver.resolve(dataSource); // plain auto-commit statements, outside any transaction
  }

  /** Records that {@code name} started now, reachable at {@code address} (its API's URL). */
  public void register(String name, String address) {
    try (Connection c = dataSource.getConnection();
        PreparedStatement s = c.prepareStatement("""
            INSERT INTO nodes (name, address, started_at) VALUES (?, ?, ?)
            ON CONFLICT (name) DO UPDATE SET address = EXCLUDED.address, started_at = EXCLUDED.started_at""")) {
      s.setString(1, name);
      s.setString(2, address);
      s.setTimestamp(3, Timestamp.from(Instant.now()));
      s.executeUpdate();
    } catch (SQLException e) {
      throw new IllegalStateException("could not register node " + name, e);
    }
  }

  /** Every node that ever registered, by name, with its address. */
  public SortedMap<String, String> all() {
    SortedMap<String, String> nodes = new TreeMap<>();
    try (Connection c = dataSource.getConnection();
        PreparedStatement s = c.prepareStatement("SELECT name, address FROM nodes");
        var rows = s.executeQuery()) {
      while (rows.next()) {
        nodes.put(rows.getString(1), rows.getString(2));
      }
      return nodes;
    } catch (SQLException e) {
      throw new IllegalStateException("could not read the nodes", e);
    }
  }

  /**
   * Places on {@code node} what was made before nodes existed: sets of node-bound drivers without
   * {@code ordinal.io/node} and their pods without {@code spec.nodeName}. The first instance to start
   * after the upgrade takes them (it is the one machine their processes ran on); the others find
   * nothing left, as each statement's rows are locked and re-checked. Returns the rows placed.
   */
  public int adoptUnplaced(String node, List<String> nodeBoundDrivers, String defaultDriver) {
    try (Connection c = dataSource.getConnection();
        PreparedStatement sets = c.prepareStatement("""
            UPDATE statefulsets SET object = jsonb_set(object::jsonb, '{metadata,annotations}',
                coalesce(object::jsonb #> '{metadata,annotations}', '{}'::jsonb)
                  || jsonb_build_object('ordinal.io/node', ?::text))::text
            WHERE coalesce(object::jsonb #>> '{metadata,annotations,ordinal.io/driver}', ?) = ANY(?)
              AND object::jsonb #>> '{metadata,annotations,ordinal.io/node}' IS NULL""");
        PreparedStatement pods = c.prepareStatement("""
            UPDATE pods SET object = jsonb_set(object::jsonb, '{spec,nodeName}', to_jsonb(?::text))::text
            WHERE driver = ANY(?) AND object::jsonb #>> '{spec,nodeName}' IS NULL""")) {
      var drivers = c.createArrayOf("text", nodeBoundDrivers.toArray());
      sets.setString(1, node);
      sets.setString(2, defaultDriver);
      sets.setArray(3, drivers);
      pods.setString(1, node);
      pods.setArray(2, drivers);
      return sets.executeUpdate() + pods.executeUpdate();
    } catch (SQLException e) {
      throw new IllegalStateException("could not place the sets and pods made before nodes on " + node, e);
    }
  }

  public Optional<String> address(String name) {
    return Optional.ofNullable(all().get(name));
  }
}
