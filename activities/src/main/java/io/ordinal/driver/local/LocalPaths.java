package io.ordinal.driver.local;

import io.micronaut.context.annotation.Value;
import jakarta.inject.Singleton;
import java.nio.file.Path;

/** Where the local driver keeps pods, volumes and hosts files, under the service's data dir. */
@Singleton
public class LocalPaths {
  private final Path root;

  public LocalPaths(@Value("${ordinal.data-dir:var}") String dataDir) {
    this.root = Path.of(dataDir).toAbsolutePath().resolve("local");
  }

  /** A pod's runtime state and logs; removed when the pod is gone. */
  public Path pod(String namespace, String pod) {
    return root.resolve("pods").resolve(namespace).resolve(pod);
  }

  /** A PVC's directory: {@code <claim>-<set>-<ordinal>}, kept across pod deletion. */
  public Path volume(String namespace, String claim) {
    return root.resolve("volumes").resolve(namespace).resolve(claim);
  }

  public Path hosts(String namespace, String pod) {
    return root.resolve("hosts").resolve(namespace).resolve(pod);
  }

  public Path logs(String namespace, String pod) {
    return pod(namespace, pod).resolve("logs");
  }
}
