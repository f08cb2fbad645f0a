package io.ordinal.driver.local;

import com.sun.jna.LastErrorException;
import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.NativeLong;
import com.sun.jna.Pointer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * A file or directory held by an {@code O_PATH} descriptor, opened one path element at a time from a
 * trusted directory and never through a symbolic link ({@code openat} with {@code O_NOFOLLOW}, as the
 * kubelet opens subPaths). A pod owns its volume and may swap any directory in it for a symlink at
 * any moment: a path is resolved again by every system call given it, a descriptor is not. What is
 * done to the object goes through {@link #proc()}, the kernel's link to exactly that object.
 * {@code O_PATH} never opens the object itself: a FIFO does not block, a device is not touched.
 */
final class PathFd implements AutoCloseable {
  private static final int ENOENT = 2;
  private static final int EEXIST = 17;
  private static final int EINVAL = 22;
  private static final long MS_BIND = 4096;
  private static final long MS_PRIVATE = 1 << 18;
  private static final int MNT_DETACH = 2;
  private static final int UMOUNT_NOFOLLOW = 8;
  private static final Flags FLAGS = Flags.of(System.getProperty("os.arch", ""));

  /** The system calls of the C library this class needs; each throws with errno on failure. */
  private interface LibC extends Library {
    int openat(int dirfd, String path, int flags, int mode) throws LastErrorException;

    int mkdirat(int dirfd, String path, int mode) throws LastErrorException;

    int close(int fd) throws LastErrorException;

    int mount(String source, String target, String type, NativeLong flags, Pointer data) throws LastErrorException;

    int umount2(String target, int flags) throws LastErrorException;
  }

  /** open(2) flags differ between architectures (O_DIRECTORY and O_NOFOLLOW on arm64). */
  private record Flags(int path, int noFollow, int directory, int cloexec) {
    static Flags of(String arch) {
      return switch (arch.toLowerCase(Locale.ROOT)) {
        case "amd64", "x86_64" -> new Flags(010000000, 0400000, 0200000, 02000000);
        case "aarch64", "arm64" -> new Flags(010000000, 0100000, 040000, 02000000);
        default -> null;
      };
    }
  }

  private static final class Holder {
    static final LibC C = Native.load("c", LibC.class);
  }

  private final int fd;
  private final PosixFileAttributes attributes;

  private PathFd(int fd) throws IOException {
    this.fd = fd;
    try {
      // Through the descriptor's link: the object's own type, a symlink's too (it is not followed).
      this.attributes = Files.readAttributes(proc(), PosixFileAttributes.class);
    } catch (IOException | RuntimeException e) {
      close();
      throw e;
    }
  }

  /** {@code dir} itself, which the service made and a pod cannot replace (its parent is not the pod's). */
  static PathFd directory(Path dir) throws IOException {
    return new PathFd(open(-100 /* AT_FDCWD */, dir.toString(), true));
  }

  /**
   * {@code relative} below {@code base}, every element a directory but the last (a directory or a
   * regular file), none a symlink; missing directories are made when {@code create}. A path that
   * breaks these rules is the pod's doing: {@link IllegalArgumentException}.
   */
  static PathFd below(Path base, String relative, boolean create) throws IOException {
    if (relative.startsWith("/")) {
      throw new IllegalArgumentException("\"" + relative + "\" must be a relative path");
    }
    List<String> parts = new ArrayList<>();
    for (String part : relative.split("/")) {
      if (part.isEmpty() || part.equals(".")) {
        continue;
      }
      if (part.equals("..") || part.indexOf('\0') >= 0) {
        throw new IllegalArgumentException("\"" + relative + "\" must not contain '..'");
      }
      parts.add(part);
    }
    PathFd current = directory(base);
    try {
      for (int i = 0; i < parts.size(); i++) {
        PathFd next = current.child(parts.get(i), create);
        current.close();
        current = next;
        boolean last = i == parts.size() - 1;
        if (current.isSymbolicLink() || !(current.isDirectory() || last && current.isRegularFile())) {
          throw new IllegalArgumentException("\"" + relative + "\": " + String.join("/", parts.subList(0, i + 1))
              + (current.isSymbolicLink() ? " is a symbolic link" : " is not a directory"));
        }
      }
      return current;
    } catch (IOException | RuntimeException e) {
      current.close();
      throw e;
    }
  }

  /** The entry {@code name} of this directory, a symlink itself if it is one; a directory made first if missing and {@code create}. */
  PathFd child(String name, boolean create) throws IOException {
    try {
      return new PathFd(open(fd, name, false));
    } catch (java.nio.file.NoSuchFileException e) {
      if (!create) {
        throw e;
      }
      try {
        Holder.C.mkdirat(fd, name, 0755);
      } catch (LastErrorException made) {
        if (made.getErrorCode() != EEXIST) {
          throw new IOException("mkdir " + name + ": " + made.getMessage());
        }
      }
      return new PathFd(open(fd, name, false));
    }
  }

  /** The names in this directory (through its descriptor, so always this directory's). */
  List<String> names() throws IOException {
    try (Stream<Path> entries = Files.list(proc())) {
      return entries.map(p -> p.getFileName().toString()).toList();
    }
  }

  /** The kernel's link to the object: a system call given it acts on the object, whatever its path is now. */
  Path proc() {
    return Path.of("/proc/self/fd", Integer.toString(fd));
  }

  boolean isDirectory() {
    return attributes.isDirectory();
  }

  boolean isRegularFile() {
    return attributes.isRegularFile();
  }

  boolean isSymbolicLink() {
    return attributes.isSymbolicLink();
  }

  /**
   * Bind-mounts the object at {@code target} (made by the caller, of the same type), then makes the
   * bind private, so that its later unmount does not propagate to the containers' copies.
   */
  void bindAt(Path target) throws IOException {
    try {
      Holder.C.mount(proc().toString(), target.toString(), null, new NativeLong(MS_BIND), null);
      Holder.C.mount(null, target.toString(), null, new NativeLong(MS_PRIVATE), null);
    } catch (LastErrorException e) {
      throw new IOException("bind mount at " + target + ": " + e.getMessage());
    }
  }

  /** Unmounts everything mounted at {@code target}; nothing when nothing is. */
  static void unmount(Path target) throws IOException {
    for (int i = 0; i < 16; i++) {
      try {
        Holder.C.umount2(target.toString(), MNT_DETACH | UMOUNT_NOFOLLOW);
      } catch (LastErrorException e) {
        if (e.getErrorCode() == EINVAL || e.getErrorCode() == ENOENT) {
          return; // not (or no longer) a mount point
        }
        throw new IOException("umount " + target + ": " + e.getMessage());
      }
    }
    throw new IOException("umount " + target + ": still mounted after 16 unmounts");
  }

  /** The mount points strictly below {@code dir} in this process's mount namespace, deepest first. */
  static List<Path> mountsBelow(Path dir) throws IOException {
    List<Path> below = new ArrayList<>();
    for (String line : Files.readAllLines(Path.of("/proc/self/mountinfo"))) {
      String[] fields = line.split(" ");
      if (fields.length > 4) {
        Path mountPoint = Path.of(unescape(fields[4]));
        if (mountPoint.startsWith(dir) && !mountPoint.equals(dir)) {
          below.add(mountPoint);
        }
      }
    }
    below.sort(java.util.Comparator.comparingInt(Path::getNameCount).reversed());
    return below;
  }

  /** mountinfo writes space, tab, newline and backslash as three octal digits after a backslash. */
  private static String unescape(String field) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < field.length(); i++) {
      char c = field.charAt(i);
      if (c == '\\' && i + 3 < field.length() && field.substring(i + 1, i + 4).chars().allMatch(d -> d >= '0' && d <= '7')) {
        out.append((char) Integer.parseInt(field.substring(i + 1, i + 4), 8));
        i += 3;
      } else {
        out.append(c);
      }
    }
    return out.toString();
  }

  @Override
  public void close() {
    try {
      Holder.C.close(fd);
    } catch (LastErrorException e) {
      // closing an O_PATH descriptor cannot lose data
    }
  }

  private static int open(int dirfd, String name, boolean directory) throws IOException {
    if (FLAGS == null) {
      throw new IOException("opening paths without following symlinks is not supported on " + System.getProperty("os.arch"));
    }
    int flags = FLAGS.path() | FLAGS.noFollow() | FLAGS.cloexec() | (directory ? FLAGS.directory() : 0);
    try {
      return Holder.C.openat(dirfd, name, flags, 0);
    } catch (LastErrorException e) {
      if (e.getErrorCode() == ENOENT) {
        throw new java.nio.file.NoSuchFileException(name);
      }
      throw new IOException("open " + name + ": " + e.getMessage());
    }
  }
}
