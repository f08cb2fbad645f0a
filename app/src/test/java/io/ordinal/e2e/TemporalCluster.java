package io.ordinal.e2e;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A Temporal cluster as production runs one: the Temporal server's frontend, history, matching and
 * worker services as separate processes (built from go.temporal.io/server by the launcher), with
 * several history shards, on a PostgreSQL of its own, run by {@code deploy/temporal/cluster.sh}. Each
 * Ordinal service on it gets a namespace of its own, as each one on the dev server has a server of its
 * own.
 */
final class TemporalCluster implements AutoCloseable {
  static final Path SCRIPT = Path.of("..", "deploy", "temporal", "cluster.sh").toAbsolutePath().normalize();
  static final List<String> SERVICES = List.of("frontend", "history", "matching", "worker");
  private static TemporalCluster shared;
  private final Path dir;
  private final EmbeddedPostgres postgres;
  private final String address;

  private TemporalCluster(Path dir, EmbeddedPostgres postgres, String address) {
    this.dir = dir;
    this.postgres = postgres;
    this.address = address;
  }

  /**
   * Whether the suite's shared service runs on a Temporal cluster ({@code -Dordinal.it.temporal=cluster},
   * the suite's default) rather than on the dev server it starts itself.
   */
  static boolean forSharedService() {
    return "cluster".equals(System.getProperty("ordinal.it.temporal", "dev"));
  }

  /** One cluster for every service that asks for the shared one (started on first use, stopped at exit). */
  static synchronized TemporalCluster shared() throws IOException, InterruptedException {
    if (shared == null) {
      shared = start("shared");
      Runtime.getRuntime().addShutdownHook(new Thread(shared::close));
    }
    return shared;
  }

  /** A new cluster (four history shards), its PostgreSQL and state under target/e2e. */
  static TemporalCluster start(String name) throws IOException, InterruptedException {
    Path dir = Path.of("target", "e2e", "temporal-" + name + "-" + System.currentTimeMillis()).toAbsolutePath();
    Files.createDirectories(dir);
    EmbeddedPostgres postgres = EmbeddedPostgres.builder()
        .setDataDirectory(dir.resolve("postgres"))
        .setCleanDataDirectory(false)
        .setPort(OrdinalService.freePort())
        .setServerConfig("listen_addresses", "127.0.0.1")
        .setServerConfig("max_connections", "200")
        .setOutputRedirector(ProcessBuilder.Redirect.appendTo(dir.resolve("postgres.log").toFile()))
        .setErrorRedirector(ProcessBuilder.Redirect.appendTo(dir.resolve("postgres.log").toFile()))
        .start();
    try {
      Map<String, String> env = new HashMap<>(databaseEnv(postgres));
      // Ports from the suite's own picker, as every other port of the suite: classes run side by side.
      List<String> ports = new ArrayList<>();
      for (int i = 0; i < 9; i++) {
        ports.add(Integer.toString(OrdinalService.freePort()));
      }
      env.put("TEMPORAL_PORTS", String.join(" ", ports));
      String address = run(env, "start", dir.resolve("cluster").toString()).out().strip();
      return new TemporalCluster(dir, postgres, address);
    } catch (IOException | InterruptedException | RuntimeException e) {
      try {
        run(Map.of(), "stop", dir.resolve("cluster").toString()); // what a failed start left running
      } catch (IOException | RuntimeException stopFailed) {
        e.addSuppressed(stopFailed);
      }
      postgres.close();
      throw e;
    }
  }

  private static Map<String, String> databaseEnv(EmbeddedPostgres postgres) {
    // zonky's superuser, trusted on loopback; the services connect as it.
    return Map.of("TEMPORAL_DB_HOST", "127.0.0.1", "TEMPORAL_DB_PORT", Integer.toString(postgres.getPort()),
        "TEMPORAL_DB_USER", "postgres", "TEMPORAL_DB_PASSWORD", "");
  }

  /** The frontend's gRPC address. */
  String address() {
    return address;
  }

  /** Registers {@code namespace} and waits until the frontend serves it. */
  void namespace(String namespace) throws IOException, InterruptedException {
    run(Map.of(), "namespace", dir.resolve("cluster").toString(), namespace);
  }

  /** SIGKILL to one service (frontend, history, matching or worker), as a crash. */
  void kill(String service) throws IOException, InterruptedException {
    run(Map.of(), "kill", dir.resolve("cluster").toString(), service);
  }

  /** Starts a killed service again on its ports. */
  void restart(String service) throws IOException, InterruptedException {
    run(Map.of(), "restart", dir.resolve("cluster").toString(), service);
  }

  @Override
  public void close() {
    try {
      run(Map.of(), "stop", dir.resolve("cluster").toString());
    } catch (IOException | InterruptedException | RuntimeException e) {
      System.err.println("could not stop the Temporal cluster in " + dir + ": " + e);
    }
    try {
      postgres.close();
    } catch (IOException e) {
      System.err.println("could not stop the Temporal cluster's PostgreSQL: " + e);
    }
  }

  private static Command.Result run(Map<String, String> env, String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of(SCRIPT.toString()));
    command.addAll(List.of(args));
    Map<String, String> all = new HashMap<>(env);
    String cli = System.getenv("ORDINAL_TEMPORAL_CLI");
    if (cli != null) {
      all.put("TEMPORAL_CLI", cli);
    }
    // The services it launches write to logs of their own, so its output closes when it exits.
    Command.Result result = Command.run(Duration.ofMinutes(3), all, null, null, command);
    if (result.code() != 0) {
      throw new IllegalStateException("cluster.sh " + String.join(" ", args) + " exited " + result.code()
          + ":\n" + result.output());
    }
    return result;
  }
}
