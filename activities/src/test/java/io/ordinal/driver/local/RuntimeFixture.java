package io.ordinal.driver.local;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.ordinal.store.KubeJson;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Real containers for the driver's tests: this data dir's runc and one pod sandbox on the machine's
 * network (hostNetwork, so no pod network is claimed), as root. Skips the test where that is not possible.
 */
final class RuntimeFixture implements AutoCloseable {
  final Runc runc;
  final PodSandbox sandbox;
  final Path dir;
  private final String prefix = "test_" + UUID.randomUUID().toString().substring(0, 8);
  private final PodNetwork network;

  RuntimeFixture(Path dir) throws IOException {
    this.dir = dir;
    LocalPaths paths = new LocalPaths(dir.toString());
    this.runc = new Runc("", paths);
    assumeTrue(runc.unavailable().isEmpty(), () -> "needs root, runc and catatonit: " + runc.unavailable().orElse(""));
    this.network = new PodNetwork(dir.toString(), "10.250.0.0/24");
    PodSpec hostNetwork = KubeJson.read("{\"hostNetwork\":true,\"containers\":[]}", PodSpec.class);
    this.sandbox = new PodSandbox(runc, network, prefix, UUID.randomUUID().toString(), dir.resolve("sandbox"), hostNetwork);
  }

  /** Starts {@code argv} as {@code user} with exactly {@code env}, its output stamped into {@code log}. */
  ContainerProcess start(String name, List<String> argv, Map<String, String> env, ContainerUser user, Path log,
      String hostname) throws IOException {
    OciSpec.Sandbox where = sandbox.ensure(hostname, PodSupervisor.HOST_ADDRESS, "/ordinal/" + prefix);
    String start = UUID.randomUUID().toString().substring(0, 8);
    OciSpec.Spec spec = OciSpec.container(argv, env, "/", user, List.of(), where,
        Cgroups.unlimited(prefix + "_" + name).runtimePath(start));
    return ContainerProcess.start(runc, prefix + "_" + name, prefix + "_" + name + "-" + start, dir.resolve(name), spec, log);
  }

  static ContainerUser nobody() {
    return ContainerUser.of(KubeJson.read("{\"containers\":[{\"name\":\"c\"}]}", PodSpec.class),
        new Container(), "65534:65534");
  }

  LocalExec.Target target(ContainerProcess process) {
    return new LocalExec.Target(runc, process.id(), dir);
  }

  @Override
  public void close() throws IOException {
    for (String id : runc.list()) {
      if (id.startsWith(prefix)) {
        runc.delete(id);
      }
    }
  }
}
