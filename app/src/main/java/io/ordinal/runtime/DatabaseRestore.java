package io.ordinal.runtime;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/**
 * {@code ordinal restore-database DUMP} (run by {@code ./ordinal restore}): a new data dir's embedded
 * PostgreSQL is given the database a backup holds (pg_dump's custom format, as {@code ./ordinal
 * backup} writes it), restored as the service's own role. The service's next start migrates it
 * forward if it came from an earlier release, and rebuilds every set's controller from it (a backup
 * holds no Temporal state: see "Lost Temporal state" in the README).
 */
public final class DatabaseRestore {
  private DatabaseRestore() {}

  /** Restores {@code dump} with {@code pgRestore} into the data dir's database, which must hold no table. */
  public static void run(Settings settings, Path dump, Path pgRestore) throws IOException, InterruptedException {
    if (!Files.isRegularFile(dump)) {
      throw new IOException("no such dump: " + dump);
    }
    Files.createDirectories(settings.dataDir());
    try (FileChannel lock = EmbeddedRuntime.lockDataDir(settings.dataDir());
        EmbeddedPostgresServer postgres = EmbeddedPostgresServer.start(settings.dataDir(), settings.embeddedDbFsync())) {
      List<String> tables = tables(postgres);
      if (!tables.isEmpty()) {
        throw new IOException("the database of " + settings.dataDir() + " already holds tables (" + String.join(", ", tables)
            + "): restore into a new data dir (ORDINAL_DATA_DIR), or move this one away first");
      }
      // As the service's role, owner of what it restores; no grants: the role is the only one that uses it.
      ProcessBuilder restore = new ProcessBuilder(pgRestore.toString(), "--host=127.0.0.1", "--port=" + postgres.port(),
          "--username=" + postgres.user(), "--dbname=" + postgres.database(), "--no-owner", "--no-privileges",
          "--exit-on-error", "--single-transaction", dump.toString()).inheritIO();
      restore.environment().put("PGPASSWORD", postgres.password());
      int code = restore.start().waitFor();
      if (code != 0) {
        throw new IOException(pgRestore + " exited " + code + " (its message is above); the data dir's database is left empty");
      }
    } catch (SQLException e) {
      throw new IOException("cannot read the embedded PostgreSQL of " + settings.dataDir(), e);
    }
  }

  private static List<String> tables(EmbeddedPostgresServer postgres) throws SQLException {
    try (Connection c = DriverManager.getConnection(postgres.jdbcUrl(), postgres.user(), postgres.password());
        Statement s = c.createStatement()) {
      return EmbeddedPostgresServer.strings(s, "SELECT relname FROM pg_class WHERE relnamespace = 'public'::regnamespace"
          + " AND relkind IN ('r', 'p') ORDER BY relname LIMIT 5");
    }
  }
}
