package io.ordinal.driver.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A pod's sandbox has a UTS namespace of its own named after the pod; its containers and their exec probes see it. */
class ContainerHostnameTest {
  static final Map<String, String> ENV = Map.of("PATH", "/usr/bin:/bin");

  @TempDir Path dir;

  @Test
  void theContainerAndItsExecProbesSeeThePodsHostname() throws Exception {
    String machine = Files.readString(Path.of("/proc/sys/kernel/hostname")).trim();
    try (RuntimeFixture runtime = new RuntimeFixture(dir)) {
      ContainerProcess container = runtime.start("main", List.of("/bin/sh", "-c", "hostname; exec sleep 60"), ENV,
          RuntimeFixture.nobody(), dir.resolve("c.log"), "web-0");
      assertTrue(run(runtime, container, "test \"$(hostname)\" = web-0"), "the probe's name");
      assertFalse(run(runtime, container, "test \"$(hostname)\" = " + machine), "not the machine's name");
      assertEquals(machine, Files.readString(Path.of("/proc/sys/kernel/hostname")).trim(), "the machine keeps its name");
      container.kill();
    }
  }

  private static boolean run(RuntimeFixture runtime, ContainerProcess container, String script) throws Exception {
    return ProbeRunner.exec(List.of("/bin/sh", "-c", script), runtime.target(container), Duration.ofSeconds(5), Map.of());
  }
}
