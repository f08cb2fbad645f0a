package io.ordinal.driver;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/** A process's {@code /proc/<pid>/stat} (Linux): its state, parent, group and session. */
public final class ProcStat {
  private ProcStat() {}

  /**
   * The fields after the command name: state, ppid, pgrp, session, ... Empty when there is no
   * procfs or the process is gone.
   */
  public static Optional<List<String>> fields(long pid) {
    try {
      String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
      // The command name is in parentheses and may hold spaces and parentheses of its own.
      return Optional.of(Arrays.asList(stat.substring(stat.lastIndexOf(')') + 2).split(" ")));
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }

  /**
   * Alive and not a zombie. An adopted process's parent is init, which may reap it a while after
   * it exits; until then {@link ProcessHandle#isAlive} still says true.
   */
  public static boolean running(ProcessHandle process) {
    if (!process.isAlive()) {
      return false;
    }
    return fields(process.pid())
        .map(f -> !f.get(0).equals("Z") && !f.get(0).equals("X"))
        .orElseGet(process::isAlive); // no procfs (or the process just went): trust the JDK
  }
}
