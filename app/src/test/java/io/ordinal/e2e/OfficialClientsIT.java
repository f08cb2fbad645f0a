package io.ordinal.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The official Python client (PyPI kubernetes, pinned in ./ordinal, its models pydantic and strict)
 * drives every served kind through its typed API: create, get, list, patch, delete, a set's status,
 * scale and a watch. Its models refuse a response that lacks a field upstream's types always carry
 * (a created set's status.replicas, a container status's imageID), so this fails on any.
 */
@E2eTest
class OfficialClientsIT {
  static Api api;

  @Test
  void theOfficialPythonClientWritesAndReadsEveryServedKind(@Namespace String ns) throws Exception {
    String python = System.getenv().getOrDefault("ORDINAL_KUBE_PYTHON", "../.tools/kube-python/bin/python");
    assertTrue(Files.isExecutable(Path.of(python)), "the Python client is installed by ./ordinal test: " + python);
    Path script = Path.of("src", "test", "resources", "clients", "python_client.py").toAbsolutePath();
    Command.Result run = Command.run(Duration.ofMinutes(3), python, script.toString(), api.base(), api.token(),
        api.caCertificate().toString(), ns);
    assertEquals(0, run.code(), run.output());
    List<String> steps = run.out().lines().filter(line -> line.startsWith("ok ")).toList();
    assertEquals(31, steps.size(), run.output());
  }
}
