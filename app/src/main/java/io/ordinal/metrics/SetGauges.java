package io.ordinal.metrics;

import com.fasterxml.jackson.databind.JsonNode;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micronaut.jdbc.DataSourceResolver;
import io.ordinal.store.KubeJson;
import jakarta.inject.Singleton;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Per-set gauges, read from the database when {@code /metrics} is scraped (two grouped queries, so a
 * scrape costs the same however often sets change): desired and counted replicas as the set's status
 * says them, its pods by phase and readiness, and whether its rollout is paused or failed. Every
 * instance of a shared database reports the same values: aggregate them with {@code max by}.
 */
@Singleton
public class SetGauges {
  private static final Logger log = LoggerFactory.getLogger(SetGauges.class);
  static final int QUERY_TIMEOUT_SECONDS = 5;
  /** The status fields exported, as {@code ordinal_statefulset_status_<name>}. */
  private static final Map<String, String> STATUS_FIELDS = Map.of(
      "replicas", "replicas", "replicas_ready", "readyReplicas", "replicas_available", "availableReplicas",
      "replicas_updated", "updatedReplicas", "replicas_current", "currentReplicas");
  private static final String SETS = """
      SELECT namespace, name, object::jsonb -> 'spec' AS spec, COALESCE(status, '{}')::jsonb AS status
      FROM statefulsets WHERE deletion_timestamp IS NULL""";
  private static final String PODS = """
      SELECT namespace, set_name, phase, ready, count(*) FROM pods WHERE deletion_timestamp IS NULL
      GROUP BY namespace, set_name, phase, ready""";

  private final DataSource dataSource;
  private final MultiGauge desired;
  private final Map<String, MultiGauge> status;
  private final MultiGauge paused;
  private final MultiGauge failed;
  private final MultiGauge pods;

  public SetGauges(DataSource dataSource, DataSourceResolver resolver, MeterRegistry registry) {
    this.dataSource = resolver.resolve(dataSource);
    desired = MultiGauge.builder("ordinal.statefulset.replicas").description("spec.replicas of each StatefulSet")
        .register(registry);
    status = new TreeMap<>();
    STATUS_FIELDS.forEach((name, field) -> status.put(field, MultiGauge.builder("ordinal.statefulset.status." + name)
        .description("status." + field + " of each StatefulSet").register(registry)));
    paused = MultiGauge.builder("ordinal.statefulset.rollout.paused")
        .description("1 when the StatefulSet's rollout is paused (spec.updateStrategy.rollingUpdate.paused)").register(registry);
    failed = MultiGauge.builder("ordinal.statefulset.rollout.failed")
        .description("1 when the StatefulSet's rollout passed its progress deadline (Progressing=False)").register(registry);
    pods = MultiGauge.builder("ordinal.statefulset.pods")
        .description("Pods of each StatefulSet that are not terminating, by phase and readiness").register(registry);
  }

  /**
   * Reads the sets and pods now; series of sets that are gone disappear. When the database does not
   * answer (within {@link #QUERY_TIMEOUT_SECONDS}) the gauges keep their last values and the scrape
   * goes on: the rest of {@code /metrics} matters most during such an outage.
   */
  public void refresh() {
    try {
      read();
    } catch (SQLException | RuntimeException e) {
      log.warn("per-set gauges not refreshed: {}", e.toString());
    }
  }

  private void read() throws SQLException {
    List<MultiGauge.Row<?>> desiredRows = new ArrayList<>();
    Map<String, List<MultiGauge.Row<?>>> statusRows = new HashMap<>();
    List<MultiGauge.Row<?>> pausedRows = new ArrayList<>();
    List<MultiGauge.Row<?>> failedRows = new ArrayList<>();
    List<MultiGauge.Row<?>> podRows = new ArrayList<>();
    try (Connection c = dataSource.getConnection()) {
      c.setReadOnly(true);
      query(c, SETS, rows -> {
        Tags set = Tags.of("namespace", rows.getString(1), "statefulset", rows.getString(2));
        JsonNode spec = KubeJson.read(rows.getString(3), JsonNode.class);
        JsonNode state = KubeJson.read(rows.getString(4), JsonNode.class);
        desiredRows.add(MultiGauge.Row.of(set, spec.path("replicas").asInt(1)));
        STATUS_FIELDS.values().forEach(field ->
            statusRows.computeIfAbsent(field, f -> new ArrayList<>()).add(MultiGauge.Row.of(set, state.path(field).asInt(0))));
        pausedRows.add(MultiGauge.Row.of(set, spec.at("/updateStrategy/rollingUpdate/paused").asBoolean(false) ? 1 : 0));
        boolean stuck = false;
        for (JsonNode condition : state.path("conditions")) {
          stuck |= "Progressing".equals(condition.path("type").asText()) && "False".equals(condition.path("status").asText());
        }
        failedRows.add(MultiGauge.Row.of(set, stuck ? 1 : 0));
      });
      query(c, PODS, rows -> podRows.add(MultiGauge.Row.of(Tags.of("namespace", rows.getString(1),
          "statefulset", rows.getString(2), "phase", rows.getString(3), "ready", Boolean.toString(rows.getBoolean(4))),
          rows.getLong(5))));
    }
    desired.register(desiredRows, true);
    status.forEach((field, gauge) -> gauge.register(statusRows.getOrDefault(field, List.of()), true));
    paused.register(pausedRows, true);
    failed.register(failedRows, true);
    pods.register(podRows, true);
  }

  private interface RowReader {
    void read(ResultSet rows) throws SQLException;
  }

  private static void query(Connection c, String sql, RowReader reader) throws SQLException {
    try (PreparedStatement s = c.prepareStatement(sql)) {
      s.setQueryTimeout(QUERY_TIMEOUT_SECONDS);
      try (ResultSet rows = s.executeQuery()) {
        while (rows.next()) {
          reader.read(rows);
        }
      }
    }
  }
}
