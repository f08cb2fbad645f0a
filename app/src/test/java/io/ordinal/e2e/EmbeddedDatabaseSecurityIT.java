package io.ordinal.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;

/**
 * The embedded PostgreSQL, as a pod of the local driver (a process of this machine, as another user)
 * meets it: its port asks everyone for a password, which only the service's user can read; the
 * service's own role cannot run programs, read files or make itself more; and a data dir of an
 * earlier release, which trusted every local connection, is closed and handed to that role on start.
 */
@E2eTest
class EmbeddedDatabaseSecurityIT {
  static OrdinalService service;

  @Test
  void thePortAsksEveryoneForAPasswordAndThereIsNoSocket() throws Exception {
    int port = service.databasePort();
    // What the server answers a client that has said nothing but who it is: 10 is AuthenticationSASL
    // (SCRAM); 0 would be AuthenticationOk (trust).
    assertEquals(10, authenticationRequest(port, "postgres", "postgres"));
    assertEquals(10, authenticationRequest(port, "ordinal", "ordinal"));
    SQLException wrong = assertThrows(SQLException.class, () -> connect("ordinal", "ordinal", "not-the-password"));
    assertEquals("28P01", wrong.getSQLState(), wrong.getMessage()); // invalid_password
    SQLException none = assertThrows(SQLException.class,
        () -> DriverManager.getConnection(service.jdbcUrl("ordinal") + "?user=postgres").close());
    assertTrue(none.getMessage().contains("no password was provided"), none.getMessage());
    assertFalse(Files.exists(Path.of("/tmp/.s.PGSQL." + port)), "no Unix socket");
    String hba = Files.readString(service.dataDir.resolve("postgres/pg_hba.conf"));
    assertFalse(hba.contains("trust"), hba);
  }

  @Test
  void theServiceRoleRunsNoProgramReadsNoFileAndCannotRaiseItself() throws Exception {
    try (Connection c = connect("ordinal", "ordinal", service.databasePassword("ordinal"));
        Statement s = c.createStatement()) {
      assertRefused(s, "COPY (SELECT 1) TO PROGRAM 'id'");
      assertRefused(s, "SELECT pg_read_file('/etc/passwd')");
      assertRefused(s, "COPY (SELECT 1) TO '/tmp/ordinal-copy-test'");
      assertRefused(s, "UPDATE pg_catalog.pg_authid SET rolsuper = true WHERE rolname = 'ordinal'"); // the superuser's table
      assertRefused(s, "ALTER ROLE ordinal SUPERUSER");
      assertRefused(s, "CREATE ROLE intruder SUPERUSER LOGIN PASSWORD 'x'");
      assertRefused(s, "SET ROLE postgres");
      assertRefused(s, "CREATE DATABASE elsewhere");
      try (ResultSet role = s.executeQuery("SELECT rolsuper, rolcreaterole, rolcreatedb FROM pg_roles WHERE rolname = current_user")) {
        assertTrue(role.next());
        assertFalse(role.getBoolean(1) || role.getBoolean(2) || role.getBoolean(3));
      }
      try (ResultSet owned = s.executeQuery("SELECT count(*) FROM pg_tables WHERE schemaname = 'public' AND tableowner <> 'ordinal'")) {
        owned.next();
        assertEquals(0, owned.getInt(1), "every table of the service's database is the service role's");
      }
    }
    // Its password opens its own database only.
    SQLException elsewhere = assertThrows(SQLException.class,
        () -> connect("postgres", "ordinal", service.databasePassword("ordinal")));
    assertEquals("28000", elsewhere.getSQLState(), elsewhere.getMessage()); // no pg_hba.conf entry
  }

  @Test
  void thePasswordsAreInFilesOnlyTheServiceUserReads() throws Exception {
    Path auth = service.dataDir.resolve("auth");
    assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(auth)));
    for (String file : new String[] {"postgres-ordinal.password", "postgres-superuser.password"}) {
      assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(auth.resolve(file))), file);
    }
    try (Connection c = connect("postgres", "postgres", service.databasePassword("superuser"))) {
      assertTrue(c.isValid(5));
    }
  }

  /**
   * A data dir as the release before this one left it: zonky's defaults (pg_hba.conf trusting every
   * local connection, the superuser postgres without a password) and Ordinal's tables in database
   * postgres, owned by the superuser. The next start closes it and moves everything to the service's
   * role, keeping the data.
   */
  @Test
  void aDataDirThatTrustedLocalConnectionsIsClosedOnStartAndKeepsItsData() throws Exception {
    try (OrdinalService upgraded = new OrdinalService("db-upgrade")) {
      Path pgData = upgraded.dataDir.resolve("postgres");
      try (EmbeddedPostgres old = EmbeddedPostgres.builder().setDataDirectory(pgData).setCleanDataDirectory(false)
          .setServerConfig("synchronous_commit", "on").setPGStartupWait(Duration.ofSeconds(60)).start()) {
        Flyway.configure().dataSource(old.getPostgresDatabase()).locations("classpath:db/migration").load().migrate();
        try (Connection c = old.getPostgresDatabase().getConnection(); Statement s = c.createStatement()) {
          s.execute("INSERT INTO namespaces (name, uid, object, created_at, resource_version) VALUES ('from-before',"
              + " 'c0ffee00-0000-4000-8000-000000000001', '{\"metadata\":{\"name\":\"from-before\",\"labels\":{\"kept\":\"yes\"}}}', now(), 1)");
        }
        assertTrue(Files.readString(pgData.resolve("pg_hba.conf")).contains("trust"), "the old layout trusts");
      }

      upgraded.start();
      var namespace = upgraded.api().get("/api/v1/namespaces/from-before").json();
      assertEquals("yes", namespace.at("/metadata/labels/kept").asText(), namespace.toString());
      assertEquals("c0ffee00-0000-4000-8000-000000000001", namespace.at("/metadata/uid").asText());
      int port = upgraded.databasePort();
      assertEquals(10, authenticationRequest(port, "postgres", "postgres"), "the superuser needs its password now");
      try (Connection c = DriverManager.getConnection(upgraded.jdbcUrl("ordinal"), "postgres", upgraded.databasePassword("superuser"));
          Statement s = c.createStatement()) {
        try (ResultSet rows = s.executeQuery("SELECT pg_get_userbyid(datdba) FROM pg_database WHERE datname = 'ordinal'")) {
          assertTrue(rows.next());
          assertEquals("ordinal", rows.getString(1));
        }
        try (ResultSet rows = s.executeQuery("SELECT count(*) FROM pg_class WHERE relnamespace = 'public'::regnamespace"
            + " AND relowner <> 'ordinal'::regrole")) {
          rows.next();
          assertEquals(0, rows.getInt(1), "the superuser owns nothing of Ordinal's any more");
        }
        try (ResultSet rows = s.executeQuery("SELECT count(*) FROM pg_proc WHERE pronamespace = 'public'::regnamespace"
            + " AND proowner <> 'ordinal'::regrole")) {
          rows.next();
          assertEquals(0, rows.getInt(1), "nor any of its functions");
        }
      }
      try (Connection c = DriverManager.getConnection(upgraded.jdbcUrl("ordinal"), "ordinal", upgraded.databasePassword("ordinal"));
          Statement s = c.createStatement()) {
        assertRefused(s, "COPY (SELECT 1) TO PROGRAM 'id'");
      }
      // A second start finds everything in place.
      upgraded.stop();
      upgraded.start();
      assertEquals(200, upgraded.api().get("/api/v1/namespaces/from-before").code());
    }
  }

  private static Connection connect(String database, String user, String password) throws IOException, SQLException {
    return DriverManager.getConnection(service.jdbcUrl(database), user, password);
  }

  private static void assertRefused(Statement s, String sql) {
    SQLException refused = assertThrows(SQLException.class, () -> s.execute(sql), sql);
    assertEquals("42501", refused.getSQLState(), sql + ": " + refused.getMessage()); // insufficient_privilege
  }

  /**
   * The first message of the server after a protocol 3.0 StartupMessage naming {@code user}: the
   * authentication request's code ('R' message).
   */
  private static int authenticationRequest(int port, String user, String database) throws IOException {
    try (Socket socket = new Socket("127.0.0.1", port)) {
      socket.setSoTimeout(10_000);
      byte[] parameters = ("user\0" + user + "\0database\0" + database + "\0\0").getBytes(StandardCharsets.UTF_8);
      DataOutputStream out = new DataOutputStream(socket.getOutputStream());
      out.writeInt(8 + parameters.length);
      out.writeInt(196608); // protocol 3.0
      out.write(parameters);
      out.flush();
      DataInputStream in = new DataInputStream(socket.getInputStream());
      byte type = in.readByte();
      in.readInt(); // length
      assertEquals('R', (char) type, "an authentication request, not an error (no pg_hba.conf entry)");
      return in.readInt();
    }
  }
}
