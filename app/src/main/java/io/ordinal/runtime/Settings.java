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
    boolean temporalHeadless,
    String dbUrl,
    String dbUser,
    String dbPassword,
    Path tlsCertFile,
    Path tlsKeyFile) {

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
        Boolean.parseBoolean(env.getOrDefault("ORDINAL_TEMPORAL_HEADLESS", "false")),
        blankToNull(env.get("ORDINAL_DB_URL")),
        env.getOrDefault("ORDINAL_DB_USER", "postgres"),
        env.getOrDefault("ORDINAL_DB_PASSWORD", "postgres"),
        pathOrNull(env.get("ORDINAL_TLS_CERT_FILE")),
        pathOrNull(env.get("ORDINAL_TLS_KEY_FILE")));
  }

  private static Path pathOrNull(String value) {
    return value == null || value.isBlank() ? null : Path.of(value).toAbsolutePath();
  }

  private static String blankToNull(String value) {
    return value == null || value.isBlank() ? null : value;
  }
}
