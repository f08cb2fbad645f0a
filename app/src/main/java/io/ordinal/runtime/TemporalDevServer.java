package io.ordinal.runtime;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code temporal server start-dev} process, with its database file under the data dir so that
 * workflows survive restarts. An orphan from a killed run (found through the pid file) is stopped first.
 */
final class TemporalDevServer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(TemporalDevServer.class);
  /**
   * Dynamic config of the dev server (one history shard) for a workload of one short step at a time
   * per set. The history service reads each of its task queues at most 20 times a second by default:
   * each step of an operation needs a fresh read of the transfer queue (the workflow task after a
   * pod's signal) or the timer queue (minReadySeconds), so after the limiter's burst an ordered scale
   * was held to one step per 50 ms; each read takes a batch, so a higher cap costs nothing idle. And
   * the timer queue does not fire a timer created less than its time shift (1 s by default) ahead:
   * such a timer fired up to a second late, so a minReadySeconds step sometimes took 2 s, not 1.
   */
  private static final Map<String, String> DYNAMIC_CONFIG = Map.of(
      "history.transferProcessorMaxPollRPS", "2000",
      "history.timerProcessorMaxPollRPS", "2000",
      "history.visibilityProcessorMaxPollRPS", "2000",
      "history.timerProcessorMaxTimeShift", "\"10ms\"");
  private final Process process;
  private final Path pidFile;

  private TemporalDevServer(Process process, Path pidFile) {
    this.process = process;
    this.pidFile = pidFile;
  }

  /**
   * Stops the dev server a killed run of this data dir left running (its pid file says which, and its
   * database argument that it is ours): it holds this installation's ports, which are checked before
   * anything starts. SIGKILL, not a graceful stop (2 s or more, each start after a crash): its SQLite
   * WAL keeps every commit across a crash of the process, as it must for a crash of the machine.
   */
  static void stopOrphan(Settings settings) {
    Path dir = settings.dataDir().resolve("temporal");
    Processes.fromPidFile(dir.resolve("temporal.pid"), database(dir)).ifPresent(orphan -> {
      log.warn("killing Temporal dev server (pid {}) left running by a previous run", orphan.pid());
      Processes.stop(orphan, "KILL", Duration.ofSeconds(15));
    });
  }

  /**
   * Starts the dev server; its Web UI (unless headless) decodes compressed payloads (large sets'
   * observations) through the service's codec at {@code codecPort}: plain HTTP on loopback, which the
   * browser reaches with no certificate to trust, as it reaches the UI itself.
   */
  static TemporalDevServer start(Settings settings, int codecPort) throws IOException, InterruptedException {
    Path dir = settings.dataDir().resolve("temporal");
    Files.createDirectories(dir);
    // Workflow histories hold every manifest (env values included): the service's user only, as
    // the embedded PostgreSQL's directory is. Pods run as other users on this machine.
    Files.setPosixFilePermissions(dir, java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"));
    Path pidFile = dir.resolve("temporal.pid");
    stopOrphan(settings);
    List<String> command = new ArrayList<>();
    if (Files.isExecutable(Path.of("/usr/bin/setsid"))) {
      // Its own session: a Ctrl-C on the terminal reaches only the service, which then stops the
      // worker before the server, instead of the server dying under a running worker.
      command.add("/usr/bin/setsid");
    }
    command.addAll(List.of(settings.temporalCli(), "server", "start-dev",
        "--db-filename", database(dir),
        "--ip", "127.0.0.1",
        "--port", Integer.toString(settings.temporalPort()),
        "--namespace", settings.temporalNamespace(),
        "--log-level", "warn",
        // The dev server's SQLite default (a rollback journal, synchronous FULL) syncs the disk several
        // times a commit, and a workflow step is several commits: a third of a step was the server's
        // answer to a signal or a completed task. WAL with synchronous NORMAL keeps every commit across
        // a crash of any process and the file consistent after a power loss, which may lose the last
        // commits (as the embedded PostgreSQL, which runs without fsync, may lose them).
        "--sqlite-pragma", "journal_mode=wal",
        "--sqlite-pragma", "synchronous=normal"));
    DYNAMIC_CONFIG.forEach((key, value) -> command.addAll(List.of("--dynamic-config-value", key + "=" + value)));
    if (settings.temporalHeadless()) {
      command.add("--headless");
    } else {
      command.addAll(List.of("--ui-port", Integer.toString(settings.temporalUiPort()),
          "--ui-codec-endpoint", "http://127.0.0.1:" + codecPort + "/codec"));
    }
    Process process;
    try {
      process = new ProcessBuilder(command)
          .redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.appendTo(settings.dataDir().resolve("temporal.log").toFile()))
          .start();
    } catch (IOException e) {
      throw new IOException("cannot run the temporal CLI '" + settings.temporalCli()
          + "' (set ORDINAL_TEMPORAL_CLI, or start through ./ordinal server, which installs it)", e);
    }
    Files.writeString(pidFile, process.pid() + "\n");
    Instant deadline = Instant.now().plus(Duration.ofSeconds(60));
    while (!Processes.portOpen("127.0.0.1", settings.temporalPort())) {
      if (!process.isAlive()) {
        throw new IOException("temporal dev server exited with " + process.exitValue() + "; see "
            + settings.dataDir().resolve("temporal.log"));
      }
      if (Instant.now().isAfter(deadline)) {
        process.destroyForcibly();
        throw new IOException("temporal dev server did not open port " + settings.temporalPort() + " within 60s");
      }
      Thread.sleep(100);
    }
    return new TemporalDevServer(process, pidFile);
  }

  private static String database(Path dir) {
    return dir.resolve("temporal.db").toString();
  }

  @Override
  public void close() throws IOException {
    Processes.stop(process.toHandle(), "TERM", Duration.ofSeconds(15));
    Files.deleteIfExists(pidFile);
  }
}
