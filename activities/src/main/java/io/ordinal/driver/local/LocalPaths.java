package io.ordinal.driver.local;

import io.micronaut.context.annotation.Value;
import jakarta.inject.Singleton;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;

/**
 * Where the local driver keeps pods, volumes and hosts files, under the service's data dir.
 *
 * <p>Every name that becomes a path here comes from a user (namespace, pod, claim, volume and
 * container names, subPaths). Admission validates them (DNS labels and subdomains, no '..'); the
 * methods here check again where the path is built, so that no name can reach outside its parent.
 */
@Singleton
public class LocalPaths {
  private final Path root;

  public LocalPaths(@Value("${ordinal.data-dir:var}") String dataDir) throws IOException {
    this.root = Path.of(dataDir).toAbsolutePath().normalize().resolve("local");
    if (ContainerProcess.ROOT) {
      // Only the service reads these: a container reaches its own volumes through the runtime's bind mounts.
      for (String dir : new String[] {"pods", "volumes", "hosts", "runc"}) {
        Path path = Files.createDirectories(root.resolve(dir));
        Files.setPosixFilePermissions(path, java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"));
      }
    }
  }

  /** A pod's runtime state and logs; removed when the pod is gone. */
  public Path pod(String namespace, String pod) {
    return child(child(root.resolve("pods"), namespace), pod);
  }

  /** A PVC's directory: {@code <claim>-<set>-<ordinal>}, kept across pod deletion. */
  public Path volume(String namespace, String claim) {
    return child(child(root.resolve("volumes"), namespace), claim);
  }

  public Path hosts(String namespace, String pod) {
    return child(child(root.resolve("hosts"), namespace), pod);
  }

  /** The OCI runtime's state (runc --root): this installation's containers, and no other's. */
  public Path runtimeState() {
    return root.resolve("runc");
  }

  public Path logs(String namespace, String pod) {
    return pod(namespace, pod).resolve("logs");
  }

  /**
   * {@code parent/name}, where name must be one path element: not empty, not "." or "..", without
   * '/' or NUL. Throws IllegalArgumentException otherwise.
   */
  static Path child(Path parent, String name) {
    if (name == null || name.isEmpty() || name.equals(".") || name.equals("..") || name.indexOf('/') >= 0
        || name.indexOf('\0') >= 0) {
      throw new IllegalArgumentException("not a valid name for a path element: \"" + name + "\"");
    }
    Path child = parent.resolve(name).normalize();
    if (!parent.normalize().equals(child.getParent())) {
      throw new IllegalArgumentException("\"" + name + "\" leaves " + parent);
    }
    return child;
  }
}
