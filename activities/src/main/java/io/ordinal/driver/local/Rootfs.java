package io.ordinal.driver.local;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * A container's root filesystem without an image: the directories an image's root has, empty, with
 * the machine's {@code /usr} and {@code /etc} mounted over theirs read-only by the runtime, and
 * {@code /bin}, {@code /lib}... as the same symlinks into {@code /usr} the machine has. What the
 * container writes outside its volumes lands here, as in an image's writable layer, and is gone when
 * the container starts again.
 */
final class Rootfs {
  private static final List<String> DIRECTORIES = List.of("usr", "etc", "proc", "dev", "sys", "tmp", "var", "run",
      "home", "opt", "srv", "mnt", "media");

  private Rootfs() {}

  static void prepare(Path rootfs) throws IOException {
    if (Files.isDirectory(rootfs, LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    Files.createDirectories(rootfs);
    Files.setPosixFilePermissions(rootfs, PosixFilePermissions.fromString("rwxr-xr-x"));
    for (String dir : DIRECTORIES) {
      Files.createDirectory(rootfs.resolve(dir));
    }
    for (String sticky : List.of("tmp", "var/tmp")) {
      Files.createDirectories(rootfs.resolve(sticky));
      Files.setAttribute(rootfs.resolve(sticky), "unix:mode", 01777);
    }
    Files.createDirectory(rootfs.resolve("root"), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    for (String alias : OciSpec.USR_ALIASES) {
      Path host = Path.of("/", alias);
      if (Files.isSymbolicLink(host)) {
        Files.createSymbolicLink(rootfs.resolve(alias), Files.readSymbolicLink(host));
      } else if (Files.isDirectory(host)) {
        Files.createDirectory(rootfs.resolve(alias));
      }
    }
  }

  /** Removes a root filesystem the container wrote to; symlinks it made are removed, never followed. */
  static void remove(Path rootfs) throws IOException {
    if (!Files.exists(rootfs, LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    try (Stream<Path> files = Files.walk(rootfs)) {
      for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(file);
      }
    }
  }
}
