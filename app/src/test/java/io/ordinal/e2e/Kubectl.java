package io.ordinal.e2e;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The real kubectl binary against the service: a kubeconfig of its own (server = the service's URL,
 * the test's namespace), run as a process. {@code ORDINAL_KUBECTL} overrides the binary.
 */
final class Kubectl {
  static final String BINARY = System.getenv().getOrDefault("ORDINAL_KUBECTL", "kubectl");

  record Result(int code, String out, String err) {
    Result ok() {
      if (code != 0) {
        throw new AssertionError("kubectl exited " + code + "\nstdout: " + out + "\nstderr: " + err);
      }
      return this;
    }
  }

  private final Path kubeconfig;
  private final Path home;

  /**
   * @param caCertificate the CA the server's certificate is signed by
   * @param token the user's bearer token (null: no credentials, the anonymous user)
   */
  Kubectl(String server, Path caCertificate, String token, String namespace) {
    try {
      home = Files.createTempDirectory("kubectl-home");
      kubeconfig = home.resolve("config");
      Files.writeString(kubeconfig, """
          apiVersion: v1
          kind: Config
          clusters:
          - name: ordinal
            cluster: {server: "%s", certificate-authority: "%s"}
          contexts:
          - name: ordinal
            context: {cluster: ordinal, user: tester, namespace: "%s"}
          current-context: ordinal
          users:
          - name: tester
            user: %s
          """.formatted(server, caCertificate, namespace, token == null ? "{}" : "{token: \"" + token + "\"}"));
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /** kubectl with a kubeconfig made elsewhere (by {@code ./ordinal kubeconfig}, say). */
  Kubectl(String kubeconfigText) {
    try {
      home = Files.createTempDirectory("kubectl-home");
      kubeconfig = home.resolve("config");
      Files.writeString(kubeconfig, kubeconfigText);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  Path kubeconfig() {
    return kubeconfig;
  }

  Result run(String... args) {
    return run(null, Map.of(), args);
  }

  /** Runs kubectl with {@code stdin} (or none) and extra environment; waits up to two minutes. */
  Result run(String stdin, Map<String, String> env, String... args) {
    List<String> command = new ArrayList<>(List.of(BINARY));
    command.addAll(List.of(args));
    return finish(command, stdin, env);
  }

  /** Runs {@code command} (kubectl, or a wrapper of it) with this kubeconfig, feeding it {@code stdin}. */
  private Result finish(List<String> command, String stdin, Map<String, String> env) {
    Map<String, String> all = new HashMap<>(env);
    all.putAll(environment());
    try {
      Command.Result result = Command.run(Duration.ofMinutes(2), all, null, stdin, command);
      return new Result(result.code(), result.out(), result.err());
    } catch (IOException e) {
      throw new IllegalStateException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /**
   * Runs kubectl on a terminal of {@code columns} x {@code rows} (util-linux {@code script} gives it
   * a pseudo-terminal), for {@code exec -it}; the output is what the terminal showed.
   */
  Result runOnTerminal(int columns, int rows, String... args) {
    StringBuilder line = new StringBuilder("stty cols " + columns + " rows " + rows + "; exec " + quote(BINARY));
    for (String arg : args) {
      line.append(' ').append(quote(arg));
    }
    return finish(List.of("script", "-q", "-e", "-c", line.toString(), "/dev/null"), null, Map.of());
  }

  /** This kubeconfig, and discovery and OpenAPI caches of its own, so no test sees another server's. */
  private Map<String, String> environment() {
    return Map.of("KUBECONFIG", kubeconfig.toString(), "KUBECACHEDIR", home.resolve("cache").toString(),
        "HOME", home.toString());
  }

  private ProcessBuilder configure(ProcessBuilder builder) {
    builder.environment().putAll(environment());
    return builder;
  }

  private static String quote(String word) {
    return "'" + word.replace("'", "'\\''") + "'";
  }

  /** Starts kubectl with its output read by the caller as it comes (a watch); the caller destroys it. */
  Process startReading(String... args) throws IOException {
    List<String> command = new ArrayList<>(List.of(BINARY));
    command.addAll(List.of(args));
    return configure(new ProcessBuilder(command)).redirectError(ProcessBuilder.Redirect.DISCARD).start();
  }

  /** Starts kubectl and leaves it running (for {@code get -w}); the caller destroys it. */
  Process start(Path output, String... args) throws IOException {
    List<String> command = new ArrayList<>(List.of(BINARY));
    command.addAll(List.of(args));
    ProcessBuilder builder = configure(new ProcessBuilder(command)).redirectOutput(output.toFile())
        .redirectError(ProcessBuilder.Redirect.appendTo(output.toFile()));
    return builder.start();
  }
}
