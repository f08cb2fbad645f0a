package io.ordinal.driver.local;

import io.ordinal.driver.ProcStat;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * One container, run by the OCI runtime in the foreground ({@code runc run}, started by this
 * service or re-adopted after a restart): the runtime's process waits for the container and exits
 * with its exit code, in a session of its own, so that it outlives the service. Its output goes
 * through {@link LogStamper}s to the container's log. Nothing here runs anything of the pod's on
 * the machine: the pod's command, env, user and mounts are in the bundle's config.json, which the
 * runtime applies inside the container's namespaces.
 */
final class ContainerProcess {
  static final boolean ROOT = "root".equals(System.getProperty("user.name"));
  private static final String SETSID = "/usr/bin/setsid";
  private static final java.time.Duration KILL_PATIENCE = java.time.Duration.ofSeconds(10);

  private final Runc runc;
  private final String id;
  private final ProcessHandle handle;
  private final Process child; // null when adopted: the exit code is then unknown

  private ContainerProcess(Runc runc, String id, ProcessHandle handle, Process child) {
    this.runc = runc;
    this.id = id;
    this.handle = handle;
    this.child = child;
  }

  /**
   * Starts container {@code id} (each start has an id of its own, {@code <container>-<start>}) from a
   * fresh root filesystem in {@code bundle}. A container of an earlier start of {@code container} left
   * running (a service killed between starting one and saving it) is removed first, with whatever
   * still runs in it: never two of one container. Ids, like cgroups, are never reused: the runtime of
   * an earlier start cleans up after its own container by id, and would take a new one's with it.
   */
  static ContainerProcess start(Runc runc, String container, String id, Path bundle, OciSpec.Spec spec, Path log)
      throws IOException {
    for (String earlier : runc.list()) {
      if (earlier.startsWith(container + "-")) {
        runc.delete(earlier);
      }
    }
    Rootfs.remove(bundle.resolve("rootfs"));
    Runc.writeBundle(bundle, spec);
    List<String> command = new ArrayList<>();
    if (Files.isExecutable(Path.of(SETSID))) {
      command.add(SETSID);
    }
    if (LogStamper.available()) {
      // The stampers' shell then execs the runtime: the pid started here is the runtime's.
      command.addAll(List.of(LogStamper.BASH, "-c", LogStamper.redirectOutput() + "exec \"$@\"\n", "container"));
    }
    // --keep: the container (and its cgroup, with its OOM count) stays until it is deleted after its exit is read.
    command.addAll(runc.command("run", "--keep", "--bundle", bundle.toString(), id));
    ProcessBuilder builder = new ProcessBuilder(command)
        .directory(bundle.toFile())
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
    builder.environment().clear();
    builder.environment().putAll(Runc.environment());
    Process process = builder.start();
    return new ContainerProcess(runc, id, process.toHandle(), process);
  }

  /** Re-adopts a container started by an earlier run, if its runtime process is still the same one (pid and start time). */
  static Optional<ContainerProcess> adopt(Runc runc, String id, long pid, Instant startedAt) {
    return ProcessHandle.of(pid)
        .filter(ProcStat::running)
        .filter(h -> h.info().startInstant().map(s -> sameInstant(s, startedAt)).orElse(false))
        .map(h -> new ContainerProcess(runc, id, h, null));
  }

  private static boolean sameInstant(Instant a, Instant b) {
    return Math.abs(a.toEpochMilli() - b.toEpochMilli()) < 1000;
  }

  String id() {
    return id;
  }

  /** Which start of its container this is: the suffix of its id, also its runtime cgroup's name. */
  String start() {
    return id.substring(id.lastIndexOf('-') + 1);
  }

  /** The runtime's process (what is saved and re-adopted). */
  long pid() {
    return handle.pid();
  }

  Instant startedAt() {
    return handle.info().startInstant().orElse(Instant.now());
  }

  boolean alive() {
    return ProcStat.running(handle);
  }

  /** The container's exit code, when this service started it; -1 for an adopted one, whose parent was init. */
  int exitCode() {
    if (child != null) {
      try {
        return child.waitFor();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    return -1;
  }

  /** Sends {@code signal} to the container's first process, as a runtime stops a container (TERM). */
  void signal(String signal) {
    if (alive()) {
      runc.kill(id, signal, false);
    }
  }

  /**
   * Kills every process of the container (the runtime then exits with 137). Just after its start the
   * runtime may not have made the container yet: it is asked again until it has, for a while.
   */
  void kill() {
    Instant deadline = Instant.now().plus(KILL_PATIENCE);
    while (alive() && !runc.kill(id, "KILL", true) && !runc.kill(id, "KILL", false) && Instant.now().isBefore(deadline)) {
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  static String quote(String value) {
    return "'" + value.replace("'", "'\\''") + "'";
  }
}
