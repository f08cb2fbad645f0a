package io.ordinal.driver.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Containers started by {@link ContainerProcess} in the runtime write their log through real stampers (bash). */
class LogStamperTest {
  static final Pattern ENTRY = Pattern.compile(
      "(\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{9}Z) (stdout|stderr) ([PF]) (.*)");
  static final Map<String, String> ENV = Map.of("PATH", "/usr/bin:/bin", "GREETING", "hello");

  @TempDir Path dir;
  Path log;
  RuntimeFixture runtime;

  @BeforeEach
  void stampingIsAvailable() throws IOException {
    assumeTrue(LogStamper.available() && Files.isDirectory(Path.of("/proc")), "needs bash and procfs");
    runtime = new RuntimeFixture(dir);
    log = dir.resolve("c.log");
  }

  @AfterEach
  void removeContainers() throws IOException {
    if (runtime != null) {
      runtime.close();
    }
  }

  @Test
  void eachLineGetsItsTimeAndStreamAndLongLinesAreSplit() throws Exception {
    Instant before = Instant.now().minusMillis(1);
    ContainerProcess container = start("/bin/sh", "-c",
        "echo out; echo err >&2; printf '%05000d\\n' 7; echo \"$GREETING  with  spaces \"; printf 'no newline'; exit 3");
    assertEquals(3, container.exitCode(), "the runtime exits with the container's code");
    List<String> lines = awaitLines(6);
    Instant after = Instant.now();
    List<Matcher> entries = lines.stream().map(ENTRY::matcher).toList();
    for (Matcher entry : entries) {
      assertTrue(entry.matches(), entry.toString());
      Instant time = Instant.parse(entry.group(1));
      assertTrue(!time.isBefore(before) && !time.isAfter(after), time + " not in [" + before + ", " + after + "]");
    }
    // The streams are written by two processes: their relative order is not guaranteed.
    assertEquals(List.of("stdout F out", "stdout P " + "0".repeat(4000), "stdout F " + "0".repeat(999) + "7",
            "stdout F hello  with  spaces ", "stdout F no newline"),
        entries.stream().filter(e -> e.group(2).equals("stdout")).map(e -> e.group(2) + " " + e.group(3) + " " + e.group(4)).toList());
    assertEquals(List.of("stderr F err"),
        entries.stream().filter(e -> e.group(2).equals("stderr")).map(e -> e.group(2) + " " + e.group(3) + " " + e.group(4)).toList());
  }

  @Test
  void theContainerSeesExactlyItsEnvironment() throws Exception {
    ContainerProcess container = start("/usr/bin/env");
    assertEquals(0, container.exitCode());
    List<String> messages = awaitLines(3).stream().map(l -> l.substring(l.indexOf(" F ") + 3)).sorted().toList();
    // HOME is the runtime's, from the user's passwd entry, as for any container that sets none.
    assertEquals(List.of("GREETING=hello", "HOME=/nonexistent", "PATH=/usr/bin:/bin"), messages);
  }

  @Test
  void theLastWordsAfterSigtermAreLogged() throws Exception {
    ContainerProcess container = start("/bin/sh", "-c", "trap 'echo bye; exit 0' TERM; echo up; while true; do sleep 0.05; done");
    awaitLines(1);
    container.signal("TERM");
    assertEquals(0, container.exitCode());
    Instant deadline = Instant.now().plusSeconds(10);
    while (!Files.readString(log).contains("stdout F bye") && Instant.now().isBefore(deadline)) {
      Thread.sleep(20);
    }
    assertTrue(Files.readString(log).contains("stdout F bye"), Files.readString(log));
  }

  @Test
  void anEarlierStartLeftRunningIsRemovedNeverDoubled() throws Exception {
    ContainerProcess stray = start("/bin/sh", "-c", "echo up; exec sleep 1000");
    awaitLines(1);
    // A stray is a start the service saved no record of, long since running. Its output alone does not
    // say that its runtime has finished starting: until runc has removed the container's exec fifo (its
    // state then reads "running"), removing the container fails that start, and runc exits 1, not 137.
    Instant deadline = Instant.now().plusSeconds(10);
    while (!runtime.runc.state(stray.id()).map(Runc.State::running).orElse(false) && Instant.now().isBefore(deadline)) {
      Thread.sleep(20);
    }
    ContainerProcess next = start("/bin/sh", "-c", "echo again; exec sleep 1000");
    assertEquals(137, stray.exitCode(), "the earlier one was killed");
    assertTrue(next.alive());
    next.kill();
    assertEquals(137, next.exitCode());
  }

  private ContainerProcess start(String... argv) throws IOException {
    return runtime.start("c", List.of(argv), ENV, RuntimeFixture.nobody(), log, "stamped");
  }

  private List<String> awaitLines(int count) throws Exception {
    Instant deadline = Instant.now().plus(Duration.ofSeconds(10));
    while (true) {
      List<String> lines = Files.exists(log) ? Files.readAllLines(log) : List.of();
      if (lines.size() >= count || Instant.now().isAfter(deadline)) {
        assertEquals(count, lines.size(), String.join("\n", lines));
        return lines;
      }
      Thread.sleep(20);
    }
  }
}
