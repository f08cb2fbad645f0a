package io.ordinal.driver.local;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Enforces a container's {@code resources.limits} (memory, cpu) with a cgroup of its own, on cgroup
 * v2 (unified) or v1 (memory and cpu controllers), whichever this machine has writable.
 */
final class Cgroups {
  static final Path ROOT = Path.of("/sys/fs/cgroup");
  private static final long CPU_PERIOD_US = 100_000;
  private static final Pattern OOM_KILL = Pattern.compile("(?m)^oom_kill (\\d+)$");

  /** The cgroup directories a container joins (its {@code cgroup.procs} files), and where OOM kills are counted. */
  record Placement(List<Path> procsFiles, Path oomEvents) {
    /** Number of processes the kernel OOM-killed in this cgroup so far. */
    long oomKills() {
      try {
        Matcher m = OOM_KILL.matcher(Files.readString(oomEvents));
        return m.find() ? Long.parseLong(m.group(1)) : 0;
      } catch (IOException | RuntimeException e) {
        return 0;
      }
    }
  }

  private Cgroups() {}

  static boolean unified() {
    return Files.exists(ROOT.resolve("cgroup.controllers"));
  }

  /**
   * Creates (or reuses) the cgroup {@code ordinal/<name>} with the container's limits; empty when
   * there are no limits or the hierarchy cannot be written (the caller records a warning event).
   */
  static Optional<Placement> place(String name, ResourceRequirements resources) throws IOException {
    Long memory = memoryBytes(resources);
    Long cpuQuota = cpuQuotaMicros(resources);
    if (memory == null && cpuQuota == null) {
      return Optional.empty();
    }
    if (unified()) {
      Path parent = ROOT.resolve("ordinal");
      if (!Files.isWritable(ROOT.resolve("cgroup.subtree_control"))) {
        return Optional.empty();
      }
      Files.createDirectories(parent);
      write(ROOT.resolve("cgroup.subtree_control"), "+memory +cpu");
      write(parent.resolve("cgroup.subtree_control"), "+memory +cpu");
      Path group = Files.createDirectories(parent.resolve(name));
      if (memory != null) {
        write(group.resolve("memory.max"), Long.toString(memory));
      }
      if (cpuQuota != null) {
        write(group.resolve("cpu.max"), cpuQuota + " " + CPU_PERIOD_US);
      }
      return Optional.of(new Placement(List.of(group.resolve("cgroup.procs")), group.resolve("memory.events")));
    }
    Path memoryRoot = ROOT.resolve("memory");
    Path cpuRoot = ROOT.resolve("cpu");
    if (!Files.isWritable(memoryRoot) || !Files.isWritable(cpuRoot)) {
      return Optional.empty();
    }
    List<Path> procs = new ArrayList<>();
    Path memoryGroup = Files.createDirectories(memoryRoot.resolve("ordinal").resolve(name));
    procs.add(memoryGroup.resolve("cgroup.procs"));
    if (memory != null) {
      write(memoryGroup.resolve("memory.limit_in_bytes"), Long.toString(memory));
    }
    if (cpuQuota != null) {
      Path cpuGroup = Files.createDirectories(cpuRoot.resolve("ordinal").resolve(name));
      write(cpuGroup.resolve("cpu.cfs_period_us"), Long.toString(CPU_PERIOD_US));
      write(cpuGroup.resolve("cpu.cfs_quota_us"), Long.toString(cpuQuota));
      procs.add(cpuGroup.resolve("cgroup.procs"));
    }
    return Optional.of(new Placement(procs, memoryGroup.resolve("memory.oom_control")));
  }

  static Long memoryBytes(ResourceRequirements resources) {
    Quantity q = resources == null || resources.getLimits() == null ? null : resources.getLimits().get("memory");
    return q == null ? null : Quantity.getAmountInBytes(q).longValue();
  }

  /** cpu limit in cores -> CFS quota per 100 ms period, in microseconds. */
  static Long cpuQuotaMicros(ResourceRequirements resources) {
    Quantity q = resources == null || resources.getLimits() == null ? null : resources.getLimits().get("cpu");
    return q == null ? null : q.getNumericalAmount().multiply(BigDecimal.valueOf(CPU_PERIOD_US)).max(BigDecimal.valueOf(1000)).longValue();
  }

  /** Removes a container's cgroups (they must be empty). */
  static void remove(String name) {
    for (Path base : List.of(ROOT.resolve("ordinal"), ROOT.resolve("memory/ordinal"), ROOT.resolve("cpu/ordinal"))) {
      try {
        Files.deleteIfExists(base.resolve(name)); // rmdir: the kernel removes the control files
      } catch (IOException e) {
        // still has processes, or never existed
      }
    }
  }

  private static void write(Path file, String value) throws IOException {
    Files.writeString(file, value);
  }
}
