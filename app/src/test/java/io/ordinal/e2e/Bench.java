package io.ordinal.e2e;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.internal.chartpart.Chart;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * The benchmark suite's sizes and report. {@code -Dordinal.bench=full} (what {@code ./ordinal bench}
 * passes) runs each benchmark at the sizes and repeats it; otherwise it runs once, small, as
 * the test suite's smoke test. A report is a markdown section and its PNG plots under
 * {@code app/target/benchmarks/}, which {@code ./ordinal bench} gathers into {@code docs/BENCHMARKS.md}.
 *
 * <p>In the test suite a benchmark runs beside the other test classes, as they run beside each other:
 * it asserts no figure, and its smoke figures are never published. {@code ./ordinal bench} runs the
 * benchmarks one at a time with nothing else ({@code -Dordinal.it.parallelism=1}), so the published
 * figures measure the service alone.
 */
final class Bench {
  static final Path DIR = Path.of("target", "benchmarks");

  private Bench() {}

  static boolean full() {
    return "full".equals(System.getProperty("ordinal.bench"));
  }

  /** A size: the smoke one in the test suite, the full one in {@code ./ordinal bench}. */
  static int size(int smoke, int full) {
    return full() ? full : smoke;
  }

  /** How many times a benchmark repeats its run to give a spread. */
  static int runs(int full) {
    return Integer.getInteger("ordinal.bench.runs", full() ? full : 1);
  }

  /** A figure measured once per run, against its target. */
  record Figure(String label, String unit, String target, List<Double> values) {
    Figure(String label, String unit, String target) {
      this(label, unit, target, new ArrayList<>());
    }

    Figure add(double value) {
      values.add(value);
      return this;
    }

    double median() {
      List<Double> sorted = sorted(values);
      int n = sorted.size();
      return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }
  }

  static List<Double> sorted(List<Double> values) {
    List<Double> sorted = new ArrayList<>(values);
    Collections.sort(sorted);
    return sorted;
  }

  /** One benchmark's section of the report. */
  static final class Report {
    private final String name;
    private final StringBuilder markdown = new StringBuilder();

    /** @param name the file name, e.g. {@code fan-out} */
    Report(String name, String title) {
      this.name = name;
      markdown.append("## ").append(title).append("\n\n");
    }

    Report text(String paragraph) {
      markdown.append(paragraph.strip()).append("\n\n");
      return this;
    }

    /** The figures' min, median and max over the runs, each beside its target. */
    Report figures(List<Figure> figures) {
      markdown.append("| figure | target | min | median | max | runs |\n|---|---|---|---|---|---|\n");
      for (Figure figure : figures) {
        List<Double> sorted = sorted(figure.values());
        markdown.append("| %s | %s | %s | %s | %s | %d |%n".formatted(figure.label(), figure.target(),
            format(sorted.getFirst(), figure.unit()), format(figure.median(), figure.unit()),
            format(sorted.getLast(), figure.unit()), sorted.size()));
      }
      markdown.append('\n');
      return this;
    }

    /** Latency samples (all runs together) as p50, p90, p99 and max, in milliseconds. */
    Report latencies(String caption, Map<String, List<Double>> samples) {
      markdown.append(caption.strip()).append("\n\n| samples | count | p50 ms | p90 ms | p99 ms | max ms |\n|---|---|---|---|---|---|\n");
      samples.forEach((label, values) -> {
        List<Double> sorted = sorted(values);
        markdown.append("| %s | %d | %.1f | %.1f | %.1f | %.1f |%n".formatted(label, sorted.size(), Latencies.at(sorted, 0.5),
            Latencies.at(sorted, 0.9), Latencies.at(sorted, 0.99), sorted.getLast()));
      });
      markdown.append('\n');
      return this;
    }

    /** A plot of each series' latency distribution (share of samples at or under x ms). */
    Report distribution(String plot, String title, Map<String, List<Double>> samples) throws IOException {
      XYChart chart = chart(title, "milliseconds", "share of samples at or under");
      samples.forEach((label, values) -> cumulative(chart, label, values, (i, n) -> (i + 1) / (double) n));
      return image(plot, title, chart);
    }

    /** A plot of each series' count over time, e.g. pods Ready since the first create (seconds). */
    Report overTime(String plot, String title, String yTitle, Map<String, List<Double>> secondsOfEachEvent) throws IOException {
      XYChart chart = chart(title, "seconds", yTitle);
      secondsOfEachEvent.forEach((label, seconds) -> cumulative(chart, label, seconds, (i, n) -> i + 1));
      return image(plot, title, chart);
    }

    /** A plot of sampled values over time: each series' value at each of {@code seconds}. */
    Report timeSeries(String plot, String title, String yTitle, List<Double> seconds, Map<String, List<Double>> series)
        throws IOException {
      XYChart chart = chart(title, "seconds", yTitle);
      chart.getStyler().setLegendPosition(org.knowm.xchart.style.Styler.LegendPosition.InsideNW);
      series.forEach((label, values) -> chart.addSeries(label, seconds, values).setMarker(SeriesMarkers.NONE));
      return image(plot, title, chart);
    }

    /** A bar plot: for each series (e.g. a component), its value in each category (e.g. a phase). */
    Report bars(String plot, String title, String yTitle, List<String> categories, Map<String, List<Double>> series)
        throws IOException {
      System.setProperty("java.awt.headless", "true");
      CategoryChart chart = new CategoryChartBuilder().width(800).height(420).title(title).yAxisTitle(yTitle).build();
      chart.getStyler().setLegendPosition(org.knowm.xchart.style.Styler.LegendPosition.InsideNW);
      chart.getStyler().setStacked(true);
      series.forEach((label, values) -> chart.addSeries(label, categories, values));
      return image(plot, title, chart);
    }

    /** Writes {@code target/benchmarks/<name>.md} and prints it. */
    void write() throws IOException {
      Files.createDirectories(DIR);
      Files.writeString(DIR.resolve(name + ".md"), markdown.toString());
      System.out.println(markdown);
    }

    private Report image(String plot, String title, Chart<?, ?> chart) throws IOException {
      Files.createDirectories(DIR);
      String file = name + "-" + plot + ".png";
      BitmapEncoder.saveBitmap(chart, DIR.resolve(file).toString(), BitmapEncoder.BitmapFormat.PNG);
      markdown.append("![").append(title).append("](benchmarks/").append(file).append(")\n\n");
      return this;
    }
  }

  private static XYChart chart(String title, String xTitle, String yTitle) {
    System.setProperty("java.awt.headless", "true");
    XYChart chart = new XYChartBuilder().width(800).height(420).title(title).xAxisTitle(xTitle).yAxisTitle(yTitle).build();
    chart.getStyler().setLegendPosition(org.knowm.xchart.style.Styler.LegendPosition.InsideSE);
    return chart;
  }

  /** The y of the i-th smallest of n values. */
  private interface Rank {
    double y(int i, int n);
  }

  /** A line through the values, sorted (x), each at the y of its rank. */
  private static void cumulative(XYChart chart, String label, List<Double> values, Rank rank) {
    List<Double> sorted = sorted(values);
    if (sorted.isEmpty()) {
      return;
    }
    double[] x = new double[sorted.size()];
    double[] y = new double[sorted.size()];
    for (int i = 0; i < sorted.size(); i++) {
      x[i] = sorted.get(i);
      y[i] = rank.y(i, sorted.size());
    }
    XYSeries series = chart.addSeries(label, x, y);
    series.setMarker(SeriesMarkers.NONE);
  }

  private static String format(double value, String unit) {
    String number = Math.abs(value) >= 100 ? "%.0f".formatted(value) : Math.abs(value) >= 10 ? "%.1f".formatted(value)
        : "%.2f".formatted(value);
    return unit.isEmpty() ? number : number + " " + unit;
  }
}
