package io.ordinal.driver.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ordinal.driver.local.AtomicWriter.FileProjection;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The kubelet's AtomicWriter layout: files in ..<timestamp>, ..data links to it, user-visible names link through ..data. */
class AtomicWriterTest {
  @TempDir
  Path volume;

  private static FileProjection file(String content, int mode) {
    return new FileProjection(content.getBytes(StandardCharsets.UTF_8), mode);
  }

  private static Map<String, FileProjection> payload(Object... pathsAndFiles) {
    Map<String, FileProjection> payload = new LinkedHashMap<>();
    for (int i = 0; i < pathsAndFiles.length; i += 2) {
      payload.put((String) pathsAndFiles[i], (FileProjection) pathsAndFiles[i + 1]);
    }
    return payload;
  }

  private List<String> names() throws IOException {
    try (Stream<Path> list = Files.list(volume)) {
      return list.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }

  private static int mode(Path path) throws IOException {
    return ((Number) Files.getAttribute(path, "unix:mode")).intValue() & 07777;
  }

  @Test
  void filesLiveInATimestampedDirectoryThatDataLinksToAndEachNameLinksThroughData() throws Exception {
    assertTrue(new AtomicWriter(volume, null).write(payload("a", file("one", 0644), "dir/b", file("two", 0400))));

    Path data = volume.resolve("..data");
    assertTrue(Files.isSymbolicLink(data));
    String tsDir = Files.readSymbolicLink(data).toString();
    assertTrue(tsDir.matches("\\.\\.\\d{4}_\\d{2}_\\d{2}_\\d{2}_\\d{2}_\\d{2}\\..+"), tsDir);
    assertEquals(Path.of("..data/a"), Files.readSymbolicLink(volume.resolve("a")));
    assertEquals(Path.of("..data/dir"), Files.readSymbolicLink(volume.resolve("dir")));
    assertEquals("one", Files.readString(volume.resolve("a")));
    assertEquals("two", Files.readString(volume.resolve("dir/b")));
    assertEquals(0644, mode(volume.resolve(tsDir).resolve("a")));
    assertEquals(0400, mode(volume.resolve(tsDir).resolve("dir/b")));
    assertEquals(0755, mode(volume.resolve(tsDir)));
    assertEquals(List.of(tsDir, "..data", "a", "dir"), names());
  }

  @Test
  void anUpdateSwitchesDataToANewDirectoryRemovesTheOldOneAndDropsGoneNames() throws Exception {
    AtomicWriter writer = new AtomicWriter(volume, null);
    writer.write(payload("a", file("one", 0644), "gone", file("x", 0644)));
    String before = Files.readSymbolicLink(volume.resolve("..data")).toString();

    assertTrue(writer.write(payload("a", file("changed", 0644), "new", file("n", 0600))));

    String after = Files.readSymbolicLink(volume.resolve("..data")).toString();
    assertNotEquals(before, after);
    assertEquals("changed", Files.readString(volume.resolve("a")));
    assertEquals("n", Files.readString(volume.resolve("new")));
    assertEquals(List.of(after, "..data", "a", "new"), names());
  }

  @Test
  void theSameContentWritesNothing() throws Exception {
    AtomicWriter writer = new AtomicWriter(volume, null);
    writer.write(payload("a", file("one", 0644)));
    String before = Files.readSymbolicLink(volume.resolve("..data")).toString();

    assertFalse(writer.write(payload("a", file("one", 0644))));

    assertEquals(before, Files.readSymbolicLink(volume.resolve("..data")).toString());
  }

  @Test
  void anEmptyPayloadStillMakesTheLayout() throws Exception {
    assertTrue(new AtomicWriter(volume, null).write(Map.of()));

    assertTrue(Files.isSymbolicLink(volume.resolve("..data")));
    assertEquals(2, names().size());
  }

  @Test
  void aRemovedNestedFileKeepsItsDirectoryWhileItHoldsOthers() throws Exception {
    AtomicWriter writer = new AtomicWriter(volume, null);
    writer.write(payload("d/one", file("1", 0644), "d/two", file("2", 0644)));

    writer.write(payload("d/one", file("1", 0644)));

    assertEquals("1", Files.readString(volume.resolve("d/one")));
    assertFalse(Files.exists(volume.resolve("d/two")));
    assertTrue(Files.isSymbolicLink(volume.resolve("d")));
  }

  @ParameterizedTest
  @ValueSource(strings = {"/etc", "..", ".", "..data", "../other", "..2026_01_01_00_00_00.x/../.."})
  void anEarlierDirectoryIsNeverEnteredThroughALinkTheWriterDidNotMake(String link) throws Exception {
    Path target = Files.createDirectories(volume.resolve("target"));
    Path sibling = Files.createDirectories(volume.resolve("sibling"));
    Files.writeString(sibling.resolve("keep"), "keep");
    Files.createSymbolicLink(target.resolve("..data"), Path.of(link));

    assertThrows(IOException.class, () -> new AtomicWriter(target, null).write(payload("a", file("x", 0644))));
    assertEquals("keep", Files.readString(sibling.resolve("keep")));
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "/abs", "a/../b", "..", "..hidden", "..data", "a/\0"})
  void pathsUpstreamRefusesAreRefused(String path) {
    assertThrows(IOException.class, () -> AtomicWriter.validate(payload(path, file("x", 0644))));
  }

  @Test
  void aPathIsCleanedAsUpstreamDoes() throws Exception {
    assertEquals(List.of("a/b"), List.copyOf(AtomicWriter.validate(payload("a//./b", file("x", 0644))).keySet()));
  }

  @Test
  void aTooLongNameIsRefused() {
    assertThrows(IOException.class, () -> AtomicWriter.validate(payload("x".repeat(256), file("x", 0644))));
  }

  @Test
  void aSecretsContentIsNotInItsDescription() {
    assertFalse(file("s3cr3t", 0400).toString().contains("s3cr3t"));
  }

  @Test
  void theSymlinksAreNotFollowedWhenTheOldDirectoryIsRemoved() throws Exception {
    Path outside = Files.createDirectories(volume.resolveSibling(volume.getFileName() + "-outside"));
    Files.writeString(outside.resolve("keep"), "keep");
    AtomicWriter writer = new AtomicWriter(volume, null);
    writer.write(payload("a", file("1", 0644)));
    Path tsDir = volume.resolve(Files.readSymbolicLink(volume.resolve("..data")));
    Files.createSymbolicLink(tsDir.resolve("link"), outside);

    writer.write(payload("a", file("2", 0644)));

    assertFalse(Files.exists(tsDir, LinkOption.NOFOLLOW_LINKS));
    assertEquals("keep", Files.readString(outside.resolve("keep")));
  }
}
