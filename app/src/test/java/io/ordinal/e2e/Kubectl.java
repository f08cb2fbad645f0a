package io.ordinal.e2e;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

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
    ProcessBuilder builder = new ProcessBuilder(command);
    builder.environment().putAll(env);
    return finish(builder, stdin, args);
  }

  /** Runs {@code builder} (kubectl, or a wrapper of it) with this kubeconfig, feeding it {@code stdin}. */
  private Result finish(ProcessBuilder builder, String stdin, String... args) {
    configure(builder);
    try {
      Path out = Files.createTempFile(home, "out", ".txt");
      Path err = Files.createTempFile(home, "err", ".txt");
      if (stdin == null) {
        builder.redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
      }
      Process process = builder.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
      if (stdin != null) {
        try (var input = process.getOutputStream()) {
          input.write(stdin.getBytes(StandardCharsets.UTF_8));
        }
      }
      if (!process.waitFor(2, TimeUnit.MINUTES)) {
        process.destroyForcibly();
        throw new AssertionError("kubectl " + String.join(" ", args) + " did not finish in 2 minutes");
      }
      return new Result(process.exitValue(), Files.readString(out), Files.readString(err));
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
    List<String> command = List.of("script", "-q", "-e", "-c", line.toString(), "/dev/null");
    return finish(new ProcessBuilder(command), null, args);
  }

  /** This kubeconfig, and discovery and OpenAPI caches of its own, so no test sees another server's. */
  private ProcessBuilder configure(ProcessBuilder builder) {
    builder.environment().put("KUBECONFIG", kubeconfig.toString());
    builder.environment().put("KUBECACHEDIR", home.resolve("cache").toString());
    builder.environment().put("HOME", home.toString());
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
