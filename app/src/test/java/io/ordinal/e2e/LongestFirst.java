package io.ordinal.e2e;

import java.util.Comparator;
import java.util.Map;
import org.junit.jupiter.api.ClassDescriptor;
import org.junit.jupiter.api.ClassOrderer;
import org.junit.jupiter.api.ClassOrdererContext;

/**
 * The order in which the end-to-end classes are handed to JUnit's parallel executor (app/pom.xml
 * names it): the longest first, so that no two-minute class starts last and runs on alone after
 * the rest are done. The executor's other threads take classes from the front of the list, its
 * first from the back, so the short ones fill in beside the long ones. Only an order: a class
 * missing here runs all the same, among the short ones.
 */
public class LongestFirst implements ClassOrderer {
  /**
   * Seconds each class took in a run of the whole suite one class at a time (-Dordinal.it.parallelism=1)
   * on this project's 2-core machine, beside another engineer's run of the suite.
   */
  private static final Map<String, Integer> SECONDS = Map.ofEntries(
      Map.entry("CrashRecoveryIT", 282), Map.entry("KubernetesIT", 179), Map.entry("EtcdExampleIT", 166),
      Map.entry("FaultInjectionIT", 120), Map.entry("LocalDriverIT", 118), Map.entry("MultiInstanceIT", 95),
      Map.entry("LauncherFallbackIT", 91), Map.entry("SecurityIT", 88), Map.entry("SideBySideIT", 76),
      Map.entry("FanOutBenchmarkIT", 73), Map.entry("WebUiScreenshotsIT", 65), Map.entry("WarmStartBenchmarkIT", 60),
      Map.entry("ApiFuzzIT", 55), Map.entry("LargeSetIT", 53), Map.entry("KubectlIT", 52),
      Map.entry("UpstreamBenchmarkIT", 47), Map.entry("LifecycleIT", 44), Map.entry("LargeSetBenchmarkIT", 42),
      Map.entry("WatchIT", 32), Map.entry("RolloutControlIT", 30), Map.entry("LocalReadinessBenchmarkIT", 29),
      Map.entry("RedisExampleIT", 27), Map.entry("RolloutIT", 26), Map.entry("ScaleIT", 23),
      Map.entry("TransportSecurityIT", 23), Map.entry("RbacIT", 22));

  @Override
  public void orderClasses(ClassOrdererContext context) {
    Comparator<ClassDescriptor> longest = Comparator.comparingInt(
        (ClassDescriptor d) -> SECONDS.getOrDefault(d.getTestClass().getSimpleName(), 0)).reversed();
    context.getClassDescriptors().sort(longest.thenComparing(d -> d.getTestClass().getSimpleName()));
  }
}
