package io.ordinal.driver.local;

import com.fasterxml.jackson.databind.JsonNode;
import io.micronaut.context.annotation.Value;
import io.ordinal.store.KubeJson;
import jakarta.inject.Singleton;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The OCI runtime that runs local containers: Debian's {@code runc}, with its state kept under the
 * data dir (so two installations on one machine never see each other's containers). Every call
 * runs it with a fixed environment of its own: nothing of a pod's env reaches a process that runs
 * as root on the machine; the container's process gets its env from its bundle.
 */
@Singleton
public class Runc {
  static final List<String> CANDIDATES = List.of("/usr/sbin/runc", "/usr/bin/runc", "/usr/local/sbin/runc",
      "/usr/local/bin/runc");
  private static final long CALL_TIMEOUT_SECONDS = 30;

  private final String binary;
  private final Path root;

  public Runc(@Value("${ordinal.runc:}") String configured, LocalPaths paths) {
    this.binary = configured.isEmpty()
        ? CANDIDATES.stream().filter(c -> Files.isExecutable(Path.of(c))).findFirst().orElse(null)
        : configured;
    this.root = paths.runtimeState();
  }

  /** Why containers cannot run here, if they cannot: the runtime needs root and the runc binary. */
  public Optional<String> unavailable() {
    if (!ContainerProcess.ROOT) {
      return Optional.of("the local driver runs containers with runc and needs root; this service runs as "
          + System.getProperty("user.name"));
    }
    if (binary == null || !Files.isExecutable(Path.of(binary))) {
      return Optional.of("the local driver needs runc (Debian package runc; or ORDINAL_RUNC=/path/to/runc): "
          + (binary == null ? "not found in " + CANDIDATES : binary + " is not executable"));
    }
    if (!Files.isExecutable(Path.of(PodSandbox.PAUSE))) {
      return Optional.of("the local driver needs " + PodSandbox.PAUSE + " as each pod's sandbox process (Debian package catatonit)");
    }
    return Optional.empty();
  }

  /** {@code runc --root <state> ARGS}: the argv of a runtime call, for callers that start it themselves. */
  List<String> command(String... args) {
    List<String> argv = new ArrayList<>(List.of(binary, "--root", root.toString()));
    argv.addAll(List.of(args));
    return argv;
  }

  /** The environment every runtime call gets, and nothing else. */
  static Map<String, String> environment() {
    return HostCommand.ENV;
  }

  /** Writes a bundle's config.json (and an empty rootfs when it has none). */
  static void writeBundle(Path bundle, OciSpec.Spec spec) throws IOException {
    Files.createDirectories(bundle);
    Rootfs.prepare(bundle.resolve("rootfs"));
    Path tmp = bundle.resolve("config.json.tmp");
    KubeJson.JSON.writeValue(tmp.toFile(), spec);
    Files.move(tmp, bundle.resolve("config.json"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
  }

  /**
   * Starts a container detached: the pod's sandbox. Its stdio are the runtime's, which it keeps: a
   * file, not a pipe this service would wait on for ever.
   */
  void runDetached(Path bundle, String id) throws IOException {
    Path output = bundle.resolve("runtime.log");
    ProcessBuilder builder = new ProcessBuilder(command("run", "--detach", "--bundle", bundle.toString(), id))
        .redirectErrorStream(true).redirectOutput(output.toFile())
        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
    builder.environment().clear();
    builder.environment().putAll(HostCommand.ENV);
    Process process = builder.start();
    try {
      if (!process.waitFor(CALL_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new IOException("runc run " + id + ": no answer within " + CALL_TIMEOUT_SECONDS + " s");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
    if (process.exitValue() != 0) {
      throw new IOException("runc run " + id + ": " + Files.readString(output).strip());
    }
  }

  /** Its state: status ("created", "running", "stopped") and init pid; empty when the runtime knows no such container. */
  Optional<State> state(String id) {
    if (binary == null) {
      return Optional.empty();
    }
    try {
      HostCommand.Result result = run(command("state", id));
      if (result.code() != 0) {
        return Optional.empty();
      }
      JsonNode state = KubeJson.JSON.readTree(result.output());
      return Optional.of(new State(state.path("status").asText(), state.path("pid").asLong()));
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  record State(String status, long pid) {
    boolean running() {
      return "running".equals(status) && pid > 0;
    }
  }

  /** Sends {@code signal} to the container's init process, or with {@code all} to each of its processes. */
  boolean kill(String id, String signal, boolean all) {
    if (binary == null) {
      return false;
    }
    try {
      return run(all ? command("kill", "--all", id, signal) : command("kill", id, signal)).code() == 0;
    } catch (IOException e) {
      return false;
    }
  }

  /** Removes the container, killing what still runs in it; nothing when there is none. */
  void delete(String id) throws IOException {
    if (binary == null) {
      return; // nothing can have run
    }
    HostCommand.Result result = run(command("delete", "--force", id));
    if (result.code() != 0 && !result.output().contains("does not exist")) {
      throw new IOException("runc delete " + id + ": " + result.output().strip());
    }
  }

  /** The ids of the containers the runtime knows. */
  List<String> list() throws IOException {
    if (binary == null) {
      return List.of();
    }
    HostCommand.Result result = HostCommand.checkStdout(command("list", "--format", "json"));
    JsonNode list = KubeJson.JSON.readTree(result.output().isBlank() ? "[]" : result.output());
    List<String> ids = new ArrayList<>();
    list.forEach(c -> ids.add(c.path("id").asText()));
    return ids;
  }

  private static HostCommand.Result run(List<String> argv) throws IOException {
    return HostCommand.run(argv);
  }
}
