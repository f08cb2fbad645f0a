package io.ordinal.runtime;

import io.ordinal.driver.Signals;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/** Helpers for the helper processes the service owns (Temporal dev server, PostgreSQL). */
final class Processes {
  private Processes() {}

  /** The live process whose pid is the first line of {@code pidFile}, if any. */
  static Optional<ProcessHandle> fromPidFile(Path pidFile) {
    try {
      if (!Files.exists(pidFile)) {
        return Optional.empty();
      }
      String first = Files.readAllLines(pidFile).stream().findFirst().orElse("").trim();
      return ProcessHandle.of(Long.parseLong(first)).filter(ProcessHandle::isAlive);
    } catch (IOException | NumberFormatException e) {
      return Optional.empty();
    }
  }

  /** Sends {@code signal} (e.g. INT, TERM), waits up to {@code grace}, then kills. */
  static void stop(ProcessHandle process, String signal, Duration grace) {
    if (!process.isAlive()) {
      return;
    }
    try {
      Signals.send(process.pid(), signal);
      process.onExit().get(grace.toMillis(), TimeUnit.MILLISECONDS);
    } catch (Exception e) {
      process.destroyForcibly();
      try {
        process.onExit().get(grace.toMillis(), TimeUnit.MILLISECONDS);
      } catch (Exception stillThere) {
        // killed but not yet reaped by its parent: nothing more we can do
      }
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
