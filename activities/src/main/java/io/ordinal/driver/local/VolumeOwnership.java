package io.ordinal.driver.local;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * Gives a volume's directory to the pod that mounts it, as the kubelet does for fsGroup: the tree is
 * owned by the container's uid, its group is fsGroup (or the container's gid), and with an fsGroup
 * the group may read and write and directories carry the setgid bit, so that new files keep the
 * group. Like fsGroupChangePolicy OnRootMismatch, the tree is only walked when the top directory is
 * not owned that way already.
 *
 * <p>Another set's pod may mount the same claim and be running: it can swap any directory of the
 * tree for a symlink while the walk goes on. So the walk holds each directory by descriptor
 * ({@link PathFd}), opens each entry in it without following a symlink, and changes the object it
 * opened, never a path resolved again: a symlink is skipped, whatever it points to.
 */
final class VolumeOwnership {
  /** Deeper than any real volume: a pod's endless nesting fails the walk instead of exhausting descriptors. */
  private static final int MAX_DEPTH = 1024;

  private VolumeOwnership() {}

  static void apply(Path root, long uid, long gid, boolean fsGroup) throws IOException {
    if (!ContainerProcess.ROOT) {
      return; // only root can give files away
    }
    try (PathFd top = PathFd.directory(root)) {
      int rootMode = number(top, "unix:mode").intValue();
      if (number(top, "unix:uid").longValue() == uid && number(top, "unix:gid").longValue() == gid
          && (!fsGroup || (rootMode & 02070) == 02070)) {
        return;
      }
      give(top, uid, gid, fsGroup, 0);
    }
  }

  private static void give(PathFd node, long uid, long gid, boolean fsGroup, int depth) throws IOException {
    if (node.isSymbolicLink()) {
      return;
    }
    if (depth > MAX_DEPTH) {
      throw new IOException("volume nested deeper than " + MAX_DEPTH + " directories");
    }
    // Through the descriptor's link: the object opened, whatever its path has become.
    Path object = node.proc();
    Files.setAttribute(object, "unix:uid", (int) uid);
    Files.setAttribute(object, "unix:gid", (int) gid);
    int mode = number(node, "unix:mode").intValue() & 07777;
    if (fsGroup) {
      mode |= node.isDirectory() ? 02070 : 0060;
    } else if (node.isDirectory()) {
      mode |= 0700;
    }
    Files.setAttribute(object, "unix:mode", mode);
    if (!node.isDirectory()) {
      return;
    }
    for (String name : node.names()) {
      try (PathFd child = node.child(name, false)) {
        give(child, uid, gid, fsGroup, depth + 1);
      } catch (NoSuchFileException e) {
        // removed by the pod meanwhile
      }
    }
  }

  /** A unix attribute of the object the descriptor holds. */
  private static Number number(PathFd node, String attribute) throws IOException {
    return (Number) Files.getAttribute(node.proc(), attribute);
  }
}
