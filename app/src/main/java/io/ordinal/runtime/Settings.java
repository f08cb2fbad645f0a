package io.ordinal.runtime;

import java.nio.file.Path;
import java.util.Map;

/**
 * Start-up settings read from the environment (the launcher's contract). Everything has an
 * embedded default: no variable set means "start my own Temporal dev server and PostgreSQL".
 */
public record Settings(
    Path dataDir,
    String bindAddress,
    int httpPort,
    String temporalAddress,
    String temporalNamespace,
    String temporalCli,
    int temporalPort,
    int temporalUiPort,
    int codecPort,
    boolean temporalHeadless,
    String dbUrl,
    String dbUser,
    String dbPassword,
    Path tlsCertFile,
    Path tlsKeyFile,
    Path clientCaFile,
    Map<String, String> temporalTls,
    boolean embeddedDbFsync) {

  public static Settings fromEnvironment(Map<String, String> env) {
    return new Settings(
        Path.of(env.getOrDefault("ORDINAL_DATA_DIR", "var")).toAbsolutePath().normalize(),
        env.getOrDefault("ORDINAL_BIND_ADDRESS", "127.0.0.1"),
        Integer.parseInt(env.getOrDefault("ORDINAL_HTTP_PORT", "8080")),
        blankToNull(env.get("TEMPORAL_ADDRESS")),
        env.getOrDefault("TEMPORAL_NAMESPACE", "default"),
        env.getOrDefault("ORDINAL_TEMPORAL_CLI", "temporal"),
        Integer.parseInt(env.getOrDefault("ORDINAL_TEMPORAL_PORT", "7233")),
        Integer.parseInt(env.getOrDefault("ORDINAL_TEMPORAL_UI_PORT", "8233")),
        // 0: a free port, bound before the dev server is told it (see EmbeddedRuntime).
        Integer.parseInt(env.getOrDefault("ORDINAL_CODEC_PORT", "0")),
        Boolean.parseBoolean(env.getOrDefault("ORDINAL_TEMPORAL_HEADLESS", "false")),
        blankToNull(env.get("ORDINAL_DB_URL")),
        env.getOrDefault("ORDINAL_DB_USER", "postgres"),
        env.getOrDefault("ORDINAL_DB_PASSWORD", "postgres"),
        pathOrNull(env.get("ORDINAL_TLS_CERT_FILE")),
        pathOrNull(env.get("ORDINAL_TLS_KEY_FILE")),
        pathOrNull(env.get("ORDINAL_CLIENT_CA_FILE")),
        temporalTls(env),
        // The embedded PostgreSQL syncs its commits to the disk; false trades a machine crash's
        // durability for speed (development, tests of something else).
        Boolean.parseBoolean(env.getOrDefault("ORDINAL_EMBEDDED_DB_FSYNC", "true")));
  }

  /**
   * The connection to an external Temporal, in the temporal CLI's own variables, as the Micronaut
   * properties {@code TemporalFactory} reads.
   */
  private static Map<String, String> temporalTls(Map<String, String> env) {
    Map<String, String> properties = new java.util.TreeMap<>();
    Map.of("TEMPORAL_TLS", "ordinal.temporal.tls.enabled", "TEMPORAL_TLS_CA", "ordinal.temporal.tls.ca",
        "TEMPORAL_TLS_CERT", "ordinal.temporal.tls.cert", "TEMPORAL_TLS_KEY", "ordinal.temporal.tls.key",
        "TEMPORAL_TLS_SERVER_NAME", "ordinal.temporal.tls.server-name", "TEMPORAL_API_KEY", "ordinal.temporal.api-key")
        .forEach((variable, property) -> {
          String value = blankToNull(env.get(variable));
          if (value != null) {
            properties.put(property, value);
          }
        });
    return properties;
  }

  private static Path pathOrNull(String value) {
    return value == null || value.isBlank() ? null : Path.of(value).toAbsolutePath();
  }

  private static String blankToNull(String value) {
    return value == null || value.isBlank() ? null : value;
  }
}
