package io.ordinal.driver.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** A pod's volume is walked by descriptor: nothing it puts there (symlinks, FIFOs, "..") leads the service out of it. */
class PathFdTest {
  @TempDir
  Path data;

  @ParameterizedTest
  @ValueSource(strings = {"../..", "a/../../b", "/etc", "./..", "a/.."})
  void aSubPathCannotClimbOut(String subPath) throws Exception {
    Path volume = Files.createDirectories(data.resolve("vol"));
    assertThrows(IllegalArgumentException.class, () -> PathFd.below(volume, subPath, true).close());
  }

  @Test
  void aSubPathIsCreatedAndNeverFollowsASymlinkThePodLeft() throws Exception {
    Path volume = Files.createDirectories(data.resolve("vol"));
    try (PathFd made = PathFd.below(volume, "a/b", true)) {
      assertTrue(made.isDirectory());
      assertEquals(volume.resolve("a/b"), made.proc().toRealPath());
    }
    Files.createSymbolicLink(volume.resolve("evil"), Path.of("/etc"));
    Files.createSymbolicLink(volume.resolve("a/evil"), Path.of("/etc/passwd"));
    assertThrows(IllegalArgumentException.class, () -> PathFd.below(volume, "evil", true).close());
    assertThrows(IllegalArgumentException.class, () -> PathFd.below(volume, "evil/cron.d", true).close());
    assertThrows(IllegalArgumentException.class, () -> PathFd.below(volume, "a/evil", true).close());
    assertFalse(Files.exists(Path.of("/etc/cron.d/.never")));
  }

  @Test
  void aFileIsASubPathButAFifoIsRefusedWithoutBlocking() throws Exception {
    Path volume = Files.createDirectories(data.resolve("vol"));
    Files.writeString(volume.resolve("config"), "x");
    try (PathFd file = PathFd.below(volume, "config", false)) {
      assertTrue(file.isRegularFile());
    }
    assertEquals(0, new ProcessBuilder("mkfifo", volume.resolve("pipe").toString()).start().waitFor());
    // O_PATH never opens the FIFO, so nothing waits for a writer.
    assertTimeoutPreemptively(Duration.ofSeconds(10),
        () -> assertThrows(IllegalArgumentException.class, () -> PathFd.below(volume, "pipe", false).close()));
    assertThrows(IllegalArgumentException.class, () -> PathFd.below(volume, "config/below", true).close());
  }

  @Test
  void aBoundSubPathIsTheDirectoryOpenedNotWhatItsPathBecomesLater() throws Exception {
    assumeTrue(ContainerProcess.ROOT, "bind mounts need root");
    Path volume = Files.createDirectories(data.resolve("vol"));
    Path outside = Files.createDirectories(data.resolve("outside"));
    Files.writeString(outside.resolve("secret"), "machine");
    Path staging = data.resolve("pod/subpaths/c/0");
    SubPathMount mount = new SubPathMount("data", "c", volume, "sub", staging);
    try {
      mount.bind();
      Files.writeString(volume.resolve("sub/mine"), "pod");
      assertEquals("pod", Files.readString(staging.resolve("mine")));
      // The pod swaps its subPath for a symlink: the next start is refused, not bound to the target.
      Files.move(volume.resolve("sub"), volume.resolve("sub.old"));
      Files.createSymbolicLink(volume.resolve("sub"), outside);
      IOException refused = assertThrows(IOException.class, mount::bind);
      assertTrue(refused.getMessage().contains("failed to prepare subPath for volumeMount \"data\" of container \"c\""), refused.getMessage());
      assertFalse(Files.exists(staging.resolve("secret")));
    } finally {
      mount.release();
    }
    assertEquals(0, Files.list(staging).count(), "released: the staging path is an empty directory again");
  }

  @Test
  void removingAPodsDirectoryUnmountsTheSubPathsLeftInItAndKeepsTheirVolume() throws Exception {
    assumeTrue(ContainerProcess.ROOT, "bind mounts need root");
    Path volume = Files.createDirectories(data.resolve("vol"));
    Files.createDirectories(volume.resolve("sub"));
    Files.writeString(volume.resolve("sub/keep"), "the claim's");
    Path pod = data.resolve("pod with space");
    new SubPathMount("data", "c", volume, "sub", pod.resolve("subpaths/c/0")).bind();
    assertEquals(List.of(pod.resolve("subpaths/c/0")), PathFd.mountsBelow(pod));
    LocalDriver.removeTree(pod);
    assertFalse(Files.exists(pod));
    assertEquals("the claim's", Files.readString(volume.resolve("sub/keep")));
  }

  @Test
  void ownershipIsGivenThroughDescriptorsAndNeverToASymlinksTarget() throws Exception {
    assumeTrue(ContainerProcess.ROOT, "chown needs root");
    Path volume = Files.createDirectories(data.resolve("vol"));
    Path outside = Files.writeString(data.resolve("machine-file"), "root's");
    Files.setPosixFilePermissions(outside, PosixFilePermissions.fromString("rw-------"));
    Files.createDirectories(volume.resolve("d"));
    Files.writeString(volume.resolve("d/f"), "pod's");
    Files.createSymbolicLink(volume.resolve("d/link"), outside);
    VolumeOwnership.apply(volume, 4242, 4343, true);
    assertEquals(4242, Files.getAttribute(volume.resolve("d/f"), "unix:uid"));
    assertEquals(4343, Files.getAttribute(volume.resolve("d/f"), "unix:gid"));
    assertEquals(02070, (Integer) Files.getAttribute(volume.resolve("d"), "unix:mode") & 02070);
    assertEquals(0, Files.getAttribute(outside, "unix:uid"));
    assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(outside)));
  }
}
