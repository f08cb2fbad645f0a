package io.ordinal.driver.local;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;

/**
 * A volumeMount's subPath, bound afresh before every start of its container, as the kubelet does
 * (CVE-2017-1002101, CVE-2021-25741): the subPath is opened element by element by descriptor, never
 * through a symlink, and what was opened is bind-mounted at {@code staging}, a path of the pod's own
 * directory that the pod cannot touch; the runtime binds {@code staging} into the container. A pod
 * that swaps a directory of its volume for a symlink after one start gets a refused next start, never
 * the symlink's target.
 */
record SubPathMount(String volumeMount, String container, Path volume, String subPath, Path staging, boolean serviceWritten) {

  SubPathMount(String volumeMount, String container, Path volume, String subPath, Path staging) {
    this(volumeMount, container, volume, subPath, staging, false);
  }

  /** Checks the subPath (making its missing directories) without binding it: a pod's setup fails early on a bad one. */
  void check() throws IOException {
    try (PathFd ignored = open()) {
      // opened: the subPath is there and holds no symlink
    }
  }

  /** Binds what the subPath is now at {@code staging}, replacing an earlier bind. */
  void bind() throws IOException {
    release();
    try (PathFd target = open()) {
      if (Files.exists(staging, LinkOption.NOFOLLOW_LINKS) && Files.isDirectory(staging, LinkOption.NOFOLLOW_LINKS) != target.isDirectory()) {
        Files.delete(staging); // the subPath changed from a file to a directory (or back): the bind target must match
      }
      Files.createDirectories(staging.getParent());
      if (target.isDirectory()) {
        Files.createDirectories(staging);
      } else if (!Files.exists(staging, LinkOption.NOFOLLOW_LINKS)) {
        Files.createFile(staging);
      }
      target.bindAt(staging);
    }
  }

  /** Unmounts the bind (the container that used it has stopped); nothing when there is none. */
  void release() throws IOException {
    PathFd.unmount(staging);
  }

  /**
   * A subPath of a volume the service writes (configMap, secret, downwardAPI, projected) names a
   * symlink through {@code ..data}; no pod can write there, so its links are resolved (as upstream's
   * EvalSymlinks does) to the file of the current {@code ..<timestamp>} directory, which is bound.
   * That bind is not updated with the volume (as upstream); the container's next start binds anew.
   */
  private String written(Path root) throws IOException {
    Path real = root.resolve(subPath).toRealPath();
    if (!real.startsWith(root)) {
      throw new IllegalArgumentException("\"" + subPath + "\" leaves the volume");
    }
    return root.relativize(real).toString();
  }

  private PathFd open() throws IOException {
    try {
      // The volume's own path is the service's (a hostPath the admin's): its symlinks resolve once,
      // before anything in the volume, which is the pod's, is opened by descriptor.
      Path root = volume.toRealPath();
      if (serviceWritten) {
        return PathFd.below(root, written(root), false);
      }
      return PathFd.below(root, subPath, true);
    } catch (IllegalArgumentException e) {
      // The kubelet's words (CreateContainerConfigError): the pod did this to its own volume.
      throw new IOException("failed to prepare subPath for volumeMount \"" + volumeMount + "\" of container \""
          + container + "\": " + e.getMessage());
    }
  }
}
