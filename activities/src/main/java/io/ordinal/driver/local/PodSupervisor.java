package io.ordinal.driver.local;

import com.fasterxml.jackson.core.type.TypeReference;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.EnvFromSource;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarSource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Probe;
import io.ordinal.driver.Signals;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.ordinal.driver.DriverPod;
import io.ordinal.driver.ExecRefusedException;
import io.ordinal.kube.Labels;
import io.ordinal.kube.PodHostname;
import io.ordinal.kube.RoleProbe;
import io.ordinal.model.PodSnapshot;
import io.ordinal.podsecurity.PodSecurityAdmission;
import io.ordinal.store.KubeJson;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * Runs one pod on this machine: prepares its address, hosts file and volumes, runs its init
 * containers to completion in order, then supervises its app containers until the pod is deleted,
 * when it terminates them gracefully (preStop, SIGTERM, grace period, SIGKILL) and removes the pod.
 * Its containers run in the OCI runtime, in the pod's sandbox (network, pid, ipc and uts
 * namespaces); they outlive the service, and a supervisor of the next service run re-adopts them
 * from the pod's state file. A pod whose setup failed can still be deleted.
 */
final class PodSupervisor implements Runnable {
  private static final Logger log = LoggerFactory.getLogger(PodSupervisor.class);
  static final Duration TICK = Duration.ofMillis(50);
  static final long LOG_CAP_BYTES = 10L * 1024 * 1024;
  /** The machine's address as a pod sees it: its status.hostIP, and the pod IP of a hostNetwork pod. */
  static final String HOST_ADDRESS = "127.0.0.1";
  /** How long a container of a release before the OCI runtime gets to stop before it is killed. */
  private static final Duration UNCONFINED_STOP_GRACE = Duration.ofSeconds(10);
  /** The termination reason a container's preStop hook is told when its pod is updated in place (it stays). */
  static final String IN_PLACE_UPDATE = "InPlaceUpdate";

  record Saved(boolean initDone, long podStartedAtMillis, Map<String, ContainerRuntime.Saved> containers) {}

  private final LocalDriver driver;
  private final DriverPod row;
  /** The pod's object; an in-place update replaces it (on the supervisor thread). */
  private volatile Pod pod;
  private final Path dir;
  private final List<ContainerRuntime> containers = new ArrayList<>();
  /** Open once this run has published the pod's actual state (or given up on it). */
  private final CountDownLatch reported = new CountDownLatch(1);
  private volatile boolean stopRequested;
  private volatile String terminationReason;
  private volatile boolean detached;
  private String podIp;
  /** Its name inside the pod; set by {@link #prepare}. */
  private volatile PodHostname hostname;
  /** Each container's volumes, by container name; set by {@link #prepare}. */
  private Map<String, List<OciSpec.Volume>> volumes = Map.of();
  /** Each container's subPath mounts, bound again before each of its starts; set by {@link #prepare}. */
  private Map<String, List<SubPathMount>> subPaths = Map.of();
  /** Its configMap, secret, downwardAPI and projected volumes, whose files the service writes and keeps up to date. */
  private final WrittenVolumes written;
  private final PodSandbox sandbox;
  private boolean initDone;
  private Instant podStartedAt;
  private String publishedStatus = "";
  /** The phase and readiness last published (the row's before). */
  private String publishedPhase;
  private boolean publishedReady;
  private Instant readySince;
  /** When the set's role probe runs next; whether a run is under way. */
  private Instant nextRoleProbe = Instant.EPOCH;
  private volatile boolean roleProbing;
  /** Whether its main loop runs: only then is an in-place update taken. */
  private volatile boolean supervising;
  /** An in-place update asked of this pod, applied by the supervisor thread at its next tick. */
  private final AtomicReference<InPlaceUpdate> pendingUpdate = new AtomicReference<>();

  /**
   * @param commit stores the updated pod, unready; false when the pod changed meanwhile (nothing is done then)
   * @param committed completed with what {@code commit} returned, before the containers restart
   */
  private record InPlaceUpdate(Pod updated, BooleanSupplier commit, CompletableFuture<Boolean> committed) {}

  PodSupervisor(LocalDriver driver, DriverPod row) {
    this.driver = driver;
    this.row = row;
    this.publishedPhase = row.phase();
    this.publishedReady = row.ready();
    this.pod = row.object();
    this.dir = driver.paths().pod(row.namespace(), row.name());
    this.sandbox = new PodSandbox(driver.runc(), driver.network(), sandboxId(), row.uid(), dir.resolve("sandbox"), pod.getSpec());
    this.written = new WrittenVolumes(driver, row, dir.resolve("volumes"));
    for (Container c : pod.getSpec().getContainers()) {
      containers.add(new ContainerRuntime(c, this));
    }
  }

  String name() {
    return row.id();
  }

  void probeFailed(String probe) {
    driver.metrics().probeFailed(row.namespace(), row.setName(), probe);
  }

  void containerRestarted() {
    driver.metrics().containerRestarted(row.namespace(), row.setName());
  }

  String podIp() {
    return podIp;
  }

  /** @param reason why the pod goes (its {@code ordinal.io/termination-reason}), told to its preStop hooks */
  void requestStop(String reason) {
    terminationReason = reason;
    stopRequested = true;
  }

  /** Service shutdown: stop supervising but leave the processes running, to be re-adopted. */
  void detach() {
    detached = true;
  }

  /** Waits until the pod's status reflects what this run found (adopted, restarted, or stopping). */
  boolean awaitFirstReport(Duration timeout) throws InterruptedException {
    return reported.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  @Override
  public void run() {
    // This thread supervises one pod: every line it logs is about that pod (keys as the workflows' LogContext).
    MDC.put("set", row.namespace() + "/" + row.setName());
    MDC.put("pod", row.name());
    try {
      try {
        prepare();
        restore();
        if (containers.stream().anyMatch(ContainerRuntime::startedFromOtherSpec)) {
          // Updated in place just before the service went down: reported unready before its containers
          // are stopped (a grace period), so that re-adoption need not wait for that.
          publish(PodSnapshot.RUNNING, false, null);
        }
        awaitVolumes();
        if (!stopRequested && !initDone) {
          runInitContainers();
        }
        supervising = true;
        while (!stopRequested && !detached) {
          superviseOnce();
          Thread.sleep(TICK.toMillis());
        }
        supervising = false;
      } catch (InterruptedException e) {
        throw e;
      } catch (Exception e) {
        supervising = false;
        log.error("pod {}: supervisor failed", name(), e);
        driver.fail(row, e.toString());
        reported.countDown();
        // Failed, but never stuck: a delete still stops whatever runs and removes the pod.
        while (!stopRequested && !detached) {
          Thread.sleep(TICK.toMillis());
        }
      }
      if (stopRequested && !detached) {
        terminate();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      reported.countDown();
    }
  }

  private void prepare() throws IOException {
    var unavailable = driver.runc().unavailable();
    if (unavailable.isPresent()) {
      throw new IOException(unavailable.get());
    }
    Files.createDirectories(dir.resolve("logs"));
    hostname = PodHostname.of(pod);
    podIp = sandbox.hostNetwork() ? HOST_ADDRESS : driver.addresses().addressOf(row.namespace(), row.setName(), row.name());
    driver.refreshHostsFiles(row.namespace());
    Path resolvConf = dir.resolve("resolv.conf");
    Optional<String> dns = driver.clusterDns().flatMap(server -> PodDns.resolvConf(row.namespace(), pod.getSpec(), server));
    if (dns.isPresent()) {
      Files.writeString(resolvConf, dns.get());
    }
    Map<String, List<OciSpec.Volume>> byContainer = new LinkedHashMap<>();
    Map<String, List<SubPathMount>> subPathsByContainer = new LinkedHashMap<>();
    Set<String> owned = new HashSet<>();
    for (Container c : allContainers()) {
      List<OciSpec.Volume> binds = new ArrayList<>();
      for (VolumeMount mount : c.getVolumeMounts() == null ? List.<VolumeMount>of() : c.getVolumeMounts()) {
        Volume volume = volume(mount.getName());
        Path root = volumeDir(mount.getName(), volume);
        boolean hostPath = volume != null && volume.getHostPath() != null;
        // The service writes these volumes' files (WrittenVolumes) and owns them; the pod only reads them, as upstream mounts them.
        boolean serviceWritten = VolumeFiles.projected(volume);
        Files.createDirectories(root);
        if (!hostPath && !serviceWritten && owned.add(mount.getName())) {
          // The first container that mounts a volume owns it (fsGroup as its group), so a non-root pod can write to it.
          ContainerUser user = user(c);
          Long fsGroup = pod.getSpec().getSecurityContext() == null ? null : pod.getSpec().getSecurityContext().getFsGroup();
          VolumeOwnership.apply(root, user.uid(), fsGroup != null ? fsGroup : user.gid(), fsGroup != null);
        }
        Path source = root;
        if (mount.getSubPath() != null && !mount.getSubPath().isEmpty()) {
          List<SubPathMount> ofContainer = subPathsByContainer.computeIfAbsent(c.getName(), k -> new ArrayList<>());
          source = LocalPaths.child(LocalPaths.child(dir.resolve("subpaths"), c.getName()), Integer.toString(binds.size()));
          SubPathMount subPath = new SubPathMount(mount.getName(), c.getName(), root, mount.getSubPath(), source, serviceWritten);
          if (!serviceWritten) {
            subPath.check(); // a written volume's files are there once it is written: checked when bound
          }
          ofContainer.add(subPath);
        }
        binds.add(new OciSpec.Volume(source, mount.getMountPath(), serviceWritten || Boolean.TRUE.equals(mount.getReadOnly())));
      }
      binds.add(new OciSpec.Volume(driver.paths().hosts(row.namespace(), row.name()), "/etc/hosts", false));
      if (dns.isPresent()) {
        binds.add(new OciSpec.Volume(resolvConf, "/etc/resolv.conf", true));
      }
      byContainer.put(c.getName(), List.copyOf(binds));
    }
    volumes = byContainer;
    subPaths = subPathsByContainer;
  }

  private Volume volume(String volumeName) {
    return pod.getSpec().getVolumes() == null ? null : pod.getSpec().getVolumes().stream()
        .filter(v -> v.getName().equals(volumeName)).findFirst().orElse(null);
  }

  /**
   * Where a volume lives: a PVC's directory, a hostPath as given, else a directory of the pod's (an
   * emptyDir, or the files of a configMap, secret, downwardAPI or projected volume).
   */
  private Path volumeDir(String volumeName, Volume volume) {
    if (volume != null && volume.getPersistentVolumeClaim() != null) {
      return driver.paths().volume(row.namespace(), volume.getPersistentVolumeClaim().getClaimName());
    }
    if (volume != null && volume.getHostPath() != null) {
      return Path.of(volume.getHostPath().getPath()); // only a privileged namespace admits one (baseline forbids hostPath)
    }
    return LocalPaths.child(dir.resolve("volumes"), volumeName);
  }

  /** The pod's hostname and domain (spec.hostname or its name, cut to 63 characters, and spec.subdomain). */
  PodHostname hostname() {
    PodHostname known = hostname;
    return known != null ? known : PodHostname.of(pod);
  }

  /** Who {@code spec}'s processes run as. */
  ContainerUser user(Container spec) {
    return ContainerUser.of(pod.getSpec(), spec, Labels.annotation(pod.getMetadata(), PodSecurityAdmission.DEFAULT_USER_ANNOTATION));
  }

  /** The kubelet's pod id in messages: {@code name_namespace(uid)}. */
  String podId() {
    return row.name() + "_" + row.namespace() + "(" + row.uid() + ")";
  }

  private void restore() throws IOException {
    Path file = dir.resolve("state.json");
    if (!Files.exists(file)) {
      return;
    }
    Saved saved = KubeJson.JSON.readValue(file.toFile(), new TypeReference<Saved>() {});
    initDone = saved.initDone();
    podStartedAt = saved.podStartedAtMillis() > 0 ? Instant.ofEpochMilli(saved.podStartedAtMillis()) : null;
    for (ContainerRuntime c : containers) {
      ContainerRuntime.Saved s = saved.containers().get(c.spec.getName());
      if (s != null) {
        c.restore(s);
      }
    }
    saveState(); // with the spec hash of each process adopted, which a state file of an earlier release lacks
  }

  synchronized void saveState() {
    Map<String, ContainerRuntime.Saved> saved = new LinkedHashMap<>();
    containers.forEach(c -> saved.put(c.spec.getName(), c.save()));
    try {
      Path tmp = dir.resolve("state.json.tmp");
      KubeJson.JSON.writeValue(tmp.toFile(), new Saved(initDone, podStartedAt == null ? 0 : podStartedAt.toEpochMilli(), saved));
      Files.move(tmp, dir.resolve("state.json"), StandardCopyOption.REPLACE_EXISTING,
          StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      log.warn("pod {}: cannot save state", name(), e);
    }
  }

  /** Init containers run in order; each must exit 0, else it is retried with back-off. */
  private void runInitContainers() throws Exception {
    publish(PodSnapshot.PENDING, false, "Init");
    Duration backoff = ContainerRuntime.INITIAL_BACKOFF;
    for (Container init : pod.getSpec().getInitContainers() == null ? List.<Container>of() : pod.getSpec().getInitContainers()) {
      while (!stopRequested && !detached) {
        Startable startable = startable(init);
        var configError = startable.configError();
        if (configError.isPresent()) {
          event("Warning", "Failed", "Error: " + configError.get());
          Thread.sleep(backoff.toMillis());
          backoff = backoff.multipliedBy(2).compareTo(ContainerRuntime.MAX_BACKOFF) > 0 ? ContainerRuntime.MAX_BACKOFF : backoff.multipliedBy(2);
          continue;
        }
        ContainerProcess process;
        try {
          process = launch(init, startable.env(), logFile(init.getName()), Cgroups.unlimited(containerId(init.getName())));
        } catch (IOException e) {
          event("Warning", "Failed", "Error: init container " + init.getName() + ": " + e.getMessage());
          Thread.sleep(backoff.toMillis());
          backoff = backoff.multipliedBy(2).compareTo(ContainerRuntime.MAX_BACKOFF) > 0 ? ContainerRuntime.MAX_BACKOFF : backoff.multipliedBy(2);
          continue;
        }
        while (process.alive() && !stopRequested && !detached) {
          Thread.sleep(TICK.toMillis());
        }
        if (stopRequested || detached) {
          process.kill();
          return;
        }
        int code = process.exitCode();
        driver.runc().delete(process.id()); // kept by the runtime (run --keep) until its exit was read
        if (code == 0) {
          break;
        }
        event("Warning", "BackOff", "init container " + init.getName() + " exited with " + code + ", retrying in " + backoff.toSeconds() + "s");
        Thread.sleep(backoff.toMillis());
        backoff = backoff.multipliedBy(2).compareTo(ContainerRuntime.MAX_BACKOFF) > 0 ? ContainerRuntime.MAX_BACKOFF : backoff.multipliedBy(2);
      }
    }
    initDone = true;
    saveState();
  }

  /**
   * As the kubelet, the containers start once every volume is set up: until then the pod stays
   * Pending, its containers waiting in ContainerCreating, and each volume is tried again.
   */
  private void awaitVolumes() throws InterruptedException {
    while (!stopRequested && !detached && !written.isEmpty()) {
      List<String> unwritten = written.sync();
      if (unwritten.isEmpty()) {
        return;
      }
      publish(PodSnapshot.PENDING, false, null);
      Thread.sleep(WrittenVolumes.RESYNC.toMillis());
    }
  }

  /**
   * Updates this pod in place to {@code updated} (its containers' images or resources changed): on
   * the supervisor thread, so that no status it publishes comes between, {@code commit} stores the
   * pod, unready, then the changed containers are stopped and started at their new spec. The future
   * says whether it was committed.
   */
  CompletableFuture<Boolean> updateInPlace(Pod updated, BooleanSupplier commit) {
    if (!supervising) {
      throw new IllegalStateException("pod " + name() + " does not run its containers (it is starting, waiting for its"
          + " volumes or init containers, stopping, or its setup failed): it cannot be updated in place now");
    }
    InPlaceUpdate update = new InPlaceUpdate(updated, commit, new CompletableFuture<>());
    InPlaceUpdate replaced = pendingUpdate.getAndSet(update);
    if (replaced != null) {
      replaced.committed().complete(false);
    }
    return update.committed();
  }

  /** An update the activity no longer waits for (it timed out) is not applied later. */
  void withdraw(CompletableFuture<Boolean> committed) {
    InPlaceUpdate pending = pendingUpdate.get();
    if (pending != null && pending.committed() == committed && pendingUpdate.compareAndSet(pending, null)) {
      committed.complete(false);
    }
  }

  private void applyInPlaceUpdate(Instant now) throws InterruptedException {
    InPlaceUpdate update = pendingUpdate.getAndSet(null);
    if (update == null) {
      return;
    }
    boolean committed;
    try {
      committed = update.commit().getAsBoolean();
    } catch (RuntimeException e) {
      // The commit may have been written though its answer was lost: the stored pod says.
      committed = driver.currentPod(row).map(stored -> stored.getSpec().getContainers()
          .equals(update.updated().getSpec().getContainers())).orElse(false);
      if (!committed) {
        update.committed().completeExceptionally(e);
        return;
      }
    }
    update.committed().complete(committed);
    if (!committed) {
      return;
    }
    pod = driver.currentPod(row).orElse(update.updated()); // as stored: with what the API wrote meanwhile
    Map<Integer, Container> changed = new LinkedHashMap<>();
    for (int i = 0; i < containers.size(); i++) {
      String name = containers.get(i).spec.getName();
      Container next = pod.getSpec().getContainers().stream().filter(c -> c.getName().equals(name)).findFirst().orElseThrow();
      if (!ContainerRuntime.specHash(next).equals(ContainerRuntime.specHash(containers.get(i).spec))) {
        changed.put(i, next);
      }
    }
    List<Runnable> stops = new ArrayList<>();
    changed.keySet().forEach(i -> stops.add(() -> containers.get(i).stopForUpdate(now)));
    allAtOnce(stops);
    changed.forEach((i, next) -> containers.set(i, containers.get(i).successor(next)));
    if (!changed.isEmpty()) {
      event("Normal", "Updated", "containers " + changed.values().stream().map(Container::getName).toList()
          + " restarted in place at revision " + Labels.labels(pod.getMetadata()).get(Labels.REVISION_HASH));
    }
    saveState();
  }

  private void superviseOnce() throws Exception {
    Instant now = Instant.now();
    applyInPlaceUpdate(now);
    written.syncIfDue(now);
    for (ContainerRuntime c : containers) {
      c.tick(now);
    }
    boolean allStarted = containers.stream().allMatch(ContainerRuntime::running) || podStartedAt != null;
    if (allStarted && podStartedAt == null) {
      podStartedAt = now;
      saveState();
    }
    boolean ready = containers.stream().allMatch(ContainerRuntime::ready);
    if (ready && readySince == null) {
      readySince = now;
    } else if (!ready) {
      readySince = null;
    }
    publish(podStartedAt == null ? PodSnapshot.PENDING : PodSnapshot.RUNNING, ready, null);
    probeRole(now);
    capLogs();
  }

  /**
   * The set's role probe ({@code ordinal.io/role-probe}), every periodSeconds while the pod runs: in
   * its first container (an exec) or at its address (an httpGet), beside the supervisor thread; its
   * output's first line labels the pod.
   */
  private void probeRole(Instant now) {
    if (roleProbing || now.isBefore(nextRoleProbe) || podStartedAt == null) {
      return;
    }
    Optional<LocalDriver.RoleProbing> probing = driver.roleProbe(row.namespace(), row.setName());
    Probe probe = probing.map(LocalDriver.RoleProbing::probe).orElse(null);
    nextRoleProbe = now.plusSeconds(probe == null ? RoleProbe.DEFAULT_PERIOD_SECONDS : RoleProbe.periodSeconds(probe));
    ContainerRuntime first = containers.getFirst();
    ContainerProcess process = first.process();
    if (probe == null || probe.getExec() != null && (process == null || !process.alive())) {
      return;
    }
    roleProbing = true;
    Thread.ofVirtual().start(() -> {
      try {
        ProbeRunner.output(probe, podIp, first.spec.getPorts() == null ? List.of() : first.spec.getPorts(),
                probe.getExec() != null ? execTarget(process) : null)
            .flatMap(RoleProbe::role)
            .ifPresent(role -> driver.labelRole(row, probing.get().labelKey(), role));
      } catch (RuntimeException e) {
        log.debug("pod {}: role probe failed", name(), e);
      } finally {
        roleProbing = false;
      }
    });
  }

  /** Writes the pod's status when it changed, and wakes the set's workflow. */
  private void publish(String phase, boolean ready, String message) {
    List<ContainerStatus> statuses = containers.stream().map(ContainerRuntime::status).toList();
    String json = KubeJson.write(statuses);
    String fingerprint = phase + ready + message + json;
    if (!fingerprint.equals(publishedStatus)) {
      publishedStatus = fingerprint;
      boolean matters = PodSnapshot.statusMatters(publishedPhase, publishedReady, phase, ready);
      publishedPhase = phase;
      publishedReady = ready;
      driver.publish(row, phase, ready, ready ? readySince : null, podStartedAt, message, podIp, json, matters);
    }
    reported.countDown();
  }

  /**
   * Stops a container left running by a release before the OCI runtime (a process of the machine's,
   * in its own session): TERM to its session, then KILL. It is started again in the runtime.
   */
  void stopUnconfined(String container, long pid, Instant startedAt) {
    var process = ProcessHandle.of(pid).filter(h -> h.info().startInstant()
        .map(s -> Math.abs(s.toEpochMilli() - startedAt.toEpochMilli()) < 1000).orElse(false));
    if (process.isEmpty() || !process.get().isAlive()) {
      return;
    }
    event("Normal", "Killing", "container " + container + " was started outside the OCI runtime by an earlier release;"
        + " stopping it to run it again in the runtime");
    Signals.sendToGroup(pid, "TERM");
    try {
      process.get().onExit().get(UNCONFINED_STOP_GRACE.toMillis(), TimeUnit.MILLISECONDS);
    } catch (Exception e) {
      Signals.sendToGroup(pid, "KILL");
    }
  }

  /** Runs each of {@code tasks} in a thread of its own and waits for all: containers stop side by side. */
  private static void allAtOnce(List<Runnable> tasks) throws InterruptedException {
    List<Thread> threads = tasks.stream().map(task -> Thread.ofVirtual().start(task)).toList();
    for (Thread thread : threads) {
      thread.join();
    }
  }

  /** The pod's terminationGracePeriodSeconds. */
  Duration gracePeriod() {
    Long grace = pod.getSpec().getTerminationGracePeriodSeconds();
    return Duration.ofSeconds(grace == null ? 30 : grace);
  }

  private void terminate() throws InterruptedException {
    InPlaceUpdate pending = pendingUpdate.getAndSet(null);
    if (pending != null) {
      pending.committed().complete(false);
    }
    Instant deadline = Instant.now().plus(gracePeriod());
    List<Runnable> stops = new ArrayList<>();
    for (ContainerRuntime c : containers) {
      ContainerProcess process = c.process();
      if (process != null && process.alive()) {
        stops.add(() -> stopContainer(c.spec, process, deadline, terminationReason));
      }
    }
    allAtOnce(stops);
    try {
      List<String> inRuntime = driver.runc().list();
      for (Container c : allContainers()) {
        for (String id : inRuntime) {
          if (id.startsWith(containerId(c.getName()) + "-")) {
            driver.runc().delete(id); // an init container stopped mid-run, or anything left
          }
        }
        Cgroups.remove(containerId(c.getName()));
      }
    } catch (IOException e) {
      log.warn("pod {}: could not remove its containers: {}", name(), e.getMessage());
    }
    for (List<SubPathMount> ofContainer : subPaths.values()) {
      for (SubPathMount subPath : ofContainer) {
        try {
          subPath.release();
        } catch (IOException e) {
          log.warn("pod {}: could not unmount its subPath at {}: {}", name(), subPath.staging(), e.getMessage());
        }
      }
    }
    // The sandbox and its network go even when a container could not be removed: they hold the
    // pod's address, which its replacement gets.
    try {
      sandbox.destroy();
    } catch (IOException e) {
      log.warn("pod {}: could not remove its sandbox: {}", name(), e.getMessage());
    }
    Cgroups.remove(sandboxId());
    driver.gone(row, dir);
  }

  /** The name of a container of this pod in the runtime (each start adds its own suffix) and its cgroup under {@code ordinal/}. */
  String containerId(String container) {
    return row.namespace() + "_" + row.name() + "_" + container + "_" + row.uid().substring(0, 8);
  }

  /** The runtime's id of the pod's sandbox. */
  private String sandboxId() {
    return row.namespace() + "_" + row.name() + "_" + row.uid().substring(0, 8);
  }

  Runc runc() {
    return driver.runc();
  }

  /**
   * Stops a container as the kubelet does: its preStop hook (told {@code reason}), SIGTERM, and
   * SIGKILL at {@code deadline}.
   */
  void stopContainer(Container spec, ContainerProcess process, Instant deadline, String reason) {
    try {
      var preStop = spec.getLifecycle() == null ? null : spec.getLifecycle().getPreStop();
      if (preStop != null && preStop.getExec() != null) {
        Duration timeout = Duration.ofSeconds(Math.max(1, Duration.between(Instant.now(), deadline).toSeconds()));
        Map<String, String> env = reason == null ? Map.of()
            : Map.of("ORDINAL_TERMINATION_REASON", reason); // ScaleDown, Update, Delete, Recreate, Reserved or InPlaceUpdate
        try {
          ProbeRunner.exec(preStop.getExec().getCommand(), execTarget(process), timeout, env);
        } catch (IOException e) {
          event("Warning", "FailedPreStopHook", "container " + spec.getName() + ": " + e.getMessage());
        }
      }
      process.signal("TERM");
      while (process.alive() && Instant.now().isBefore(deadline)) {
        Thread.sleep(TICK.toMillis());
      }
      if (process.alive()) {
        event("Normal", "Killing", "container " + spec.getName() + " did not stop within the grace period; sending SIGKILL");
        process.kill();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Starts {@code spec} with {@code env} in the pod's sandbox (made again if it is gone), in a cgroup of {@code cgroup}. */
  ContainerProcess launch(Container spec, Map<String, String> env, Path logFile, Cgroups.Placement cgroup) throws IOException {
    List<String> argv = new ArrayList<>();
    for (String part : spec.getCommand()) {
      argv.add(EnvExpansion.expand(part, env));
    }
    for (String part : spec.getArgs() == null ? List.<String>of() : spec.getArgs()) {
      argv.add(EnvExpansion.expand(part, env));
    }
    OciSpec.Sandbox where = sandbox.ensure(hostname().hostname(), podIp, "/ordinal/" + sandboxId());
    for (SubPathMount subPath : subPaths.getOrDefault(spec.getName(), List.of())) {
      subPath.bind();
    }
    String start = UUID.randomUUID().toString().substring(0, 8);
    List<OciSpec.Volume> mounted = volumes.getOrDefault(spec.getName(), List.of());
    Path mountPoints = OciSpec.makeMountPoints(bundle(spec.getName()).resolve("mount-points"), mounted);
    OciSpec.Spec oci = OciSpec.container(argv, env, workingDir(spec), user(spec), mounted, where,
        cgroup.runtimePath(start), mountPoints);
    String container = containerId(spec.getName());
    return ContainerProcess.start(driver.runc(), container, container + "-" + start, bundle(spec.getName()), oci, logFile);
  }

  /** The container's workingDir inside it, or / as for an image that sets none. */
  private static String workingDir(Container spec) {
    return spec.getWorkingDir() == null || spec.getWorkingDir().isEmpty() ? "/" : spec.getWorkingDir();
  }

  private Path bundle(String container) {
    return LocalPaths.child(dir.resolve("containers"), container);
  }

  /**
   * Where a command of kubectl exec runs in {@code container}: beside its running process, with its
   * env and working dir. Init containers and containers between two runs have no process to join.
   */
  LocalExec.Target execTarget(String container) {
    for (ContainerRuntime c : containers) {
      ContainerProcess process = c.process();
      if (c.spec.getName().equals(container) && process != null && process.alive()) {
        return execTarget(process);
      }
    }
    throw ExecRefusedException.containerNotFound(container);
  }

  LocalExec.Target execTarget(ContainerProcess process) {
    return new LocalExec.Target(driver.runc(), process.id(), dir);
  }

  /** A container as it may start now: its environment, or why it may not (the kubelet's CreateContainerConfigError). */
  record Startable(Map<String, String> env, Optional<String> configError) {}

  /** Its user and its environment checked, its environment read once (ConfigMaps and Secrets are read here). */
  Startable startable(Container spec) {
    Optional<String> configError = user(spec).configError(podId(), spec.getName());
    if (configError.isPresent()) {
      return new Startable(Map.of(), configError);
    }
    try {
      return new Startable(env(spec), Optional.empty());
    } catch (EnvSources.Missing e) {
      return new Startable(Map.of(), Optional.of(e.getMessage()));
    }
  }

  /**
   * The container's environment: downward-API values, then its envFrom sources, then its env in
   * order, each $(VAR)-expanded; a required ConfigMap or Secret (or key) that is missing is thrown.
   */
  private Map<String, String> env(Container spec) throws EnvSources.Missing {
    EnvSources sources = new EnvSources(driver.objects(), row.namespace());
    Map<String, String> env = new LinkedHashMap<>();
    env.put("PATH", OciSpec.PATH);
    env.put("HOME", user(spec).home());
    env.put("HOSTNAME", hostname().hostname()); // as container runtimes set it: the pod's hostname
    env.put("POD_NAME", row.name());
    env.put("POD_NAMESPACE", row.namespace());
    env.put("POD_IP", Objects.requireNonNullElse(podIp, ""));
    env.put("POD_ORDINAL", Integer.toString(row.ordinal()));
    for (EnvFromSource source : spec.getEnvFrom() == null ? List.<EnvFromSource>of() : spec.getEnvFrom()) {
      env.putAll(sources.variables(source));
    }
    for (EnvVar var : spec.getEnv() == null ? List.<EnvVar>of() : spec.getEnv()) {
      EnvVarSource from = var.getValueFrom();
      Optional<String> value;
      if (from != null && from.getFieldRef() != null) {
        value = Optional.of(fieldRef(from.getFieldRef().getFieldPath()));
      } else if (from != null && from.getConfigMapKeyRef() != null) {
        value = sources.value(from.getConfigMapKeyRef());
      } else if (from != null && from.getSecretKeyRef() != null) {
        value = sources.value(from.getSecretKeyRef());
      } else {
        value = Optional.of(EnvExpansion.expand(Objects.requireNonNullElse(var.getValue(), ""), env));
      }
      // An optional reference that is missing sets nothing, as the kubelet does.
      value.ifPresent(v -> env.put(var.getName(), v));
    }
    return env;
  }

  private String fieldRef(String path) {
    Map<String, String> labels = Labels.labels(pod.getMetadata());
    Map<String, String> annotations = Labels.annotations(pod.getMetadata());
    return switch (path) {
      case "metadata.name" -> row.name();
      case "metadata.namespace" -> row.namespace();
      case "metadata.uid" -> row.uid();
      case "status.podIP", "status.podIPs" -> Objects.requireNonNullElse(podIp, "");
      case "status.hostIP", "status.hostIPs" -> HOST_ADDRESS;
      case "spec.nodeName" -> "localhost";
      default -> {
        var matcher = Pattern.compile("metadata\\.(labels|annotations)\\['(.+)'\\]").matcher(path);
        if (matcher.matches()) {
          yield Objects.requireNonNullElse((matcher.group(1).equals("labels") ? labels : annotations).get(matcher.group(2)), "");
        }
        yield "";
      }
    };
  }

  Path logFile(String container) {
    return LocalPaths.child(dir.resolve("logs"), container + ".log");
  }

  Path previousLogFile(String container) {
    return LocalPaths.child(dir.resolve("logs"), container + ".previous.log");
  }

  /** Keeps each log under its cap: the older half moves to {@code .log.1}. */
  private void capLogs() {
    for (ContainerRuntime c : containers) {
      Path file = logFile(c.spec.getName());
      try {
        if (Files.exists(file) && Files.size(file) > LOG_CAP_BYTES) {
          Files.copy(file, file.resolveSibling(file.getFileName() + ".1"), StandardCopyOption.REPLACE_EXISTING);
          try (var channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            channel.truncate(0); // the process appends (O_APPEND), so it goes on at the new end
          }
        }
      } catch (IOException e) {
        log.debug("pod {}: log cap failed", name(), e);
      }
    }
  }

  void event(String type, String reason, String message) {
    driver.event(row, type, reason, message);
  }

  private List<Container> allContainers() {
    List<Container> all = new ArrayList<>(pod.getSpec().getInitContainers() == null ? List.of() : pod.getSpec().getInitContainers());
    all.addAll(pod.getSpec().getContainers());
    return all;
  }


}
