package io.ordinal.driver.local;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Arrays;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Writes a volume's files as the kubelet's AtomicWriter (pkg/volume/util/atomic_writer.go) does, so
 * that a reader never sees half an update: the files are written to a new directory
 * {@code ..<timestamp>}, the symlink {@code ..data} is switched to it by a rename, and each
 * user-visible name is a symlink through {@code ..data} ({@code key -> ..data/key}). Names starting
 * with {@code ..} are the writer's. Nothing is written when the content did not change.
 *
 * <p>The target directory is the service's (under the pod's directory, bound read-only into the
 * containers), so no pod can place a symlink here; the writer still never follows a link it did not make.
 * Content is never logged (a Secret's).
 */
final class AtomicWriter {
  static final String DATA_DIR = "..data";
  private static final String NEW_DATA_DIR = "..data_tmp";
  private static final int MAX_FILE_NAME_LENGTH = 255;
  private static final int MAX_PATH_LENGTH = 4096;
  private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("'..'yyyy_MM_dd_HH_mm_ss'.'");
  /** A directory this writer made (never "..", "." or a path elsewhere): what ..data may point to. */
  private static final Pattern TS_DIR = Pattern.compile("\\.\\.\\d{4}_\\d{2}_\\d{2}_\\d{2}_\\d{2}_\\d{2}\\.[^/]+");

  /** One file: its bytes and its mode (permission bits). */
  record FileProjection(byte[] data, int mode) {
    @Override
    public boolean equals(Object o) {
      return o instanceof FileProjection other && other.mode == mode && Arrays.equals(other.data, data);
    }

    @Override
    public int hashCode() {
      return 31 * Arrays.hashCode(data) + mode;
    }

    @Override
    public String toString() {
      return "FileProjection[" + data.length + " bytes, mode " + Integer.toOctalString(mode) + "]"; // never the content
    }
  }

  private final Path target;
  /** The pod's fsGroup: the files' group, readable by it (upstream's SetVolumeOwnership for a read-only volume); null: none. */
  private final Long fsGroup;

  AtomicWriter(Path target, Long fsGroup) {
    this.target = target;
    this.fsGroup = fsGroup;
  }

  /**
   * Projects {@code payload} (relative path to file) into the target directory, which must exist.
   * Returns whether anything was written.
   */
  boolean write(Map<String, FileProjection> payload) throws IOException {
    Map<String, FileProjection> clean = validate(payload);
    Path dataDir = target.resolve(DATA_DIR);
    String oldTsDir = null;
    if (Files.isSymbolicLink(dataDir)) {
      oldTsDir = Files.readSymbolicLink(dataDir).toString();
      if (!TS_DIR.matcher(oldTsDir).matches()) {
        throw new IOException(target + ": " + DATA_DIR + " does not point to a directory of the writer's");
      }
    }
    Set<String> toRemove = Set.of();
    if (oldTsDir != null) {
      Path oldTsPath = target.resolve(oldTsDir);
      toRemove = pathsToRemove(clean, oldTsPath);
      if (!shouldWrite(clean, oldTsPath) && toRemove.isEmpty()) {
        return false;
      }
    }
    if (fsGroup != null) {
      own(target);
      setMode(target, 02755);
    }
    Path tsDir = Files.createTempDirectory(target, ZonedDateTime.now(ZoneOffset.UTC).format(STAMP));
    try {
      writePayload(clean, tsDir);
      // 0755 (upstream's chmod), once its files are in place: group and others may walk to them.
      own(tsDir);
      setMode(tsDir, fsGroup != null ? 02755 : 0755);
      createUserVisibleFiles(clean);
      Path newDataDir = target.resolve(NEW_DATA_DIR);
      Files.deleteIfExists(newDataDir); // left by a write that failed half way
      Files.createSymbolicLink(newDataDir, tsDir.getFileName());
      Files.move(newDataDir, dataDir, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException | RuntimeException e) {
      deleteTree(tsDir);
      throw e;
    }
    for (String path : toRemove) {
      if (!path.contains("/")) {
        Files.deleteIfExists(target.resolve(path)); // only the user-visible symlinks of the root
      }
    }
    if (oldTsDir != null && !oldTsDir.equals(tsDir.getFileName().toString())) {
      deleteTree(target.resolve(oldTsDir));
    }
    return true;
  }

  /**
   * Upstream's validatePath: a path must not be empty, absolute, longer than 4096 characters, hold a
   * '..' element or a name over 255 characters, or start with '..'. Returns the paths cleaned.
   */
  static Map<String, FileProjection> validate(Map<String, FileProjection> payload) throws IOException {
    Map<String, FileProjection> clean = new LinkedHashMap<>();
    for (var entry : payload.entrySet()) {
      String path = entry.getKey();
      if (path.isEmpty()) {
        throw new IOException("invalid path: must not be empty: \"\"");
      }
      if (path.startsWith("/")) {
        throw new IOException("invalid path: must be relative path: " + path);
      }
      if (path.length() > MAX_PATH_LENGTH) {
        throw new IOException("invalid path: must be less than or equal to " + MAX_PATH_LENGTH + " characters");
      }
      String[] items = path.split("/", -1);
      for (String item : items) {
        if (item.equals("..")) {
          throw new IOException("invalid path: must not contain '..': " + path);
        }
        if (item.length() > MAX_FILE_NAME_LENGTH) {
          throw new IOException("invalid path: filenames must be less than or equal to " + MAX_FILE_NAME_LENGTH + " characters");
        }
        if (item.indexOf('\0') >= 0) {
          throw new IOException("invalid path: must not contain NUL");
        }
      }
      if (items[0].startsWith("..") && items[0].length() > 2) {
        throw new IOException("invalid path: must not start with '..': " + path);
      }
      String cleaned = Path.of(path).normalize().toString();
      if (cleaned.isEmpty() || cleaned.equals(".")) {
        throw new IOException("invalid path: must not be empty: \"" + path + "\"");
      }
      clean.put(cleaned, entry.getValue());
    }
    return clean;
  }

  /** Whether a file's content differs from the old directory's (modes are not compared, as upstream). */
  private static boolean shouldWrite(Map<String, FileProjection> payload, Path oldTsDir) throws IOException {
    for (var entry : payload.entrySet()) {
      Path old = oldTsDir.resolve(entry.getKey());
      if (!Files.isRegularFile(old, LinkOption.NOFOLLOW_LINKS) || !Arrays.equals(Files.readAllBytes(old), entry.getValue().data())) {
        return true;
      }
    }
    return false;
  }

  /** The paths of the old directory that the new payload does not have (its files' parents kept). */
  private static Set<String> pathsToRemove(Map<String, FileProjection> payload, Path oldTsDir) throws IOException {
    Set<String> paths = new TreeSet<>();
    if (!Files.isDirectory(oldTsDir, LinkOption.NOFOLLOW_LINKS)) {
      return paths;
    }
    try (Stream<Path> walk = Files.walk(oldTsDir)) {
      walk.filter(p -> !p.equals(oldTsDir)).forEach(p -> paths.add(oldTsDir.relativize(p).toString()));
    }
    Set<String> newPaths = new HashSet<>();
    for (String file : payload.keySet()) {
      for (Path p = Path.of(file); p != null; p = p.getParent()) {
        newPaths.add(p.toString());
      }
    }
    paths.removeAll(newPaths);
    return paths;
  }

  private void writePayload(Map<String, FileProjection> payload, Path tsDir) throws IOException {
    for (var entry : payload.entrySet()) {
      Path file = tsDir.resolve(entry.getKey());
      Path dir = tsDir;
      if (!file.getParent().equals(tsDir)) {
        for (Path part : tsDir.relativize(file.getParent())) {
          // Each directory on the way: 0755 (upstream's MkdirAll with ModePerm under umask 022).
          dir = dir.resolve(part);
          if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
            Files.createDirectory(dir);
            own(dir);
            setMode(dir, fsGroup != null ? 02755 : 0755);
          }
        }
      }
      // Made owner-only, then given its content, owner and mode: no other reader in between.
      Files.createFile(file, PosixFilePermissions.asFileAttribute(EnumSet.of(PosixFilePermission.OWNER_READ,
          PosixFilePermission.OWNER_WRITE)));
      Files.write(file, entry.getValue().data());
      own(file);
      int mode = entry.getValue().mode() & 0777;
      setMode(file, fsGroup != null ? mode | 0440 : mode);
    }
  }

  /** {@code name -> ..data/name} for each top-level name of the payload that has no link yet. */
  private void createUserVisibleFiles(Map<String, FileProjection> payload) throws IOException {
    for (String path : payload.keySet()) {
      int slash = path.indexOf('/');
      String name = slash < 0 ? path : path.substring(0, slash);
      Path visible = target.resolve(name);
      if (!Files.exists(visible, LinkOption.NOFOLLOW_LINKS)) {
        try {
          Files.createSymbolicLink(visible, Path.of(DATA_DIR, name));
        } catch (FileAlreadyExistsException e) {
          // made for an earlier path of the same top-level name
        }
      }
    }
  }

  /** Root owns the files (the kubelet's); with an fsGroup, its group does, as upstream's SetVolumeOwnership. */
  private void own(Path path) throws IOException {
    if (fsGroup != null && ContainerProcess.ROOT) {
      Files.setAttribute(path, "unix:gid", fsGroup.intValue(), LinkOption.NOFOLLOW_LINKS);
    }
  }

  private static void setMode(Path path, int mode) throws IOException {
    Files.setAttribute(path, "unix:mode", mode, LinkOption.NOFOLLOW_LINKS);
  }

  /** Removes a directory of the writer's and all in it, never following a symlink (Files.walk does not). */
  static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
      Files.delete(dir);
      return;
    }
    try (Stream<Path> walk = Files.walk(dir)) {
      for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
        try {
          Files.delete(p);
        } catch (NoSuchFileException e) {
          // gone already
        }
      }
    }
  }
}
