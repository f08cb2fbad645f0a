package io.ordinal.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A pid file left by a killed run names a process of this data dir only while that process runs: once
 * its pid has gone to another process, the service must not signal that one.
 */
class ProcessesTest {
  @TempDir
  Path dir;

  @Test
  void aPidFileNamesItsProcessWhileThatProcessHasTheDataDirsArgument() throws Exception {
    String database = Files.createFile(dir.resolve("temporal.db")).toString();
    Process orphan = new ProcessBuilder("tail", "-f", database).start();
    try {
      Path pidFile = Files.writeString(dir.resolve("temporal.pid"), orphan.pid() + "\n");
      assertEquals(Optional.of(orphan.pid()), Processes.fromPidFile(pidFile, database).map(ProcessHandle::pid));
      assertTrue(Processes.fromPidFile(pidFile, database + "-other").isEmpty(), "another data dir's argument");
    } finally {
      orphan.destroyForcibly().waitFor();
    }
  }

  @Test
  void aPidFileWhosePidWentToAnotherProcessNamesNone() throws Exception {
    // This JVM stands for the process that got the dead one's pid: alive, but with other arguments.
    Path pidFile = Files.writeString(dir.resolve("postmaster.pid"), ProcessHandle.current().pid() + "\n" + dir + "\n");
    assertTrue(Processes.fromPidFile(pidFile, dir.toString()).isEmpty());
  }

  @Test
  void aPidFileOfAProcessThatEndedNamesNone() throws Exception {
    Process ended = new ProcessBuilder("true").start();
    ended.waitFor();
    Path pidFile = Files.writeString(dir.resolve("temporal.pid"), ended.pid() + "\n");
    assertTrue(Processes.fromPidFile(pidFile, "true").isEmpty());
  }

  @Test
  void aZombieHasEndedThoughNoParentHasCollectedIt() throws Exception {
    // sh starts a short sleep, then becomes a long one, which never collects it: a zombie for 30 s,
    // as a killed run's leftover is until init collects it.
    Process parent = new ProcessBuilder("sh", "-c", "sleep 0.1 & echo $!; exec sleep 30").start();
    try {
      long pid = Long.parseLong(new BufferedReader(new InputStreamReader(parent.getInputStream())).readLine().trim());
      ProcessHandle child = ProcessHandle.of(pid).orElseThrow();
      long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
      while (!Processes.ended(child)) {
        assertTrue(System.nanoTime() < deadline, "the short sleep never ended");
        Thread.sleep(20);
      }
      assertTrue(child.isAlive(), "the JDK still calls a zombie alive");
      Processes.stop(child, "TERM", Duration.ofSeconds(60));
      assertTrue(parent.isAlive(), "stop returned while the zombie was still uncollected");
    } finally {
      parent.destroyForcibly().waitFor();
    }
  }
}
