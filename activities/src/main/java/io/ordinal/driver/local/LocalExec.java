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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * kubectl exec on the local driver: the command runs in the container's mount and UTS namespaces
 * (through {@code nsenter}, as exec probes do) with the container's environment and working directory, on
 * pipes, or on a pseudo-terminal (pty4j) when the client asked for one.
 */
final class LocalExec {
  private static final String NSENTER = "/usr/bin/nsenter";
  /** The terminal's size until the client sends its own (a resize message follows at once). */
  private static final int INITIAL_COLUMNS = 80;
  private static final int INITIAL_ROWS = 24;

  /** Where and how a container's commands run: its process (whose mount namespace they join), env, working dir and user. */
  record Target(long containerPid, Map<String, String> env, String workingDir, ContainerUser user) {}

  private LocalExec() {}

  static ExecProcess start(Target target, ExecRequest request) throws IOException {
    List<String> argv = new ArrayList<>();
    String hostDir = target.workingDir();
    if (ContainerProcess.mountNamespacesAvailable() && Files.isExecutable(Path.of(NSENTER))) {
      // --wdns resolves the working dir inside the container's mounts (it may be below a volume).
      // --uts joins the container's own namespace rather than making one with the same name: the
      // command then sees exactly the container's hostname, whatever set it, with nothing to repeat.
      argv.addAll(List.of(NSENTER, "--target", Long.toString(target.containerPid()), "--mount", "--uts",
          "--wdns=" + target.workingDir(), "--"));
      hostDir = "/";
    }
    argv.addAll(target.user().setpriv()); // the container's user, never root unless the container runs as root
    argv.addAll(request.command());
    Map<String, String> env = new LinkedHashMap<>(target.env());
    if (request.tty()) {
      // As container runtimes do for a terminal, unless the container sets its own.
      env.putIfAbsent("TERM", "xterm");
      return new Terminal(new PtyProcessBuilder(argv.toArray(String[]::new)).setEnvironment(env)
          .setDirectory(hostDir).setRedirectErrorStream(true).setConsole(false)
          .setInitialColumns(INITIAL_COLUMNS).setInitialRows(INITIAL_ROWS).start(), request);
    }
    ProcessBuilder builder = new ProcessBuilder(argv).directory(new File(hostDir))
        .redirectInput(request.stdin() ? ProcessBuilder.Redirect.PIPE : ProcessBuilder.Redirect.from(new File("/dev/null")))
        .redirectOutput(request.stdout() ? ProcessBuilder.Redirect.PIPE : ProcessBuilder.Redirect.DISCARD)
        .redirectError(request.stderr() ? ProcessBuilder.Redirect.PIPE : ProcessBuilder.Redirect.DISCARD);
    builder.environment().clear();
    builder.environment().putAll(env);
    return new Piped(builder.start(), request);
  }

  /** What both kinds share: waiting for and ending the process this service started. */
  private abstract static class Started implements ExecProcess {
    final Process process;

    Started(Process process) {
      this.process = process;
    }

    @Override
    public int waitFor() throws InterruptedException {
      return process.waitFor();
    }

    @Override
    public boolean alive() {
      return process.isAlive();
    }

    @Override
    public void kill() {
      // Only this process and its own descendants: what the exec started, nothing of the container's.
      process.toHandle().descendants().forEach(ProcessHandle::destroyForcibly);
      process.destroyForcibly();
    }
  }

  /** A command on pipes: stdin, stdout and stderr each as the request attached them. */
  private static final class Piped extends Started {
    private final ExecRequest request;

    Piped(Process process, ExecRequest request) {
      super(process);
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

    Terminal(PtyProcess pty, ExecRequest request) {
      super(pty);
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
