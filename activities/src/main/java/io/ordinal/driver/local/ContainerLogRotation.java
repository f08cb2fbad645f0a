package io.ordinal.driver.local;

import io.micronaut.context.annotation.Value;
import io.micronaut.scheduling.annotation.Scheduled;
import jakarta.inject.Singleton;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps each local container's log below a size, as the kubelet does ({@code containerLogMaxSize}
 * 10 MiB, {@code containerLogMaxFiles} 5): a log past the size is copied to {@code NAME.log.1} (older
 * copies shift up, the oldest goes) and emptied in place. In place, because the container's log
 * stampers outlive the service and hold the file open in append mode: they go on writing at its new
 * end. A line written between the copy and the emptying is lost, as with logrotate's copytruncate.
 * Checked every 10 s while the service runs.
 */
@Singleton
public class ContainerLogRotation {
  private static final Logger log = LoggerFactory.getLogger(ContainerLogRotation.class);
  private final Path pods;
  private final long maxBytes;
  private final int maxFiles;

  public ContainerLogRotation(@Value("${ordinal.data-dir:var}") String dataDir,
      @Value("${ordinal.container-log.max-size-mb:10}") long maxSizeMb,
      @Value("${ordinal.container-log.max-files:5}") int maxFiles) {
    this.pods = Path.of(dataDir).toAbsolutePath().normalize().resolve("local").resolve("pods");
    this.maxBytes = maxSizeMb * 1024 * 1024;
    this.maxFiles = Math.max(2, maxFiles);
  }

  @Scheduled(fixedDelay = "10s", initialDelay = "10s")
  void rotateAll() {
    if (!Files.isDirectory(pods)) {
      return;
    }
    // pods/<namespace>/<pod>/logs/<container>.log
    try (Stream<Path> files = Files.find(pods, 4, (path, attributes) -> attributes.isRegularFile()
        && path.getParent().getFileName().toString().equals("logs") && path.getFileName().toString().endsWith(".log")
        && !path.getFileName().toString().endsWith(".previous.log") && attributes.size() > maxBytes)) {
      for (Path file : files.toList()) {
        rotate(file);
      }
    } catch (IOException | RuntimeException e) {
      log.warn("container log rotation: {}", e.toString());
    }
  }

  /** The current file and {@code maxFiles - 1} copies, as the kubelet counts them. */
  void rotate(Path file) throws IOException {
    for (int i = maxFiles - 1; i >= 1; i--) {
      Path older = copy(file, i);
      if (i == maxFiles - 1) {
        Files.deleteIfExists(older);
      } else if (Files.exists(older)) {
        Files.move(older, copy(file, i + 1), StandardCopyOption.REPLACE_EXISTING);
      }
    }
    Files.copy(file, copy(file, 1), StandardCopyOption.REPLACE_EXISTING);
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
      channel.truncate(0);
    }
  }

  static Path copy(Path file, int n) {
    return file.resolveSibling(file.getFileName() + "." + n);
  }
}
