package io.ordinal.e2e;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Prometheus's own checker, built by the launcher from the Go module proxy into its cache
 * ({@code ORDINAL_PROMTOOL} names it; {@code ./ordinal test} sets it).
 */
final class Promtool {
  record Result(int exitCode, String output) {}

  private Promtool() {}

  static Path binary() {
    String path = System.getenv("ORDINAL_PROMTOOL");
    if (path == null || path.isBlank()) {
      throw new IllegalStateException("ORDINAL_PROMTOOL is not set: run the tests through ./ordinal test, which builds promtool");
    }
    return Path.of(path);
  }

  /** {@code promtool check metrics}, the exposition on its stdin: exit 1 is a parse error, 3 lint problems. */
  static Result checkMetrics(String exposition) throws IOException, InterruptedException {
    return run(exposition, "check", "metrics");
  }

  /** {@code promtool test rules FILE}: the rules' unit tests (rule files relative to FILE). */
  static Result testRules(Path tests) throws IOException, InterruptedException {
    return run(null, "test", "rules", tests.toString());
  }

  /** {@code promtool check rules FILE}. */
  static Result checkRules(Path rules) throws IOException, InterruptedException {
    return run(null, "check", "rules", rules.toString());
  }

  private static Result run(String stdin, String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of(binary().toString()));
    command.addAll(List.of(args));
    Command.Result result = Command.run(Duration.ofSeconds(60), Map.of(), null, stdin, command);
    return new Result(result.code(), result.output());
  }
}
