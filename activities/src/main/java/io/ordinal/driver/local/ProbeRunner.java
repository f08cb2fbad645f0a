package io.ordinal.driver.local;

import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.HTTPHeader;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Probe;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Runs one probe once: exec, httpGet or tcpSocket, as the kubelet does. */
final class ProbeRunner {
  private static final HttpClient HTTP = HttpClient.newBuilder()
      .followRedirects(HttpClient.Redirect.NEVER).connectTimeout(Duration.ofSeconds(5)).build();

  private ProbeRunner() {}

  /**
   * @param podIp the default host of httpGet and tcpSocket probes
   * @param containerPid exec probes run in this process's mount and UTS namespaces (when it has them)
   * @param user and as the container's user
   */
  static boolean run(Probe probe, String podIp, List<ContainerPort> ports, Map<String, String> env, long containerPid,
      ContainerUser user) {
    Duration timeout = Duration.ofSeconds(Math.max(1, probe.getTimeoutSeconds() == null ? 1 : probe.getTimeoutSeconds()));
    try {
      if (probe.getExec() != null) {
        return exec(probe.getExec().getCommand(), env, containerPid, timeout, user);
      }
      if (probe.getHttpGet() != null) {
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
        int code = HTTP.send(request.build(), HttpResponse.BodyHandlers.discarding()).statusCode();
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

  private static boolean exec(List<String> command, Map<String, String> env, long containerPid, Duration timeout,
      ContainerUser user) throws Exception {
    List<String> argv = new ArrayList<>();
    if (containerPid > 0 && ContainerProcess.mountNamespacesAvailable() && Files.isExecutable(Path.of("/usr/bin/nsenter"))) {
      // Joined, as kubectl exec joins them (LocalExec): the probe sees the container's files and hostname.
      argv.addAll(List.of("/usr/bin/nsenter", "--target", Long.toString(containerPid), "--mount", "--uts", "--"));
    }
    argv.addAll(user.setpriv()); // as the container's user, like everything that runs in it
    argv.addAll(command);
    ProcessBuilder builder = new ProcessBuilder(argv).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.DISCARD);
    builder.environment().clear();
    builder.environment().putAll(env);
    Process process = builder.start();
    if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      process.destroyForcibly();
      return false;
    }
    return process.exitValue() == 0;
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
