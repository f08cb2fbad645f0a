package io.ordinal.runtime;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real PostgreSQL kept under the data dir, so state survives restarts. A previous run killed with
 * SIGKILL leaves its postmaster holding the data dir; it is stopped (fast shutdown) before we start.
 */
final class EmbeddedPostgresServer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(EmbeddedPostgresServer.class);
  private final EmbeddedPostgres postgres;
  private final Path dataDir;

  private EmbeddedPostgresServer(EmbeddedPostgres postgres, Path dataDir) {
    this.postgres = postgres;
    this.dataDir = dataDir;
  }

  static EmbeddedPostgresServer start(Path dataDir) throws IOException {
    Path dir = dataDir.resolve("postgres");
    Files.createDirectories(dir);
    Processes.fromPidFile(dir.resolve("postmaster.pid")).ifPresent(orphan -> {
      log.warn("stopping PostgreSQL (pid {}) left running by a previous run", orphan.pid());
      Processes.stop(orphan, "INT", Duration.ofSeconds(30));
    });
    EmbeddedPostgres postgres = EmbeddedPostgres.builder()
        .setDataDirectory(dir)
        .setCleanDataDirectory(false)
        // zonky turns synchronous commit off for speed; a stored spec must survive a crash.
        .setServerConfig("synchronous_commit", "on")
        .setPGStartupWait(Duration.ofSeconds(60))
        .setOutputRedirector(ProcessBuilder.Redirect.appendTo(dataDir.resolve("postgres.log").toFile()))
        .setErrorRedirector(ProcessBuilder.Redirect.appendTo(dataDir.resolve("postgres.log").toFile()))
        .start();
    return new EmbeddedPostgresServer(postgres, dir);
  }

  String jdbcUrl() {
    return postgres.getJdbcUrl("postgres", "postgres");
  }

  @Override
  public void close() throws IOException {
    var postmaster = Processes.fromPidFile(dataDir.resolve("postmaster.pid"));
    postgres.close();
    // pg_ctl may return before the postmaster has finished its shutdown checkpoint: wait for it,
    // so that "stopped" means nothing holds the data dir any more.
    postmaster.ifPresent(process -> Processes.stop(process, "INT", Duration.ofSeconds(30)));
  }
}
