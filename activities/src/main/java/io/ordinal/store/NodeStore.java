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
   * {@code ordinal.io/node}, then their pods ({@code spec.nodeName}) and claims
   * ({@code volume.kubernetes.io/selected-node}) on their set's node (pods and claims whose set is gone,
   * on {@code node}). One transaction under a lock: the first instance to start after the upgrade
   * takes them all (start that one first: it must be the machine their processes ran on), the
   * others find nothing left. Returns the rows placed.
   */
  public int adoptUnplaced(String node, List<String> nodeBoundDrivers, String defaultDriver) {
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      try (PreparedStatement lock = c.prepareStatement("SELECT pg_advisory_xact_lock(hashtext('nodes: adopt unplaced'))");
          PreparedStatement sets = c.prepareStatement("""
              UPDATE statefulsets SET object = jsonb_set(object::jsonb, '{metadata,annotations}',
                  CASE WHEN jsonb_typeof(object::jsonb #> '{metadata,annotations}') = 'object'
                       THEN object::jsonb #> '{metadata,annotations}' ELSE '{}'::jsonb END
                    || jsonb_build_object('ordinal.io/node', ?::text))::text
              WHERE coalesce(object::jsonb #>> '{metadata,annotations,ordinal.io/driver}', ?) = ANY(?)
                AND object::jsonb #>> '{metadata,annotations,ordinal.io/node}' IS NULL""");
          PreparedStatement pods = c.prepareStatement("""
              UPDATE pods p SET object = jsonb_set(p.object::jsonb, '{spec,nodeName}', to_jsonb(coalesce(
                  (SELECT s.object::jsonb #>> '{metadata,annotations,ordinal.io/node}' FROM statefulsets s
                   WHERE s.namespace = p.namespace AND s.name = p.set_name), ?::text)))::text
              WHERE p.driver = ANY(?) AND p.object::jsonb #>> '{spec,nodeName}' IS NULL""");
          PreparedStatement claims = c.prepareStatement("""
              UPDATE persistent_volume_claims v SET object = jsonb_set(v.object::jsonb, '{metadata,annotations}',
                  CASE WHEN jsonb_typeof(v.object::jsonb #> '{metadata,annotations}') = 'object'
                       THEN v.object::jsonb #> '{metadata,annotations}' ELSE '{}'::jsonb END
                    || jsonb_build_object('volume.kubernetes.io/selected-node', coalesce(
                      (SELECT s.object::jsonb #>> '{metadata,annotations,ordinal.io/node}' FROM statefulsets s
                       WHERE s.namespace = v.namespace AND s.name = v.set_name), ?::text)))::text
              WHERE v.object::jsonb #>> '{metadata,annotations,volume.kubernetes.io/selected-node}' IS NULL
                AND coalesce((SELECT coalesce(s.object::jsonb #>> '{metadata,annotations,ordinal.io/driver}', ?)
                              FROM statefulsets s WHERE s.namespace = v.namespace AND s.name = v.set_name), ?) = ANY(?)""")) {
        var drivers = c.createArrayOf("text", nodeBoundDrivers.toArray());
        lock.execute();
        sets.setString(1, node);
        sets.setString(2, defaultDriver);
        sets.setArray(3, drivers);
        pods.setString(1, node);
        pods.setArray(2, drivers);
        claims.setString(1, node);
        claims.setString(2, defaultDriver);
        claims.setString(3, defaultDriver);
        claims.setArray(4, drivers);
        int placed = sets.executeUpdate() + pods.executeUpdate() + claims.executeUpdate();
        c.commit();
        return placed;
      } catch (SQLException e) {
        c.rollback();
        throw e;
      }
    } catch (SQLException e) {
      throw new IllegalStateException("could not place the sets, pods and claims made before nodes on " + node, e);
    }
  }

  public Optional<String> address(String name) {
    return Optional.ofNullable(all().get(name));
  }
}
