package io.ordinal.e2e;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.ClassDescriptor;
import org.junit.jupiter.api.ClassOrderer;
import org.junit.jupiter.api.ClassOrdererContext;

/**
 * The order in which the end-to-end classes are handed to JUnit's parallel executor (app/pom.xml
 * names it), so that the long classes start first and no long one starts last, to run on alone
 * after the rest are done. The executor's thread that lists the classes runs them from the back of
 * the list; its other threads take them from the front. So the front holds the long classes for
 * those threads, longest first, the back those for the listing thread, longest last, each part a
 * share of the work in proportion to its threads: the short classes meet in the middle, last.
 * Only an order: a class missing here runs all the same, among the short ones.
 */
public class LongestFirst implements ClassOrderer {
  /**
   * Seconds each class took in a run of the whole suite one class at a time (-Dordinal.it.parallelism=1)
   * on this project's 2-core machine, beside another engineer's run of the suite: its time, or its
   * CPU time where that was more (a class busy on both cores takes longer beside others).
   */
  private static final Map<String, Integer> SECONDS = Map.ofEntries(
      Map.entry("CrashRecoveryIT", 282), Map.entry("KubernetesIT", 215), Map.entry("EtcdExampleIT", 166),
      // ApiFuzzIT and ServicesIT as measured beside one other class (they came after that run).
      Map.entry("ApiFuzzIT", 146), Map.entry("ServicesIT", 60), Map.entry("ConfigAndSecretsIT", 10),
      Map.entry("HelmIT", 60), Map.entry("LocalServicesIT", 60), Map.entry("WebUiCodecIT", 45),
      Map.entry("ConfigVolumesIT", 60), Map.entry("ReservedOrdinalsIT", 97), Map.entry("ParallelConcurrencyIT", 15), Map.entry("RolesIT", 35), Map.entry("AsyncHooksIT", 63), Map.entry("InPlaceUpdateIT", 96),
      Map.entry("FaultInjectionIT", 120), Map.entry("LocalDriverIT", 118), Map.entry("MultiInstanceIT", 95),
      Map.entry("LauncherFallbackIT", 91), Map.entry("TwoInstallationsIT", 120), Map.entry("SecurityIT", 88), Map.entry("SideBySideIT", 76),
      Map.entry("LargeSetIT", 75), Map.entry("FanOutBenchmarkIT", 73), Map.entry("WebUiScreenshotsIT", 65),
      Map.entry("WarmStartBenchmarkIT", 60), Map.entry("KubectlIT", 52),
      Map.entry("UpstreamBenchmarkIT", 47), Map.entry("UpstreamAtScaleBenchmarkIT", 90),
      Map.entry("LifecycleIT", 44), Map.entry("LargeSetBenchmarkIT", 42),
      Map.entry("WatchIT", 38), Map.entry("RolloutControlIT", 30), Map.entry("LocalReadinessBenchmarkIT", 29),
      Map.entry("RedisExampleIT", 27), Map.entry("RolloutIT", 26), Map.entry("ScaleIT", 23),
      Map.entry("TransportSecurityIT", 23), Map.entry("TracingIT", 22), Map.entry("RbacIT", 22),
      Map.entry("EmbeddedDatabaseSecurityIT", 17), Map.entry("DeployManifestsIT", 16),
      Map.entry("StepOverheadBenchmarkIT", 15), Map.entry("LogsAndHealthIT", 15), Map.entry("AuditIT", 14),
      Map.entry("ConcurrencyIT", 13), Map.entry("WatchLatencyBenchmarkIT", 13), Map.entry("TemporalTlsIT", 12),
      Map.entry("InvalidInputIT", 12), Map.entry("TemporalClusterIT", 115), Map.entry("EventsIT", 47), Map.entry("PowerLossIT", 110), Map.entry("LostTemporalStateIT", 30), Map.entry("SoakBenchmarkIT", 80),
      // Measured alone in their own runs (they came after the suite's run above).
      Map.entry("AdoptionCrashIT", 220), Map.entry("StatefulSetControllerCrashIT", 200), Map.entry("AdoptionIT", 66),
      Map.entry("StatefulSetControllerIT", 80), Map.entry("UpgradeIT", 49), Map.entry("IncrementalObservationIT", 90));

  private static int seconds(ClassDescriptor descriptor) {
    return SECONDS.getOrDefault(descriptor.getTestClass().getSimpleName(), 5);
  }

  @Override
  public void orderClasses(ClassOrdererContext context) {
    int threads = context.getConfigurationParameter("junit.jupiter.execution.parallel.config.fixed.parallelism")
        .map(Integer::parseInt).orElse(1);
    List<ClassDescriptor> longestFirst = new ArrayList<>(context.getClassDescriptors());
    longestFirst.sort(Comparator.comparingInt(LongestFirst::seconds).reversed()
        .thenComparing(d -> d.getTestClass().getSimpleName()));
    List<ClassDescriptor> front = new ArrayList<>();
    List<ClassDescriptor> back = new ArrayList<>();
    long frontWork = 0;
    long backWork = 0;
    for (ClassDescriptor descriptor : longestFirst) {
      if (threads > 1 && backWork * (threads - 1) < frontWork) {
        back.add(descriptor);
        backWork += seconds(descriptor);
      } else {
        front.add(descriptor);
        frontWork += seconds(descriptor);
      }
    }
    Collections.reverse(back);
    List<ClassDescriptor> order = new ArrayList<>(front);
    order.addAll(back);
    context.getClassDescriptors().sort(Comparator.comparingInt(order::indexOf));
  }
}
