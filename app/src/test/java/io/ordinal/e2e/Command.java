package io.ordinal.e2e;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A short-lived command run to completion, its output captured. (Processes a test keeps running and
 * stops later, as the service or a watch, are started where they are used.)
 */
final class Command {
  record Result(int code, String out, String err) {
    /** stdout, then stderr: for callers that read the two as one. */
    String output() {
      return out.isEmpty() || err.isEmpty() || out.endsWith("\n") ? out + err : out + "\n" + err;
    }
  }

  private Command() {}

  static Result run(Duration timeout, String... command) throws IOException, InterruptedException {
    return run(timeout, Map.of(), null, null, List.of(command));
  }

  /**
   * @param env set in the test's environment for it; a null value unsets the variable
   * @param dir its working directory (null: the test's)
   * @param stdin written to it, then closed (null: it reads /dev/null)
   * @throws AssertionError if it runs past {@code timeout}: it and its descendants are killed
   */
  static Result run(Duration timeout, Map<String, String> env, Path dir, String stdin, List<String> command)
      throws IOException, InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    ProcessBuilder builder = new ProcessBuilder(command);
    env.forEach((name, value) -> {
      if (value == null) {
        builder.environment().remove(name);
      } else {
        builder.environment().put(name, value);
      }
    });
    if (dir != null) {
      builder.directory(dir.toFile());
    }
    if (stdin == null) {
      builder.redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
    }
    Process process = builder.start();
    // Both drained at once: a command blocked writing one while we read the other would never finish.
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    Thread outReader = drain(process.getInputStream(), out);
    Thread errReader = drain(process.getErrorStream(), err);
    if (stdin != null) {
      Thread.ofPlatform().daemon().start(() -> {
        try (OutputStream in = process.getOutputStream()) {
          in.write(stdin.getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
          // it exited without reading all of it: its exit code tells
        }
      });
    }
    boolean finished;
    try {
      finished = process.waitFor(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)
          && outReader.join(Duration.ofNanos(deadline - System.nanoTime()))
          && errReader.join(Duration.ofNanos(deadline - System.nanoTime()));
    } catch (InterruptedException e) {
      kill(process);
      throw e;
    }
    if (!finished) {
      boolean exited = !process.isAlive();
      kill(process);
      long grace = System.nanoTime() + TimeUnit.SECONDS.toNanos(2); // for what it wrote last
      outReader.join(Duration.ofNanos(grace - System.nanoTime()));
      errReader.join(Duration.ofNanos(grace - System.nanoTime()));
      throw new AssertionError(String.join(" ", command)
          + (exited ? " exited " + process.exitValue() + ", but what it started still held its output after "
              : " did not finish in ") + timeout.toString().substring(2).toLowerCase()
          + "\nstdout: " + text(out) + "\nstderr: " + text(err));
    }
    return new Result(process.exitValue(), text(out), text(err));
  }

  private static Thread drain(InputStream from, ByteArrayOutputStream to) {
    return Thread.ofPlatform().daemon().start(() -> {
      byte[] buffer = new byte[8192];
      try (from) {
        for (int n; (n = from.read(buffer)) >= 0; ) {
          to.write(buffer, 0, n);
        }
      } catch (IOException e) {
        // closed under it: the command was killed
      }
    });
  }

  private static void kill(Process process) {
    // Listed first: once it dies, its children are re-parented and no longer found through it.
    List<ProcessHandle> descendants = process.descendants().toList();
    process.destroyForcibly();
    descendants.forEach(ProcessHandle::destroyForcibly);
  }

  private static String text(ByteArrayOutputStream bytes) {
    return bytes.toString(StandardCharsets.UTF_8);
  }
}
