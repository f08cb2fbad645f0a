package io.ordinal.driver.local;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A program of the machine the driver runs as root (runc, ip, rm): with an environment of its own
 * and nothing of a pod's, stdin /dev/null, its output read, a bounded wait.
 */
final class HostCommand {
  static final Map<String, String> ENV = Map.of("PATH", OciSpec.PATH, "LC_ALL", "C");
  private static final long TIMEOUT_SECONDS = 30;

  record Result(int code, String output) {}

  private HostCommand() {}

  static Result run(List<String> argv) throws IOException {
    return run(argv, true);
  }

  /**
   * As {@link #check}, with only what the program writes to stdout: for output that is parsed, which
   * a warning on stderr would break (runc list says on stderr which container it could not load, one
   * created or deleted meanwhile).
   */
  static Result checkStdout(List<String> argv) throws IOException {
    Result result = run(argv, false);
    if (result.code() != 0) {
      throw new IOException(String.join(" ", argv) + ": exited " + result.code());
    }
    return result;
  }

  private static Result run(List<String> argv, boolean withStderr) throws IOException {
    ProcessBuilder builder = new ProcessBuilder(argv).redirectErrorStream(withStderr)
        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
    if (!withStderr) {
      builder.redirectError(ProcessBuilder.Redirect.DISCARD);
    }
    builder.environment().clear();
    builder.environment().putAll(ENV);
    Process process = builder.start();
    try {
      byte[] output = process.getInputStream().readAllBytes();
      if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new IOException(String.join(" ", argv) + ": no answer within " + TIMEOUT_SECONDS + " s");
      }
      return new Result(process.exitValue(), new String(output, StandardCharsets.UTF_8));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
      throw new IOException("interrupted", e);
    }
  }

  /** As {@link #run}, failing with the program's own words when it exits non-zero. */
  static Result check(List<String> argv) throws IOException {
    Result result = run(argv);
    if (result.code() != 0) {
      throw new IOException(String.join(" ", argv) + ": " + result.output().strip());
    }
    return result;
  }
}
