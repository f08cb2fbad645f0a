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
  /** Seconds each class took in a run of the whole suite, one class at a time, on 2 cores. */
  private static final Map<String, Integer> SECONDS = Map.ofEntries(
      Map.entry("CrashRecoveryIT", 154), Map.entry("EtcdExampleIT", 135), Map.entry("KubernetesIT", 127),
      Map.entry("SecurityIT", 100), Map.entry("LocalDriverIT", 91), Map.entry("FaultInjectionIT", 89),
      Map.entry("LauncherFallbackIT", 78), Map.entry("MultiInstanceIT", 70), Map.entry("ApiFuzzIT", 64),
      Map.entry("KubectlIT", 55), Map.entry("SideBySideIT", 48), Map.entry("LargeSetIT", 47),
      Map.entry("WebUiScreenshotsIT", 44), Map.entry("LifecycleIT", 32));

  @Override
  public void orderClasses(ClassOrdererContext context) {
    Comparator<ClassDescriptor> longest = Comparator.comparingInt(
        (ClassDescriptor d) -> SECONDS.getOrDefault(d.getTestClass().getSimpleName(), 0)).reversed();
    context.getClassDescriptors().sort(longest.thenComparing(d -> d.getTestClass().getSimpleName()));
  }
}
