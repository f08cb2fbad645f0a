package io.ordinal;

import io.micronaut.context.ApplicationContext;
import io.micronaut.runtime.server.EmbeddedServer;
import io.ordinal.api.LoopbackCodecListener;
import io.ordinal.api.PayloadTranscoder;
import io.ordinal.runtime.DatabaseRestore;
import io.ordinal.runtime.EmbeddedRuntime;
import io.ordinal.runtime.ServingTls;
import io.ordinal.runtime.Settings;
import io.swagger.v3.oas.annotations.OpenAPIDefinition;
import io.swagger.v3.oas.annotations.info.Info;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

@OpenAPIDefinition(info = @Info(title = "ordinal", version = "0.1.0",
    description = "StatefulSets (apps/v1) whose every scale and rollout is a durable Temporal workflow"))
public final class Application {
  private static final Logger log = LoggerFactory.getLogger(Application.class);

  private Application() {}

  public static void main(String[] args) throws Exception {
    if (args.length > 0 && args[0].equals("client-certificate")) {
      issueClientCertificate(args);
      return;
    }
    if (args.length == 3 && args[0].equals("restore-database")) {
      // The data dir's embedded database from a dump (./ordinal restore, which gives the pg_restore to run).
      try {
        DatabaseRestore.run(Settings.fromEnvironment(System.getenv()), Path.of(args[1]), Path.of(args[2]));
      } catch (IOException e) {
        System.err.println("ordinal: " + e.getMessage());
        System.exit(1);
      }
      return;
    }
    if (args.length > 0 && !args[0].equals("server")) {
      System.err.println("usage: ordinal server | ordinal client-certificate USER DAYS [GROUP...]"
          + " | ordinal restore-database DUMP PG_RESTORE");
      System.exit(2);
    }
    Settings settings = Settings.fromEnvironment(System.getenv());
    EmbeddedRuntime runtime;
    try {
      runtime = EmbeddedRuntime.start(settings);
    } catch (EmbeddedRuntime.InUseException e) {
      // Nothing has started yet: the message is all there is to say.
      System.err.println("ordinal: " + e.getMessage());
      System.exit(1);
      return;
    }
    log.info("PostgreSQL and Temporal ready {} ms after the JVM started",
        ManagementFactory.getRuntimeMXBean().getUptime());
    ApplicationContext context = null;
    EmbeddedServer server;
    try {
      context = ApplicationContext.builder()
          .deduceEnvironment(false)
          .properties(runtime.properties())
          .start();
      server = context.getBean(EmbeddedServer.class).start();
      if (runtime.codec() != null) {
        LoopbackCodecListener.serve(runtime.codec(), context.getBean(PayloadTranscoder.class), settings.temporalUiPort());
      }
    } catch (RuntimeException e) {
      if (e instanceof io.ordinal.temporal.TemporalPreflight.TemporalNotReady) {
        log.error("start-up failed: {}", e.getMessage()); // says what to do: no stack trace
      } else {
        log.error("start-up failed", e);
      }
      if (context != null) {
        context.close();
      }
      runtime.close();
      System.exit(1);
      return;
    }
    ApplicationContext started = context;
    log.info("serving {} ms after the JVM started", ManagementFactory.getRuntimeMXBean().getUptime());
    // One hook, so that the order is right: stop taking requests and work, then the database and Temporal.
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      log.info("stopping");
      server.stop();
      started.close();
      runtime.close();
    }, "ordinal-shutdown"));
    System.out.println("Ordinal API:      https://" + settings.bindAddress() + ":" + server.getPort()
        + " (CA " + settings.dataDir().resolve("tls/ca.crt") + ", admin token " + settings.dataDir().resolve("auth/admin.token")
        + "; ./ordinal kubeconfig prints both)");
    if (runtime.webUi() != null) {
      System.out.println("Temporal Web UI:  " + runtime.webUi() + "/namespaces/" + settings.temporalNamespace() + "/workflows"
          + " (its codec: http://127.0.0.1:" + runtime.codec().getAddress().getPort() + "/codec)");
    }
    System.out.println("Data directory:   " + settings.dataDir());
  }

  /**
   * {@code client-certificate USER DAYS [GROUP...]}: a client certificate signed by the data dir's
   * client CA, printed as JSON {certificate, key} (PEM) for {@code ./ordinal kubeconfig --user}.
   * Whoever can read the data dir is an administrator already: no server call needed.
   */
  private static void issueClientCertificate(String[] args) throws Exception {
    if (args.length < 3 || args[1].isBlank()) {
      System.err.println("usage: ordinal client-certificate USER DAYS [GROUP...]");
      System.exit(2);
    }
    Settings settings = Settings.fromEnvironment(System.getenv());
    ServingTls.ClientCertificate issued = ServingTls.issueClientCertificate(settings.dataDir(), args[1],
        java.util.Arrays.asList(args).subList(3, args.length), java.time.Duration.ofDays(Long.parseLong(args[2])));
    System.out.println(new com.fasterxml.jackson.databind.ObjectMapper().writeValueAsString(
        java.util.Map.of("certificate", issued.certificatePem(), "key", issued.keyPem())));
  }
}
