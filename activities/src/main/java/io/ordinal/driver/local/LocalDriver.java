package io.ordinal.driver.local;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Probe;
import io.ordinal.driver.DriverPod;
import io.ordinal.driver.ExecProcess;
import io.ordinal.driver.ExecRefusedException;
import io.ordinal.driver.ExecRequest;
import io.ordinal.driver.PodDriver;
import io.ordinal.driver.PodEvents;
import io.ordinal.node.ThisNode;
import io.ordinal.kube.Labels;
import io.ordinal.kube.LeaderLabel;
import io.ordinal.kube.RoleProbe;
import io.ordinal.store.KubeJson;
import io.ordinal.kube.PodHostname;
import io.ordinal.model.PodSnapshot;
import io.ordinal.store.EventRecorder;
import io.ordinal.store.ObjectStore;
import io.ordinal.store.PodRow;
import io.ordinal.store.Repositories;
import io.ordinal.store.StatefulSetStore;
import jakarta.annotation.PreDestroy;
import jakarta.inject.Singleton;
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
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code local} driver: a pod is a sandbox of the OCI runtime on this machine with one
 * supervised container per container of its spec, its PVCs as directories under the data dir, and
 * a stable address on the pod network.
 */
@Singleton
public class LocalDriver implements PodDriver {
  private static final Logger log = LoggerFactory.getLogger(LocalDriver.class);
  private static final Duration RECOVERY_REPORT_TIMEOUT = Duration.ofSeconds(30);
  /** How long an in-place update waits for its pod's supervisor to take it (it does at its next tick). */
  private static final Duration IN_PLACE_COMMIT_TIMEOUT = Duration.ofSeconds(20); // within the step's 30 s
  /** How long a set's role probe, as its pods' supervisors ask for it, is taken from memory. */
  private static final Duration ROLE_PROBE_REREAD = Duration.ofSeconds(5);

  private final ObjectStore objects;
  private final Map<String, PodSupervisor> supervisors = new ConcurrentHashMap<>();
  private final Repositories.Pods pods;
  private final StatefulSetStore sets;
  private final EventRecorder events;
  private final PodEvents podEvents;
  private final LocalPaths paths;
  private final AddressBook addresses;
  private final ThisNode node;
  private final LocalPodMetrics metrics;
  private final Runc runc;
  private final PodNetwork network;

  public LocalDriver(Repositories.Pods pods, StatefulSetStore sets, EventRecorder events, PodEvents podEvents,
      LocalPaths paths, AddressBook addresses, ThisNode node, LocalPodMetrics metrics, Runc runc, PodNetwork network,
      ObjectStore objects) {
    this.objects = objects;
    this.runc = runc;
    this.network = network;
    this.node = node;
    this.metrics = metrics;
    this.pods = pods;
    this.sets = sets;
    this.events = events;
    this.podEvents = podEvents;
    this.paths = paths;
    this.addresses = addresses;
  }

  @Override
  public String name() {
    return "local";
  }

  @Override
  public void start(DriverPod pod) {
    supervise(pod);
  }

  @Override
  public void stop(DriverPod pod) {
    supervise(pod).requestStop(Labels.annotation(pod.object().getMetadata(), Labels.TERMINATION_REASON_ANNOTATION));
  }

  @Override
  public boolean updatesInPlace() {
    return true;
  }

  /**
   * The pod's supervisor stores the update and restarts the changed containers; a restart after a
   * crash in between finds the containers' specs changed and restarts them then.
   */
  @Override
  public boolean updateInPlace(DriverPod pod, Pod updated, Predicate<Pod> commit) {
    PodSupervisor supervisor = supervise(pod);
    CompletableFuture<Boolean> committed = supervisor.updateInPlace(updated, () -> commit.test(updated));
    try {
      return committed.get(IN_PLACE_COMMIT_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      supervisor.withdraw(committed);
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while pod " + pod.name() + " was updated in place", e);
    } catch (ExecutionException | TimeoutException e) {
      supervisor.withdraw(committed);
      throw new IllegalStateException("pod " + pod.name() + " could not be updated in place: " + e, e);
    }
  }

  /** Re-adopts every local pod of this node: running processes are taken over, dead ones restarted. */
  @Override
  public void recover() {
    var all = pods.findByDriver(name()).stream().filter(row -> node.is(ThisNode.of(row))).toList();
    Instant started = Instant.now();
    List<PodSupervisor> resumed = new ArrayList<>();
    for (PodRow row : all) {
      DriverPod pod = DriverPod.of(row);
      PodSupervisor supervisor = supervise(pod);
      if (pod.terminating()) {
        supervisor.requestStop(Labels.annotation(pod.object().getMetadata(), Labels.TERMINATION_REASON_ANNOTATION));
      }
      resumed.add(supervisor);
    }
    // Until each pod has reported, its stored status is what the last run saw; the service only
    // reports healthy after this, so nobody reads a process that died while it was down as Ready.
    Instant deadline = started.plus(RECOVERY_REPORT_TIMEOUT);
    for (PodSupervisor supervisor : resumed) {
      try {
        Duration left = Duration.between(Instant.now(), deadline);
        if (!supervisor.awaitFirstReport(left.isNegative() ? Duration.ZERO : left)) {
          log.warn("pod {}: no status report within {} of re-adoption", supervisor.name(), RECOVERY_REPORT_TIMEOUT);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
    log.info("local driver re-adopted {} pods in {} ms", all.size(), Duration.between(started, Instant.now()).toMillis());
    removeUnknownContainers();
  }

  /**
   * Containers of this installation's runtime that belong to no pod (a pod removed from the
   * database while the service was down) are removed, with what runs in them. The pods are read
   * after the containers: a pod's row exists before its first container does.
   */
  private void removeUnknownContainers() {
    if (runc.unavailable().isPresent()) {
      return;
    }
    try {
      List<String> ids = runc.list();
      List<PodRow> known = pods.findByDriver(name());
      for (String id : ids) {
        if (known.stream().noneMatch(row -> runs(row, id))) {
          log.info("removing runtime container {}: no pod runs it", id);
          runc.delete(id);
        }
      }
      network.detachAllBut(() -> pods.findByDriver(name()).stream().map(PodRow::uid).collect(Collectors.toSet()));
    } catch (IOException e) {
      log.warn("could not list the runtime's containers: {}", e.getMessage());
    }
  }

  /** Whether {@code id} is the sandbox or a container of pod {@code row} (PodSupervisor's ids). */
  private static boolean runs(PodRow row, String id) {
    String prefix = row.namespace() + "_" + row.name() + "_";
    String uid = row.uid().substring(0, 8);
    return id.startsWith(prefix) && (id.equals(prefix + uid) || id.contains("_" + uid + "-"));
  }

  private PodSupervisor supervise(DriverPod pod) {
    // Keyed by uid: a recreated pod of the same name is a new pod with a supervisor of its own.
    return supervisors.computeIfAbsent(pod.uid(), uid -> {
      PodSupervisor supervisor = new PodSupervisor(this, pod);
      Thread.ofVirtual().name("pod-" + pod.name()).start(supervisor);
      return supervisor;
    });
  }

  /** A set's addresses are kept while it exists, and freed with it. */
  @Override
  public void setRemoved(String namespace, String setName) {
    addresses.release(namespace, setName);
  }

  /** Service shutdown: supervision stops, the pods' processes keep running. */
  @PreDestroy
  void detachAll() {
    supervisors.values().forEach(PodSupervisor::detach);
  }

  LocalPodMetrics metrics() {
    return metrics;
  }

  LocalPaths paths() {
    return paths;
  }

  /** Where pods' DNS queries go: the service's cluster DNS (ClusterDns), at the bridge's address. */
  Optional<String> clusterDns() {
    return network.clusterDns();
  }

  AddressBook addresses() {
    return addresses;
  }

  /** Where the ConfigMaps and Secrets a container's environment and its pod's volumes name are read. */
  ObjectStore objects() {
    return objects;
  }

  Runc runc() {
    return runc;
  }

  /** The pod as stored now (its labels and annotations may have changed since it started); empty once it is gone. */
  Optional<Pod> currentPod(DriverPod pod) {
    return pods.findById(pod.id()).filter(row -> row.uid().equals(pod.uid())).map(row -> DriverPod.of(row).object());
  }

  PodNetwork network() {
    return network;
  }

  @Override
  public Optional<Path> logFile(String namespace, String pod, String container, boolean previous) {
    return Optional.of(paths.logs(namespace, pod).resolve(container + (previous ? ".previous.log" : ".log")));
  }

  @Override
  public void checkExec(DriverPod pod, String container) {
    execTarget(pod, container);
  }

  @Override
  public ExecProcess exec(ExecRequest request) throws IOException {
    return LocalExec.start(execTarget(request.pod(), request.container()), request);
  }

  /** The running container of this very pod (its uid: not a predecessor or successor of the same name). */
  private LocalExec.Target execTarget(DriverPod pod, String container) {
    PodSupervisor supervisor = supervisors.get(pod.uid());
    if (supervisor == null) {
      throw ExecRefusedException.containerNotFound(container);
    }
    return supervisor.execTarget(container);
  }

  void refreshHostsFiles(String namespace) {
    Map<String, String> serviceNames = sets.list(namespace).stream()
        .filter(s -> s.getSpec().getServiceName() != null)
        .collect(Collectors.toMap(s -> s.getMetadata().getName(), s -> s.getSpec().getServiceName()));
    // Each pod's own line names it as its hostname says (spec.hostname and spec.subdomain).
    Map<String, PodHostname> hostnames = new HashMap<>();
    for (PodRow row : pods.findByNamespaceOrderByName(namespace)) {
      if (name().equals(row.driver())) {
        try {
          hostnames.put(row.name(), PodHostname.of(DriverPod.of(row).object()));
        } catch (RuntimeException e) {
          log.warn("pod {}: no hostname of its own in its hosts file: {}", row.id(), e.toString());
        }
      }
    }
    addresses.writeHostsFiles(namespace, serviceNames, hostnames);
  }

  /** @param matters the change can change what the set's workflow plans or counts: it is woken */
  void publish(DriverPod pod, String phase, boolean ready, Instant readySince, Instant startedAt, String message,
      String podIp, String containerStatuses, boolean matters) {
    if (pods.updateRuntimeStatus(pod.id(), pod.uid(), phase, ready, readySince, startedAt, message, podIp,
        containerStatuses) > 0 && matters) {
      podEvents.podChanged(pod.namespace(), pod.setName(), pod.name());
    }
  }

  /** A set's role probe and the pod label its output sets ({@code ordinal.io/leader-label}'s key). */
  record RoleProbing(Probe probe, String labelKey) {}

  private record ReadRoleProbe(Optional<RoleProbing> probing, long readAtMillis) {}

  private final Map<String, ReadRoleProbe> roleProbes = new ConcurrentHashMap<>();

  /** The set's role probe, read again at most every {@link #ROLE_PROBE_REREAD} (each of its pods asks). */
  Optional<RoleProbing> roleProbe(String namespace, String setName) {
    long now = System.currentTimeMillis();
    ReadRoleProbe read = roleProbes.compute(namespace + "/" + setName, (key, known) ->
        known != null && now - known.readAtMillis() < ROLE_PROBE_REREAD.toMillis() ? known
            : new ReadRoleProbe(sets.get(namespace, setName).flatMap(set -> RoleProbe.of(set.getMetadata())
                .flatMap(probe -> LeaderLabel.of(set.getMetadata()).map(label -> new RoleProbing(probe, label.key())))),
                now));
    return read.probing();
  }

  /** Labels the pod with its role ({@code key=role}) when it carries another; an event tells the change. */
  void labelRole(DriverPod pod, String key, String role) {
    Optional<PodRow> found = pods.findById(pod.id()).filter(row -> row.uid().equals(pod.uid()) && !row.terminating());
    if (found.isEmpty()) {
      return;
    }
    Pod object = KubeJson.read(found.get().object(), Pod.class);
    Map<String, String> labels = new LinkedHashMap<>(Labels.labels(object.getMetadata()));
    String before = labels.put(key, role);
    if (role.equals(before)) {
      return;
    }
    object.getMetadata().setLabels(labels);
    // Only over the version read: a label written meanwhile through the API wins, and the next run tries again.
    if (pods.updateObjectIfVersion(found.get().id(), found.get().resourceVersion(), KubeJson.write(object)) > 0) {
      event(pod, "Normal", "RoleChanged", "role probe: " + key + "=" + role + (before == null ? "" : " (was " + before + ")"));
    }
  }

  void event(DriverPod pod, String type, String reason, String message) {
    events.record(pod.namespace(), "Pod", pod.name(), pod.uid(), type, reason, message);
  }

  void fail(DriverPod pod, String message) {
    pods.updateStatus(pod.id(), pod.uid(), PodSnapshot.FAILED, false, null, null, message);
    podEvents.podChanged(pod.namespace(), pod.setName(), pod.name());
  }

  @Override
  public Optional<String> stableAddress(String namespace, String setName, String podName) {
    return Optional.of(addresses.addressOf(namespace, setName, podName));
  }

  /**
   * A volume is a plain directory: nothing limits how much a pod writes to it. Project quotas (ext4
   * or XFS mounted with prjquota) or a loop device per claim could; neither is set up here.
   */
  @Override
  public Optional<String> volumeSizeNotEnforced(String namespace, String claimName) {
    return Optional.of("the local driver does not limit a volume's size: the claim is the directory "
        + paths.volume(namespace, claimName) + " on the service's filesystem, and its storage request is not enforced");
  }

  /**
   * Removes the claim's directory; files, never the targets of symlinks a pod left or is still
   * putting in it. A walk that lists paths and deletes them later resolves each path again, and a pod
   * still mounting the volume can swap a directory on it for a symlink meanwhile (SecurityIT did, and
   * the service deleted files of the machine): GNU rm descends through directory descriptors opened
   * without following links (fts, openat/unlinkat), and stays on the volume's filesystem.
   */
  @Override
  public void deleteVolume(String namespace, String claimName) throws IOException {
    Path dir = paths.volume(namespace, claimName);
    if (Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
      removeTree(dir);
      log.info("claim {}/{}: volume {} removed", namespace, claimName, dir);
    }
  }

  /**
   * Removes {@code dir} and all in it, by descriptor (GNU rm), never crossing into a mount. The
   * subPath binds a pod left under it (its service was down when it went) are unmounted first.
   */
  static void removeTree(Path dir) throws IOException {
    // rm's --one-file-system compares device numbers, which a bind of the same filesystem shares:
    // every mount below must be gone first (mountinfo names real paths, hence the real path here).
    Path real = dir.toRealPath();
    for (Path mountPoint : PathFd.mountsBelow(real)) {
      PathFd.unmount(mountPoint);
    }
    if (!PathFd.mountsBelow(real).isEmpty()) {
      throw new IOException("could not remove " + dir + ": mounts remain below it " + PathFd.mountsBelow(real));
    }
    HostCommand.Result rm = HostCommand.run(List.of("/bin/rm", "-rf", "--one-file-system", "--", dir.toString()));
    if (rm.code() != 0 || Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
      throw new IOException("could not remove " + dir + ": " + rm.output().strip());
    }
  }

  /** The pod's processes are gone: remove its runtime dir and its row (its volumes stay). */
  void gone(DriverPod pod, Path dir) {
    supervisors.remove(pod.uid());
    try {
      // Its emptyDir volumes were the pod's: removed as a claim's are, never through a symlink.
      if (Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
        removeTree(dir);
      }
    } catch (IOException e) {
      log.warn("pod {}: {}", pod.name(), e.getMessage());
    }
    pods.deleteByIdAndUid(pod.id(), pod.uid());
    podEvents.podChanged(pod.namespace(), pod.setName(), pod.name());
  }
}
