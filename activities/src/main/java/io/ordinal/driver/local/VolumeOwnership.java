package io.ordinal.driver.local;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * Gives a volume's directory to the pod that mounts it, as the kubelet does for fsGroup: the tree is
 * owned by the container's uid, its group is fsGroup (or the container's gid), and with an fsGroup
 * the group may read and write and directories carry the setgid bit, so that new files keep the
 * group. Like fsGroupChangePolicy OnRootMismatch, the tree is only walked when the top directory is
 * not owned that way already. Symlinks are never followed: a pod's symlink must not hand it a file
 * outside its volume.
 */
final class VolumeOwnership {
  private static final LinkOption NOFOLLOW = LinkOption.NOFOLLOW_LINKS;

  private VolumeOwnership() {}

  static void apply(Path root, long uid, long gid, boolean fsGroup) throws IOException {
    if (!ContainerProcess.ROOT || Files.isSymbolicLink(root)) {
      return; // only root can give files away; a symlinked volume root is not ours to follow
    }
    int rootMode = (Integer) Files.getAttribute(root, "unix:mode", NOFOLLOW);
    if (owner(root) == uid && group(root) == gid && (!fsGroup || (rootMode & 02070) == 02070)) {
      return;
    }
    List<Path> paths;
    try (Stream<Path> walk = Files.walk(root)) { // does not follow symlinks
      paths = walk.toList();
    }
    for (Path path : paths) {
      if (Files.isSymbolicLink(path)) {
        continue;
      }
      Files.setAttribute(path, "unix:uid", (int) uid, NOFOLLOW);
      Files.setAttribute(path, "unix:gid", (int) gid, NOFOLLOW);
      int mode = (Integer) Files.getAttribute(path, "unix:mode", NOFOLLOW) & 07777;
      boolean dir = Files.isDirectory(path, NOFOLLOW);
      if (fsGroup) {
        mode |= dir ? 02070 : 0060;
      } else if (dir) {
        mode |= 0700;
      }
      Files.setAttribute(path, "unix:mode", mode, NOFOLLOW);
    }
  }

  private static long owner(Path path) throws IOException {
    return ((Number) Files.getAttribute(path, "unix:uid", NOFOLLOW)).longValue();
  }

  private static long group(Path path) throws IOException {
    return ((Number) Files.getAttribute(path, "unix:gid", NOFOLLOW)).longValue();
  }
}
