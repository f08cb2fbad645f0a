package io.ordinal.driver.local;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Volume;
import io.ordinal.driver.DriverPod;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A pod's configMap, secret, downwardAPI and projected volumes, whose files the service writes
 * ({@link VolumeFiles}, {@link AtomicWriter}): before its containers start, and again every
 * {@link #RESYNC} while it runs, so that a changed ConfigMap or Secret, or the pod's changed labels
 * and annotations, reach the running containers without a restart (the kubelet's periodic sync,
 * which takes about a minute plus its cache's TTL). A volume that cannot be written says so in a
 * {@code FailedMount} event, with upstream's words; one written before keeps its files.
 */
final class WrittenVolumes {
  private static final Logger log = LoggerFactory.getLogger(WrittenVolumes.class);
  static final Duration RESYNC = Duration.ofSeconds(2);

  private final LocalDriver driver;
  private final DriverPod row;
  /** The volumes and their directories, by volume name. */
  private final Map<String, Volume> volumes = new LinkedHashMap<>();
  private final Map<String, Path> dirs = new LinkedHashMap<>();
  private final Long fsGroup;
  private final boolean readsPod;
  /** The last failure of each volume: an event is recorded when it changes, not on every retry. */
  private final Map<String, String> failures = new HashMap<>();
  private Instant nextSync = Instant.EPOCH;

  WrittenVolumes(LocalDriver driver, DriverPod row, Path volumesDir) {
    this.driver = driver;
    this.row = row;
    Pod pod = row.object();
    boolean downward = false;
    for (Volume volume : pod.getSpec().getVolumes() == null ? List.<Volume>of() : pod.getSpec().getVolumes()) {
      if (VolumeFiles.projected(volume)) {
        volumes.put(volume.getName(), volume);
        dirs.put(volume.getName(), LocalPaths.child(volumesDir, volume.getName()));
        downward |= volume.getDownwardAPI() != null || volume.getProjected() != null;
      }
    }
    this.readsPod = downward;
    this.fsGroup = pod.getSpec().getSecurityContext() == null ? null : pod.getSpec().getSecurityContext().getFsGroup();
  }

  boolean isEmpty() {
    return volumes.isEmpty();
  }

  /**
   * Writes every volume's files as they are now. Returns the failures of the volumes that were never
   * written: the pod's containers must not start before those are.
   */
  List<String> sync() {
    // The pod as stored now: a downwardAPI file follows its labels and annotations.
    Pod pod = readsPod ? driver.currentPod(row).orElse(row.object()) : row.object();
    VolumeFiles files = new VolumeFiles(driver.objects(), row.namespace(), pod, row.uid());
    List<String> unwritten = new ArrayList<>();
    for (var entry : volumes.entrySet()) {
      String name = entry.getKey();
      Path dir = dirs.get(name);
      try {
        clearForeign(dir);
        Files.createDirectories(dir);
        if (new AtomicWriter(dir, fsGroup).write(files.of(entry.getValue()))) {
          log.info("pod {}: volume {} written", row.id(), name);
        }
        failures.remove(name);
      } catch (VolumeFiles.Failed | IOException e) {
        // Upstream's event: MountVolume.SetUp failed for volume "x" : configmap "y" not found
        String message = "MountVolume.SetUp failed for volume \"" + name + "\" : " + e.getMessage();
        if (!message.equals(failures.put(name, message))) {
          driver.event(row, "Warning", "FailedMount", message);
        }
        if (!Files.isSymbolicLink(dir.resolve(AtomicWriter.DATA_DIR))) {
          unwritten.add(message);
        }
      } catch (RuntimeException e) {
        log.warn("pod {}: volume {} could not be synced: {}", row.id(), name, e.toString());
        if (!Files.isSymbolicLink(dir.resolve(AtomicWriter.DATA_DIR))) {
          unwritten.add(e.toString());
        }
      }
    }
    return unwritten;
  }

  /**
   * A directory without {@code ..data} that holds anything was not written here: an emptyDir of the
   * same name left by an earlier pod of this name whose removal failed, which that pod could fill
   * with symlinks. It is removed (by descriptor, never following a link) before the first write.
   */
  private static void clearForeign(Path dir) throws IOException {
    if (Files.isSymbolicLink(dir.resolve(AtomicWriter.DATA_DIR)) || !Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
      if (Files.isSymbolicLink(dir)) {
        Files.delete(dir);
      }
      return;
    }
    try (Stream<Path> entries = Files.list(dir)) {
      if (entries.findAny().isEmpty()) {
        return;
      }
    }
    LocalDriver.removeTree(dir);
  }

  /** The periodic resync of a running pod's volumes, when due. */
  void syncIfDue(Instant now) {
    if (!volumes.isEmpty() && !now.isBefore(nextSync)) {
      nextSync = now.plus(RESYNC);
      sync();
    }
  }
}
