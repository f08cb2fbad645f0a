package io.ordinal.driver.local;

import io.ordinal.driver.ProcStat;
import io.ordinal.driver.Signals;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * One container's process, started by this service or re-adopted after a restart. It runs in its
 * own session (so it outlives the service and its process group can be signalled as a whole) and,
 * when mounts are given and we are root, in a private mount namespace with those bind mounts and
 * a UTS namespace of its own, named after the pod.
 */
final class ContainerProcess {
  static final boolean ROOT = "root".equals(System.getProperty("user.name"));
  private static final String SETSID = "/usr/bin/setsid";
  private static final String UNSHARE = "/usr/bin/unshare";
  private static final String HOSTNAME = "/usr/bin/hostname";
  /** Where a container's mount namespace stages its volume sources; created once on the host. */
  private static final String STAGING = "/.ordinal-staging";

  /** A bind mount inside the container's mount namespace. */
  record Mount(Path source, String target) {}

  private final ProcessHandle handle;
  private final Process child; // null when adopted: the exit code is then unknown

  private ContainerProcess(ProcessHandle handle, Process child) {
    this.handle = handle;
    this.child = child;
  }

  static boolean mountNamespacesAvailable() {
    return ROOT && Files.isExecutable(Path.of(UNSHARE));
  }

  /**
   * Starts {@code argv} with exactly {@code env}; stdout and stderr go to {@code log} through
   * {@link LogStamper}s (directly, without time, where there is no bash).
   */
  static ContainerProcess start(List<String> argv, Map<String, String> env, Path workingDir, Path log,
      List<Mount> mounts, List<Path> cgroupProcs) throws IOException {
    return start(argv, env, workingDir, log, mounts, cgroupProcs, ContainerUser.SERVICE, null);
  }

  /**
   * As above, the command running as {@code user} (the setup before it as root) and, in its
   * namespaces, with {@code hostname} (null: the machine's) as its own in a UTS namespace.
   */
  static ContainerProcess start(List<String> argv, Map<String, String> env, Path workingDir, Path log,
      List<Mount> mounts, List<Path> cgroupProcs, ContainerUser user, String hostname) throws IOException {
    boolean stamped = LogStamper.available();
    boolean namespaced = !mounts.isEmpty() && mountNamespacesAvailable();
    boolean named = namespaced && hostname != null && Files.isExecutable(Path.of(HOSTNAME));
    List<String> command = new ArrayList<>();
    if (Files.isExecutable(Path.of(SETSID))) {
      command.add(SETSID);
    }
    if (namespaced) {
      command.addAll(List.of(UNSHARE, "--mount", "--propagation", "private"));
      if (named) {
        command.add("--uts"); // the process keeps it for life: its name survives a restart of the service
      }
      command.add("--");
    }
    // A setup shell routes the output through the stampers and performs the mounts, then execs the
    // user's argv unchanged ("$@"): the pid started here is the container's.
    StringBuilder script = new StringBuilder();
    if (stamped) {
      script.append(LogStamper.redirectOutput());
    }
    if (namespaced) {
      script.append("set -e\n");
      if (named) {
        script.append(HOSTNAME).append(' ').append(quote(hostname)).append('\n');
      }
      // Join the container's cgroups before anything else runs, so every descendant is limited (the
      // stampers, started above, stay outside: like a runtime's log shim, they are not the container).
      for (Path procs : cgroupProcs) {
        script.append("echo $$ > ").append(quote(procs.toString())).append('\n');
      }
      Files.createDirectories(Path.of(STAGING));
      // Sources are first bound into a private staging tmpfs, so that no target (say /work) can
      // shadow a source that lives below it (say /work/var/...) before that source is mounted.
      script.append("mount -t tmpfs ordinal ").append(STAGING).append('\n');
      for (int i = 0; i < mounts.size(); i++) {
        String source = quote(mounts.get(i).source().toString());
        String staged = STAGING + "/" + i;
        script.append("if [ -d ").append(source).append(" ]; then mkdir ").append(staged)
            .append("; else touch ").append(staged).append("; fi\n");
        script.append("mount --bind ").append(source).append(' ').append(staged).append('\n');
      }
      for (int i = 0; i < mounts.size(); i++) {
        String target = quote(mounts.get(i).target());
        String staged = STAGING + "/" + i;
        script.append("if [ -d ").append(staged).append(" ]; then mkdir -p ").append(target)
            .append("; else [ -e ").append(target).append(" ] || touch ").append(target).append("; fi\n");
        script.append("mount --bind ").append(staged).append(' ').append(target).append('\n');
      }
      if (user.readOnlyRoot()) {
        // readOnlyRootFilesystem: this namespace's view of / becomes read-only; the volumes mounted
        // above are mounts of their own and stay writable (as are other filesystems of the machine).
        script.append("mount -o remount,bind,ro /\n");
      }
    }
    if (stamped || namespaced) {
      script.append(execWithExactly(env));
      command.addAll(List.of(stamped ? LogStamper.BASH : "/bin/sh", "-c", script.toString(), "container"));
    }
    // The setup (mounts, cgroups, stampers) runs as root; the container's command as its user, from
    // the exec on: setpriv changes uid, gid and groups (dropping root's capabilities) and execs it.
    command.addAll(user.setpriv());
    command.addAll(argv);
    ProcessBuilder builder = new ProcessBuilder(command)
        .directory(workingDir.toFile())
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
    builder.environment().clear();
    builder.environment().putAll(env);
    Process process = builder.start();
    if (!namespaced) {
      for (Path procs : cgroupProcs) { // no cgroup lines in the script: move the process right after its start
        Files.writeString(procs, Long.toString(process.pid()));
      }
    }
    return new ContainerProcess(process.toHandle(), process);
  }

  /** The setup shell's last line: a shell exports PWD and SHLVL of its own, which the container must not see. */
  private static String execWithExactly(Map<String, String> env) {
    StringBuilder unset = new StringBuilder();
    for (String variable : List.of("PWD", "SHLVL")) {
      if (!env.containsKey(variable)) {
        unset.append(" -u ").append(variable);
      }
    }
    return unset.isEmpty() ? "exec \"$@\"\n" : "exec /usr/bin/env" + unset + " -- \"$@\"\n";
  }

  /** Re-adopts a process started by an earlier run, if it is still the same process (pid and start time). */
  static Optional<ContainerProcess> adopt(long pid, Instant startedAt) {
    return ProcessHandle.of(pid)
        .filter(ProcStat::running)
        .filter(h -> h.info().startInstant().map(s -> sameInstant(s, startedAt)).orElse(false))
        .map(h -> new ContainerProcess(h, null));
  }

  private static boolean sameInstant(Instant a, Instant b) {
    return Math.abs(a.toEpochMilli() - b.toEpochMilli()) < 1000;
  }

  long pid() {
    return handle.pid();
  }

  Instant startedAt() {
    return handle.info().startInstant().orElse(Instant.now());
  }

  boolean alive() {
    return ProcStat.running(handle);
  }

  /** The exit code, when this service started the process; -1 for an adopted one, whose parent was init. */
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

  /** Signals the container's whole process group (its session). */
  void signalGroup(String signal) {
    if (!ProcStat.running(handle)) {
      return;
    }
    if (!Signals.sendToGroup(handle.pid(), signal)) {
      handle.destroyForcibly();
    }
  }

  /**
   * Kills (with their process groups) the running processes of a container whose log is one of
   * {@code logFiles}: those writing into the pipe of one of its {@link LogStamper}s, and those
   * writing to the log itself (started before logs were stamped). Returns their pids. A stamper left
   * alone exits once its writers are gone, after writing what they wrote last.
   */
  static List<Long> killStrays(List<Path> logFiles) {
    List<Path> targets = logFiles.stream().map(f -> f.toAbsolutePath().normalize()).toList();
    List<ProcessHandle> running = ProcessHandle.allProcesses().filter(ProcStat::running).toList();
    Set<Path> stamperPipes = new HashSet<>();
    List<ProcessHandle> strays = new ArrayList<>();
    for (ProcessHandle process : running) {
      if (fd(process, 1).map(targets::contains).orElse(false)) {
        if (LogStamper.isStamper(process.pid())) {
          fd(process, 0).ifPresent(stamperPipes::add);
        } else {
          strays.add(process);
        }
      }
    }
    for (ProcessHandle process : running) {
      boolean writesToAStamper = fd(process, 1).map(stamperPipes::contains).orElse(false)
          || fd(process, 2).map(stamperPipes::contains).orElse(false);
      if (writesToAStamper && !strays.contains(process) && !LogStamper.isStamper(process.pid())) {
        strays.add(process);
      }
    }
    List<Long> killed = new ArrayList<>();
    for (ProcessHandle stray : strays) {
      Signals.sendToGroup(stray.pid(), "KILL"); // its session, when it leads one
      stray.destroyForcibly();
      killed.add(stray.pid());
    }
    return killed;
  }

  /** What a process's file descriptor points to (a path, or {@code pipe:[inode]}); empty when not ours to read or gone. */
  private static Optional<Path> fd(ProcessHandle process, int fd) {
    try {
      return Optional.of(Files.readSymbolicLink(Path.of("/proc", Long.toString(process.pid()), "fd", Integer.toString(fd))));
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }

  static String quote(String value) {
    return "'" + value.replace("'", "'\\''") + "'";
  }
}
