package io.ordinal.e2e;

import io.ordinal.driver.ProcStat;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/** CPU time and memory of a process (Linux procfs), alone or with its descendants, and data on disk. */
final class ProcessUsage {
  /** USER_HZ: procfs counts CPU time in ticks of 1/100 s on Linux. */
  private static final double TICKS_PER_SECOND = 100;

  private ProcessUsage() {}

  /** User plus system CPU seconds the process has used. */
  static double cpuSeconds(ProcessHandle process) {
    return ProcStat.fields(process.pid())
        .map(f -> (Long.parseLong(f.get(11)) + Long.parseLong(f.get(12))) / TICKS_PER_SECOND)
        .orElse(0.0);
  }

  static double cpuSecondsWithDescendants(ProcessHandle process) {
    return withDescendants(process).mapToDouble(ProcessUsage::cpuSeconds).sum();
  }

  /** Resident set size in MiB (VmRSS). */
  static double residentMiB(ProcessHandle process) {
    try {
      List<String> status = Files.readAllLines(Path.of("/proc", Long.toString(process.pid()), "status"));
      return status.stream().filter(line -> line.startsWith("VmRSS:"))
          .mapToDouble(line -> Long.parseLong(line.replaceAll("\\D", "")) / 1024.0).findFirst().orElse(0);
    } catch (IOException e) {
      return 0;
    }
  }

  /** A JVM's heap in use after a full collection, from {@code jcmd} (the JDK's own tool, beside this JVM's). */
  static double heapUsedAfterGcMiB(long pid) throws IOException, InterruptedException {
    Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
    Command.run(Duration.ofMinutes(1), jcmd.toString(), Long.toString(pid), "GC.run");
    String info = Command.run(Duration.ofMinutes(1), jcmd.toString(), Long.toString(pid), "GC.heap_info").out();
    // G1: "garbage-first heap   total reserved 524288K, committed 77824K, used 41244K [...]"; the serial
    // collector (the suite's smoke runs): "DefNew     total 116160K, used 31021K [...]" and "Tenured
    // total 258048K, used 1166K [...]". Metaspace's lines say "used" too, and no "total".
    Pattern usedPattern = Pattern.compile("used (\\d+)K");
    long usedKiB = 0;
    for (String line : info.lines().filter(l -> l.contains(" total ")).toList()) {
      Matcher used = usedPattern.matcher(line);
      usedKiB += used.find() ? Long.parseLong(used.group(1)) : 0;
    }
    return usedKiB / 1024.0;
  }

  /** The size of the regular files under {@code directory}, in MiB (files that go meanwhile count as nothing). */
  static double directoryMiB(Path directory) throws IOException {
    try (Stream<Path> files = Files.walk(directory)) {
      return files.mapToLong(file -> {
        try {
          return Files.isRegularFile(file) ? Files.size(file) : 0;
        } catch (IOException e) {
          return 0;
        }
      }).sum() / (1024.0 * 1024);
    } catch (java.io.UncheckedIOException e) {
      return directoryMiB(directory); // a directory went while it was walked: once more
    }
  }

  private static Stream<ProcessHandle> withDescendants(ProcessHandle process) {
    return Stream.concat(Stream.of(process), process.descendants());
  }
}
