package io.ordinal.driver.local;

import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.HTTPHeader;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Probe;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** Runs one probe once: exec, httpGet or tcpSocket, as the kubelet does. */
final class ProbeRunner {
  private static final HttpClient HTTP = HttpClient.newBuilder()
      .followRedirects(HttpClient.Redirect.NEVER).connectTimeout(Duration.ofSeconds(5)).build();

  private ProbeRunner() {}

  /**
   * @param podIp the default host of httpGet and tcpSocket probes
   * @param container where exec probes run (as kubectl exec does), or null when the container has no process
   */
  static boolean run(Probe probe, String podIp, List<ContainerPort> ports, LocalExec.Target container) {
    Duration timeout = Duration.ofSeconds(Math.max(1, probe.getTimeoutSeconds() == null ? 1 : probe.getTimeoutSeconds()));
    try {
      if (probe.getExec() != null) {
        return container != null && exec(probe.getExec().getCommand(), container, timeout, Map.of());
      }
      if (probe.getHttpGet() != null) {
        int code = HTTP.send(httpGet(probe, podIp, ports, timeout), HttpResponse.BodyHandlers.discarding()).statusCode();
        return code >= 200 && code < 400;
      }
      if (probe.getTcpSocket() != null) {
        var tcp = probe.getTcpSocket();
        String host = tcp.getHost() == null || tcp.getHost().isEmpty() ? podIp : tcp.getHost();
        try (Socket socket = new Socket()) {
          socket.connect(new InetSocketAddress(host, port(tcp.getPort(), ports)), (int) timeout.toMillis());
          return true;
        }
      }
      return false;
    } catch (Exception e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      return false;
    }
  }

  /**
   * The output of a probe that succeeds (an exec's stdout and stderr, an httpGet's body, at most
   * 4 KiB of either); empty when it fails or times out.
   */
  static Optional<String> output(Probe probe, String podIp, List<ContainerPort> ports, LocalExec.Target container) {
    Duration timeout = Duration.ofSeconds(Math.max(1, probe.getTimeoutSeconds() == null ? 1 : probe.getTimeoutSeconds()));
    try {
      if (probe.getExec() != null && container != null) {
        Started started = start(probe.getExec().getCommand(), container, Map.of(), true);
        // Read beside it, so that a chatty command never blocks on a full pipe.
        CompletableFuture<String> read = CompletableFuture.supplyAsync(() -> {
          try (InputStream in = started.process().getInputStream()) {
            byte[] head = in.readNBytes(4096);
            in.transferTo(OutputStream.nullOutputStream());
            return new String(head, StandardCharsets.UTF_8);
          } catch (IOException e) {
            return "";
          }
        }, task -> Thread.ofVirtual().start(task));
        if (!started.finished(timeout)) {
          return Optional.empty();
        }
        String out = read.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        return started.process().exitValue() == 0 ? Optional.of(out) : Optional.empty();
      }
      if (probe.getHttpGet() != null) {
        HttpResponse<String> response = HTTP.send(httpGet(probe, podIp, ports, timeout), HttpResponse.BodyHandlers.ofString());
        String body = response.body();
        return response.statusCode() >= 200 && response.statusCode() < 400
            ? Optional.of(body.length() > 4096 ? body.substring(0, 4096) : body) : Optional.empty();
      }
      return Optional.empty();
    } catch (Exception e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      return Optional.empty();
    }
  }

  /** Runs {@code command} in the container (with {@code env} added to its own) until it exits or {@code timeout} passes. */
  static boolean exec(List<String> command, LocalExec.Target container, Duration timeout, Map<String, String> env)
      throws IOException, InterruptedException {
    Started started = start(command, container, env, false);
    return started.finished(timeout) && started.process().exitValue() == 0;
  }

  /** A command started in a container, whose pid file names it there. */
  private record Started(Process process, Path pidFile) {
    /** Whether it exited within {@code timeout}; if not, it is killed in the container. */
    boolean finished(Duration timeout) throws InterruptedException {
      if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        LocalExec.kill(process, pidFile);
        return false;
      }
      LocalExec.forget(pidFile);
      return true;
    }
  }

  /** Starts {@code command} in the container, its output (stdout and stderr) kept to read or discarded. */
  private static Started start(List<String> command, LocalExec.Target container, Map<String, String> env,
      boolean keepOutput) throws IOException {
    Path pidFile = container.pidFile();
    ProcessBuilder builder = new ProcessBuilder(container.exec(command, false, pidFile, env)).redirectErrorStream(true);
    if (!keepOutput) {
      builder.redirectOutput(ProcessBuilder.Redirect.DISCARD);
    }
    builder.environment().clear();
    builder.environment().putAll(Runc.environment());
    return new Started(builder.start(), pidFile);
  }

  private static HttpRequest httpGet(Probe probe, String podIp, List<ContainerPort> ports, Duration timeout) {
    var get = probe.getHttpGet();
    String host = get.getHost() == null || get.getHost().isEmpty() ? podIp : get.getHost();
    String scheme = get.getScheme() == null ? "http" : get.getScheme().toLowerCase();
    String path = get.getPath() == null || get.getPath().isEmpty() ? "/" : get.getPath();
    URI uri = URI.create(scheme + "://" + host + ":" + port(get.getPort(), ports) + (path.startsWith("/") ? path : "/" + path));
    HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(timeout).GET()
        .header("User-Agent", "kube-probe/ordinal");
    for (HTTPHeader header : get.getHttpHeaders() == null ? List.<HTTPHeader>of() : get.getHttpHeaders()) {
      request.header(header.getName(), header.getValue());
    }
    return request.build();
  }

  /** A probe's port: a number, or the name of one of the container's ports. */
  static int port(IntOrString port, List<ContainerPort> ports) {
    if (port == null) {
      throw new IllegalArgumentException("probe port is required");
    }
    if (port.getIntVal() != null) {
      return port.getIntVal();
    }
    return ports.stream().filter(p -> port.getStrVal().equals(p.getName())).findFirst()
        .map(ContainerPort::getContainerPort)
        .orElseGet(() -> Integer.parseInt(port.getStrVal()));
  }
}
