package io.ordinal.kube;

import io.fabric8.kubernetes.api.model.ObjectMeta;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The {@code ordinal.io/parallel-concurrency} annotation of a set: under Parallel, at most this many
 * pods are on their way at once (made and not yet Running and Ready, or being deleted), so that a scale
 * of 500 members does not hit a cluster's join path with 500 at once. An integer, or a percent of
 * replicas rounded up ({@code "10"}, {@code "25%"}); without it, no limit (upstream's Parallel).
 * KubeBlocks' {@code parallelPodManagementConcurrency}; an annotation for the same reason as
 * {@link ReservedOrdinals}.
 */
public final class ParallelConcurrency {
  public static final String ANNOTATION = "ordinal.io/parallel-concurrency";
  private static final Pattern VALUE = Pattern.compile("\\s*(\\d{1,9})(%?)\\s*");

  private ParallelConcurrency() {}

  /** The limit for a set of {@code replicas}: 0 for none (no annotation, or an invalid one, refused at admission). */
  public static int resolve(ObjectMeta meta, int replicas) {
    String text = Labels.annotation(meta, ANNOTATION);
    if (text == null || problem(text) != null) {
      return 0;
    }
    Matcher m = VALUE.matcher(text);
    m.matches();
    int value = Integer.parseInt(m.group(1));
    return m.group(2).isEmpty() ? value : Math.max(1, (int) Math.ceil(value * (long) replicas / 100.0));
  }

  /** What is wrong with a value, for {@code metadata.annotations[ordinal.io/parallel-concurrency]}; null if valid. */
  public static String problem(String text) {
    Matcher m = VALUE.matcher(text);
    if (!m.matches()) {
      return "must be a number of pods (\"10\") or a percent of replicas (\"25%\")";
    }
    int value = Integer.parseInt(m.group(1));
    if (value < 1 || (!m.group(2).isEmpty() && value > 100)) {
      return m.group(2).isEmpty() ? "must be at least 1" : "must be a percent from 1% to 100%";
    }
    return null;
  }
}
