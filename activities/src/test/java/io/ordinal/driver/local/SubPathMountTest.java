package io.ordinal.driver.local;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.ordinal.driver.local.AtomicWriter.FileProjection;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A subPath of a volume the service writes names a symlink through ..data, which is resolved (the
 * pod cannot write there); a subPath of a pod's own volume never follows a symlink.
 */
class SubPathMountTest {
  @TempDir
  Path data;

  @Test
  void aSubPathOfAWrittenVolumeFollowsItsDataLinkToTheCurrentFile() throws Exception {
    Path volume = Files.createDirectories(data.resolve("vol"));
    new AtomicWriter(volume, null).write(Map.of("key", new FileProjection("v".getBytes(StandardCharsets.UTF_8), 0644)));

    assertDoesNotThrow(() -> new SubPathMount("m", "c", volume, "key", data.resolve("staging"), true).check());
    assertThrows(IOException.class, () -> new SubPathMount("m", "c", volume, "key", data.resolve("staging"), false).check(),
        "a pod's own volume: the symlink is refused");
  }

  @Test
  void aSubPathOfAWrittenVolumeThatLeavesItIsRefused() throws Exception {
    Path volume = Files.createDirectories(data.resolve("vol"));
    Files.createDirectories(data.resolve("outside"));
    Files.createSymbolicLink(volume.resolve("away"), data.resolve("outside"));

    assertThrows(IOException.class, () -> new SubPathMount("m", "c", volume, "away", data.resolve("staging"), true).check());
  }

  @Test
  void aMissingKeyOfAWrittenVolumeIsRefusedNotMade() throws Exception {
    Path volume = Files.createDirectories(data.resolve("vol"));
    new AtomicWriter(volume, null).write(Map.of());

    assertThrows(IOException.class, () -> new SubPathMount("m", "c", volume, "absent", data.resolve("staging"), true).check());
  }
}
