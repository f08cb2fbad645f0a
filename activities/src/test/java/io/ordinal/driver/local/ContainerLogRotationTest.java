package io.ordinal.driver.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ContainerLogRotationTest {
  @TempDir
  Path dataDir;

  @Test
  void aLogPastItsSizeIsCopiedAndEmptiedInPlaceKeepingMaxFilesInAll() throws Exception {
    Path logs = Files.createDirectories(dataDir.resolve("local/pods/ns/web-0/logs"));
    Path log = logs.resolve("web.log");
    Path previous = logs.resolve("web.previous.log");
    Files.write(previous, new byte[3 * 1024 * 1024]);
    ContainerLogRotation rotation = new ContainerLogRotation(dataDir.toString(), 1, 3);
    // A writer that keeps the file open in append mode, as a container's stamper does.
    try (var writer = Files.newOutputStream(log, StandardOpenOption.CREATE, StandardOpenOption.APPEND)) {
      for (int round = 1; round <= 4; round++) {
        writer.write(("round " + round + "\n").repeat(200_000).getBytes());
        writer.flush();
        rotation.rotateAll();
        assertEquals(0, Files.size(log), "emptied in place after round " + round);
        assertTrue(Files.readString(logs.resolve("web.log.1")).startsWith("round " + round));
      }
      writer.write("after\n".getBytes());
    }
    assertEquals("after\n", Files.readString(log), "the open writer goes on at the new end");
    assertTrue(Files.readString(logs.resolve("web.log.2")).startsWith("round 3"));
    assertFalse(Files.exists(logs.resolve("web.log.3")), "the current file and two copies: 3 in all");
    assertEquals(3 * 1024 * 1024, Files.size(previous), "the previous container's log is not rotated");
  }
}
