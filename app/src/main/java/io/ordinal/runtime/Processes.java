package io.ordinal.runtime;

import io.ordinal.driver.ProcStat;
import io.ordinal.driver.Signals;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/** Helpers for the helper processes the service owns (Temporal dev server, PostgreSQL). */
final class Processes {
  private Processes() {}

  /**
   * The live process whose pid is the first line of {@code pidFile}, if it is still the process that
   * wrote it: one of its arguments is {@code argument} (a path of this data dir). A pid file outlives
   * its process (a kill -9, a power loss, a reboot), and the pid may since have gone to any process of
   * the machine, which a start would then have stopped.
   */
  static Optional<ProcessHandle> fromPidFile(Path pidFile, String argument) {
    try {
      if (!Files.exists(pidFile)) {
        return Optional.empty();
      }
      String first = Files.readAllLines(pidFile).stream().findFirst().orElse("").trim();
      return ProcessHandle.of(Long.parseLong(first)).filter(ProcessHandle::isAlive)
          .filter(process -> hasArgument(process, argument));
    } catch (IOException | NumberFormatException e) {
      return Optional.empty();
    }
  }

  /** Whether {@code argument} is one of the process's arguments; a process whose arguments cannot be read has none. */
  static boolean hasArgument(ProcessHandle process, String argument) {
    return process.info().arguments().map(arguments -> List.of(arguments).contains(argument)).orElse(false);
  }

  /** Sends {@code signal} (e.g. INT, TERM), waits up to {@code grace}, then kills. */
  static void stop(ProcessHandle process, String signal, Duration grace) {
    if (ended(process)) {
      return;
    }
    try {
      Signals.send(process.pid(), signal);
      if (exited(process, grace)) {
        return;
      }
    } catch (Exception e) {
      // could not signal it: kill it
    }
    process.destroyForcibly();
    exited(process, grace); // killed but maybe not yet reaped by its parent: nothing more to do
  }

  /**
   * Waits for {@code process} to end, polling: these processes are not the JVM's children (pg_ctl
   * starts the postmaster; a leftover's parent is gone), and the JDK watches a non-child's exit
   * only every second or two, which made each start after a crash, and each stop, seconds slower.
   */
  private static boolean exited(ProcessHandle process, Duration grace) {
    long deadline = System.nanoTime() + grace.toNanos();
    while (!ended(process)) {
      if (System.nanoTime() > deadline) {
        return false;
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return ended(process);
      }
    }
    return true;
  }

  /**
   * Whether {@code process} has ended: gone, or a zombie whose threads have all gone. A leftover's
   * parent is init, which may collect its exit only a second or more later (each start after a crash
   * waited for it twice, for the dev server and for PostgreSQL). The main thread of a killed
   * multi-threaded process (the Go dev server) may be a zombie while its other threads still exit; the
   * process's files, its listening ports among them, close only when the last one has.
   */
  static boolean ended(ProcessHandle process) {
    if (ProcStat.running(process)) {
      return false;
    }
    try (Stream<Path> threads = Files.list(Path.of("/proc", Long.toString(process.pid()), "task"))) {
      return threads.count() <= 1;
    } catch (IOException | UncheckedIOException e) {
      return true; // gone (or no procfs, where running() trusted the JDK)
    }
  }

  static boolean portOpen(String host, int port) {
    try (var socket = new Socket()) {
      socket.connect(new InetSocketAddress(host, port), 200);
      return true;
    } catch (IOException e) {
      return false;
    }
  }
}
