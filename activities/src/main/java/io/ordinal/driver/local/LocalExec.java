package io.ordinal.driver.local;

import com.pty4j.PtyProcess;
import com.pty4j.PtyProcessBuilder;
import com.pty4j.WinSize;
import io.ordinal.driver.ExecProcess;
import io.ordinal.driver.ExecRequest;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * kubectl exec on the local driver: {@code runc exec} into the running container, which runs the
 * command as the container's own process runs (its user, groups, capabilities, no_new_privs,
 * seccomp, namespaces, cgroup, env and working dir), on pipes, or on a pseudo-terminal (pty4j)
 * when the client asked for one. Nothing of the container's filesystem runs on the machine.
 */
final class LocalExec {
  /** The terminal's size until the client sends its own (a resize message follows at once). */
  private static final int INITIAL_COLUMNS = 80;
  private static final int INITIAL_ROWS = 24;
  private static final int COMMAND_NOT_RUN = 127;

  /** A running container: the runtime that runs it, its id, and where an exec's pid file may go. */
  record Target(Runc runc, String containerId, Path bundle) {
    /**
     * {@code runc exec}: the container's process spec with {@code command} as its args; a terminal
     * with TERM=xterm unless the container sets TERM (as container runtimes do). The exec's own pid
     * goes to {@code pidFile}, so that a timeout or a client gone ends the command, not only the runtime.
     */
    List<String> exec(List<String> command, boolean tty, Path pidFile, Map<String, String> extraEnv) {
      List<String> argv = new ArrayList<>(runc.command("exec", "--pid-file", pidFile.toString()));
      if (tty) {
        argv.addAll(List.of("--tty", "--env", "TERM=xterm"));
      }
      extraEnv.forEach((name, value) -> argv.addAll(List.of("--env", name + "=" + value)));
      argv.add(containerId);
      argv.addAll(command); // after the id: the runtime reads no more flags
      return argv;
    }

    Path pidFile() {
      return bundle.resolve("exec-" + UUID.randomUUID() + ".pid");
    }
  }

  private LocalExec() {}

  static ExecProcess start(Target target, ExecRequest request) throws IOException {
    Path pidFile = target.pidFile();
    List<String> argv = target.exec(request.command(), request.tty(), pidFile, Map.of());
    if (request.tty()) {
      return new Terminal(new PtyProcessBuilder(argv.toArray(String[]::new)).setEnvironment(Runc.environment())
          .setDirectory("/").setRedirectErrorStream(true).setConsole(false)
          .setInitialColumns(INITIAL_COLUMNS).setInitialRows(INITIAL_ROWS).start(), request, pidFile);
    }
    ProcessBuilder builder = new ProcessBuilder(argv).directory(new File("/"))
        .redirectInput(request.stdin() ? ProcessBuilder.Redirect.PIPE : ProcessBuilder.Redirect.from(new File("/dev/null")))
        .redirectOutput(request.stdout() ? ProcessBuilder.Redirect.PIPE : ProcessBuilder.Redirect.DISCARD)
        .redirectError(request.stderr() ? ProcessBuilder.Redirect.PIPE : ProcessBuilder.Redirect.DISCARD);
    builder.environment().clear();
    builder.environment().putAll(Runc.environment());
    return new Piped(builder.start(), request, pidFile);
  }

  /** Kills the command an exec started in the container (its pid, from the runtime's pid file), then the runtime. */
  static void kill(Process runtime, Path pidFile) {
    try {
      if (Files.exists(pidFile)) {
        long pid = Long.parseLong(Files.readString(pidFile).trim());
        ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
      }
    } catch (IOException | NumberFormatException e) {
      // not written yet, or already gone: the runtime's end below suffices
    }
    runtime.destroyForcibly();
    forget(pidFile);
  }

  static void forget(Path pidFile) {
    try {
      Files.deleteIfExists(pidFile);
    } catch (IOException e) {
      // the pod's directory goes with the pod
    }
  }

  /** What both kinds share: waiting for and ending the process this service started. */
  private abstract static class Started implements ExecProcess {
    final Process process;
    private final Path pidFile;

    Started(Process process, Path pidFile) {
      this.process = process;
      this.pidFile = pidFile;
    }

    /**
     * The command's exit code; when the runtime could not start it (no such command: the runtime
     * wrote no pid and said why on stderr), 127, as a shell answers a command it cannot find.
     */
    @Override
    public int waitFor() throws InterruptedException {
      int code = process.waitFor();
      boolean started = Files.exists(pidFile);
      forget(pidFile);
      return code != 0 && !started ? COMMAND_NOT_RUN : code;
    }

    @Override
    public boolean alive() {
      return process.isAlive();
    }

    @Override
    public void kill() {
      LocalExec.kill(process, pidFile); // what the exec started, nothing else of the container's
    }
  }

  /** A command on pipes: stdin, stdout and stderr each as the request attached them. */
  private static final class Piped extends Started {
    private final ExecRequest request;

    Piped(Process process, ExecRequest request, Path pidFile) {
      super(process, pidFile);
      this.request = request;
    }

    @Override
    public Optional<OutputStream> stdin() {
      return request.stdin() ? Optional.of(process.getOutputStream()) : Optional.empty();
    }

    @Override
    public Optional<InputStream> stdout() {
      return request.stdout() ? Optional.of(process.getInputStream()) : Optional.empty();
    }

    @Override
    public Optional<InputStream> stderr() {
      return request.stderr() ? Optional.of(process.getErrorStream()) : Optional.empty();
    }

    @Override
    public void resize(int columns, int rows) {
      // no terminal
    }
  }

  /** A command on a pseudo-terminal: one output (stdout and stderr as the terminal shows them), resizable. */
  private static final class Terminal extends Started {
    private final PtyProcess pty;
    private final ExecRequest request;

    Terminal(PtyProcess pty, ExecRequest request, Path pidFile) {
      super(pty, pidFile);
      this.pty = pty;
      this.request = request;
    }

    @Override
    public Optional<OutputStream> stdin() {
      return request.stdin() ? Optional.of(pty.getOutputStream()) : Optional.empty();
    }

    /** Always read, even when not attached: a terminal nobody drains blocks the command once it fills. */
    @Override
    public Optional<InputStream> stdout() {
      return Optional.of(pty.getInputStream());
    }

    @Override
    public Optional<InputStream> stderr() {
      return Optional.empty();
    }

    @Override
    public void resize(int columns, int rows) {
      if (columns > 0 && rows > 0 && pty.isRunning()) {
        pty.setWinSize(new WinSize(columns, rows));
      }
    }
  }
}
