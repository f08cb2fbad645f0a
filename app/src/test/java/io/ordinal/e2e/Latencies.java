package io.ordinal.e2e;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** Latency samples as a benchmark report's table row: p50, p90, p99 and max, in milliseconds. */
final class Latencies {
  private Latencies() {}

  static String row(String label, List<Double> millis) {
    List<Double> sorted = new ArrayList<>(millis);
    Collections.sort(sorted);
    return "| %s | %.2f | %.2f | %.2f | %.2f |%n".formatted(label, at(sorted, 0.5), at(sorted, 0.9), at(sorted, 0.99),
        sorted.getLast());
  }

  /** The nearest-rank quantile of sorted samples. */
  static double at(List<Double> sorted, double quantile) {
    return sorted.get(Math.min(sorted.size() - 1, (int) Math.ceil(quantile * sorted.size()) - 1));
  }
}
