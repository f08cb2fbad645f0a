package io.ordinal.driver.local;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.inject.Singleton;

/**
 * What the local driver's kubelet work counts: failed probe runs and container restarts, by set
 * (a set's pods share its labels, so the series are as many as the sets, not the pods).
 */
@Singleton
public class LocalPodMetrics {
  private final MeterRegistry registry;

  public LocalPodMetrics(MeterRegistry registry) {
    this.registry = registry;
  }

  /** One run of a probe ({@code startup}, {@code liveness}, {@code readiness}) failed. */
  void probeFailed(String namespace, String set, String probe) {
    Counter.builder("ordinal.local.probe.failures").description("Failed probe runs of local-driver containers")
        .tags("namespace", namespace, "statefulset", set, "probe", probe).register(registry).increment();
  }

  /** A container of the set's pods exited and will be started again (restartPolicy Always). */
  void containerRestarted(String namespace, String set) {
    Counter.builder("ordinal.local.container.restarts").description("Exits of local-driver containers, each followed by a restart")
        .tags("namespace", namespace, "statefulset", set).register(registry).increment();
  }
}
