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
 * v2 (unified) or v1 (memory and cpu controllers), whichever this machine has writable: {@code
 * ordinal/<name>} carries the limits and the runtime puts the container in {@code
 * ordinal/<name>/<start>} below it, one for each start. The kernel counts an OOM kill in the
 * victim's cgroup (on v1 only there), which the runtime keeps until the container is deleted
 * ({@code runc run --keep}): that count is how an exit is known to be one.
 */
final class Cgroups {
  static final Path ROOT = Path.of("/sys/fs/cgroup");
  private static final long CPU_PERIOD_US = 100_000;
  private static final Pattern OOM_KILL = Pattern.compile("(?m)^oom_kill (\\d+)$");

  /**
   * Where the container's cgroups go: the runtime's for one start is {@code <parent>/<start>}
   * ({@code linux.cgroupsPath}).
   */
  record Placement(String parent) {
    String runtimePath(String start) {
      return parent + "/" + start;
    }

    /** Number of processes the kernel OOM-killed in the runtime's cgroup of {@code start}, until it is deleted. */
    long oomKills(String start) {
      String relative = runtimePath(start).substring(1);
      Path events = unified() ? ROOT.resolve(relative).resolve("memory.events")
          : ROOT.resolve("memory").resolve(relative).resolve("memory.oom_control");
      try {
        Matcher m = OOM_KILL.matcher(Files.readString(events));
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
   * Creates (or reuses) the cgroup {@code ordinal/<name>} with the container's limits, and names the
   * runtime's below it; without limits only the runtime's. Empty when there are limits and the
   * hierarchy cannot be written (the caller records a warning event).
   */
  static Optional<Placement> place(String name, ResourceRequirements resources) throws IOException {
    Long memory = memoryBytes(resources);
    Long cpuQuota = cpuQuotaMicros(resources);
    String parentPath = unlimited(name).parent();
    if (memory == null && cpuQuota == null) {
      return Optional.of(unlimited(name));
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
      write(group.resolve("cgroup.subtree_control"), "+memory +cpu");
      if (memory != null) {
        write(group.resolve("memory.max"), Long.toString(memory));
      }
      if (cpuQuota != null) {
        write(group.resolve("cpu.max"), cpuQuota + " " + CPU_PERIOD_US);
      }
      return Optional.of(new Placement(parentPath));
    }
    Path memoryRoot = ROOT.resolve("memory");
    Path cpuRoot = ROOT.resolve("cpu");
    if (!Files.isWritable(memoryRoot) || !Files.isWritable(cpuRoot)) {
      return Optional.empty();
    }
    Path memoryGroup = Files.createDirectories(memoryRoot.resolve("ordinal").resolve(name));
    if (memory != null) {
      write(memoryGroup.resolve("memory.limit_in_bytes"), Long.toString(memory));
    }
    if (cpuQuota != null) {
      Path cpuGroup = Files.createDirectories(cpuRoot.resolve("ordinal").resolve(name));
      write(cpuGroup.resolve("cpu.cfs_period_us"), Long.toString(CPU_PERIOD_US));
      write(cpuGroup.resolve("cpu.cfs_quota_us"), Long.toString(cpuQuota));
    }
    return Optional.of(new Placement(parentPath));
  }

  /** The runtime's cgroup alone, with no limits above it. */
  static Placement unlimited(String name) {
    return new Placement("/ordinal/" + name);
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

  /** Removes a container's cgroups, in every hierarchy the runtime made them in (they must be empty). */
  static void remove(String name) {
    List<Path> bases = new ArrayList<>(List.of(ROOT.resolve("ordinal")));
    try (var controllers = Files.list(ROOT)) {
      controllers.filter(Files::isDirectory).forEach(controller -> bases.add(controller.resolve("ordinal")));
    } catch (IOException e) {
      // no cgroup filesystem: nothing was made
    }
    for (Path base : bases) {
      Path group = base.resolve(name);
      if (!Files.isDirectory(group)) {
        continue;
      }
      // rmdir, the runtime's of each start first: the kernel removes the control files
      try (var starts = Files.list(group)) {
        starts.filter(Files::isDirectory).forEach(Cgroups::rmdir);
      } catch (IOException e) {
        // gone meanwhile
      }
      rmdir(group);
    }
  }

  private static void rmdir(Path group) {
    try {
      Files.deleteIfExists(group);
    } catch (IOException e) {
      // still has processes: the next removal takes it
    }
  }

  private static void write(Path file, String value) throws IOException {
    Files.writeString(file, value);
  }
}
