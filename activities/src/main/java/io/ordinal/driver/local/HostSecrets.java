package io.ordinal.driver.local;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.List;

/**
 * The machine's files a container must not see although it sees their directories: those of
 * {@link OciSpec#HOST_DIRECTORIES} that not every user may read ({@code /etc/shadow}, {@code
 * /etc/ssl/private}...). A container's user or groups may be one of the machine's (a supplemental
 * group 42 is the machine's {@code shadow}), so each is masked, as the runtime masks /proc/kcore:
 * a container sees what any user of the machine sees, and no more. Read once.
 */
final class HostSecrets {
  private static List<String> paths;

  private HostSecrets() {}

  static synchronized List<String> paths() {
    if (paths == null) {
      List<String> found = new ArrayList<>();
      for (String dir : OciSpec.HOST_DIRECTORIES) {
        found.addAll(unreadable(Path.of(dir)));
      }
      paths = List.copyOf(found);
    }
    return paths;
  }

  /** Files without o+r and directories without o+x below {@code root}; below such a directory, nothing more. */
  static List<String> unreadable(Path root) {
    List<String> found = new ArrayList<>();
    if (!Files.isDirectory(root)) {
      return found;
    }
    try {
      Files.walkFileTree(root, new SimpleFileVisitor<>() {
        @Override
        public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attributes) throws IOException {
          if (!Files.getPosixFilePermissions(dir).contains(PosixFilePermission.OTHERS_EXECUTE)) {
            found.add(dir.toString());
            return FileVisitResult.SKIP_SUBTREE;
          }
          return FileVisitResult.CONTINUE;
        }

        @Override
        public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) throws IOException {
          if (attributes.isRegularFile() && !Files.getPosixFilePermissions(file).contains(PosixFilePermission.OTHERS_READ)) {
            found.add(file.toString());
          }
          return FileVisitResult.CONTINUE;
        }

        @Override
        public FileVisitResult visitFileFailed(Path file, IOException e) {
          return FileVisitResult.CONTINUE; // gone while we looked, or not ours to stat: nothing to mask
        }
      });
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return found;
  }
}
