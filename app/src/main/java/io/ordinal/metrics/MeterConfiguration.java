package io.ordinal.metrics;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.distribution.DistributionStatisticConfig;
import io.micronaut.context.annotation.Bean;
import io.micronaut.context.annotation.Factory;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;

/**
 * How Ordinal's meters are exported: its latencies as Prometheus histograms with these fixed buckets
 * only (aggregatable across instances, unlike client-side percentiles; the SDK's reporter asks every
 * timer for Micrometer's ~70 default buckets, which stay on its own {@code temporal_*} timers), and
 * help texts for the meters workflows record through the SDK's metrics scope, which has none.
 */
@Factory
public class MeterConfiguration {
  private static final double[] API_SECONDS = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30};
  private static final double[] STEP_SECONDS = {0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60};
  private static final double[] OPERATION_SECONDS = {0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600};
  static final Map<String, double[]> BUCKETS = Map.of(
      "ordinal.api.request.duration", API_SECONDS,
      "ordinal_step_latency", STEP_SECONDS,
      "ordinal_operation_duration", OPERATION_SECONDS);
  /** The meters of io.ordinal.workflow.OperationMetrics, by the names the workflows give them. */
  static final Map<String, String> WORKFLOW_METERS = Map.of(
      "ordinal_operations_started", "Operations (scale, rollout, rollback, repair, delete) started, by set",
      "ordinal_operations_completed", "Operations that ended, by set and result (converged, superseded, deleted, gone, cancelled)",
      "ordinal_operations_failed", "Operations whose workflow failed, by set",
      "ordinal_operation_duration", "Time from an operation's start to its end, by result",
      "ordinal_step_latency", "Time from a pod becoming available (Ready for minReadySeconds) to the workflow task that acts next",
      "ordinal_automatic_rollbacks", "Rollouts rolled back automatically after their progress deadline",
      "ordinal_rollout_deadlines_exceeded", "Rollouts that passed their progress deadline (ProgressDeadlineExceeded)",
      "ordinal_forced_pod_replacements", "Unhealthy pods on a revision that is no longer theirs, replaced instead of waited on");

  @Bean
  MeterFilter ordinalHistograms() {
    return new MeterFilter() {
      @Override
      public DistributionStatisticConfig configure(Meter.Id id, DistributionStatisticConfig config) {
        double[] seconds = BUCKETS.get(id.getName());
        if (seconds == null || id.getType() != Meter.Type.TIMER) {
          return config;
        }
        // A timer's bucket bounds are in nanoseconds.
        double[] nanos = Arrays.stream(seconds).map(s -> Duration.ofMillis(Math.round(s * 1000)).toNanos()).toArray();
        return DistributionStatisticConfig.builder().percentilesHistogram(false).serviceLevelObjectives(nanos).build()
            .merge(config);
      }
    };
  }

  /**
   * The SDK tags an update's client requests with {@code update_name}, a key its other requests lack;
   * Prometheus wants one set of keys per name, so those meters were refused (a warning, and the update
   * requests uncounted). Without the key, they count with the rest, by operation.
   */
  @Bean
  MeterFilter temporalUpdateName() {
    return MeterFilter.ignoreTags("update_name");
  }

  @Bean
  MeterFilter workflowMeterDescriptions() {
    return new MeterFilter() {
      @Override
      public Meter.Id map(Meter.Id id) {
        String description = WORKFLOW_METERS.get(id.getName());
        return description == null || id.getDescription() != null ? id
            : new Meter.Id(id.getName(), Tags.of(id.getTagsAsIterable()), id.getBaseUnit(), description, id.getType());
      }
    };
  }
}
