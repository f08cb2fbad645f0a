package io.ordinal.e2e;

import io.ordinal.driver.ProcStat;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/** CPU time and resident memory of a process (Linux procfs), alone or with its descendants. */
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

  private static Stream<ProcessHandle> withDescendants(ProcessHandle process) {
    return Stream.concat(Stream.of(process), process.descendants());
  }
}
