package io.ordinal.driver.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.ProbeBuilder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A container (as root) has a UTS namespace of its own named after its pod; exec probes join it. */
class ContainerHostnameTest {
  static final Map<String, String> ENV = Map.of("PATH", "/usr/bin:/bin");
  static final String FQDN = "web-0.nginx.prod.svc.cluster.local";

  @TempDir Path dir;

  @Test
  void theContainerAndItsExecProbesSeeThePodsHostnameAndFqdn() throws Exception {
    assumeTrue(ContainerProcess.mountNamespacesAvailable() && Files.isExecutable(Path.of("/usr/bin/nsenter"))
        && Files.isExecutable(Path.of("/usr/bin/hostname")), "needs root, util-linux and hostname");
    String machine = Files.readString(Path.of("/proc/sys/kernel/hostname")).trim();
    Path hosts = Files.writeString(dir.resolve("hosts"), "127.0.0.1\tlocalhost\n127.0.1.1\t" + FQDN + "\tweb-0\n");
    Path log = dir.resolve("c.log");
    ContainerProcess container = ContainerProcess.start(List.of("/bin/sh", "-c", "hostname -f > " + dir.resolve("out") + "; exec sleep 60"),
        ENV, dir, log, List.of(new ContainerProcess.Mount(hosts, "/etc/hosts")), List.of(), ContainerUser.SERVICE, "web-0");
    try {
      Path out = dir.resolve("out");
      Instant deadline = Instant.now().plus(Duration.ofSeconds(10));
      while (!(Files.exists(out) && Files.size(out) > 0) && Instant.now().isBefore(deadline)) {
        Thread.sleep(20);
      }
      assertEquals(FQDN + "\n", Files.readString(out), Files.exists(log) ? Files.readString(log) : "no log");
      assertTrue(run(container, "test \"$(hostname)\" = web-0 && test \"$(hostname -f)\" = " + FQDN), "the probe's names");
      assertFalse(run(container, "test \"$(hostname)\" = " + machine), "not the machine's name");
      assertEquals(machine, Files.readString(Path.of("/proc/sys/kernel/hostname")).trim(), "the machine keeps its name");
    } finally {
      container.signalGroup("KILL");
    }
  }

  private static boolean run(ContainerProcess container, String script) {
    Probe probe = new ProbeBuilder().withNewExec().withCommand("/bin/sh", "-c", script).endExec().withTimeoutSeconds(5).build();
    return ProbeRunner.run(probe, "127.0.0.1", List.of(), ENV, container.pid(), ContainerUser.SERVICE);
  }
}
