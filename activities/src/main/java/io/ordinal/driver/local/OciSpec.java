package io.ordinal.driver.local;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The parts of an OCI runtime bundle's {@code config.json} (runtime-spec 1.0) that a local container
 * uses, as records that serialise to the spec's field names. {@link #container} makes a container's
 * spec the way a CRI runtime would from a pod without an image: the machine's {@code /usr} and
 * {@code /etc} read-only, a private {@code /tmp}, {@code /proc}, {@code /dev} and {@code /sys} of its
 * own, its volumes, in the pod's namespaces.
 */
final class OciSpec {
  static final String VERSION = "1.0.2";
  /** A container's PATH unless it sets its own (a runtime's default, as the image would give it). */
  static final String PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
  /** The machine's directories a container sees, read-only: programs and their configuration, nothing of its data. */
  static final List<String> HOST_DIRECTORIES = List.of("/usr", "/etc");
  /** Top-level names that are symlinks into /usr on a merged-/usr system (Debian 12), else read-only binds. */
  static final List<String> USR_ALIASES = List.of("bin", "sbin", "lib", "lib32", "lib64", "libx32");
  /** As containerd's defaults: kernel interfaces a container must not read or write. */
  static final List<String> MASKED_PATHS = List.of("/proc/asound", "/proc/acpi", "/proc/kcore", "/proc/keys",
      "/proc/latency_stats", "/proc/timer_list", "/proc/timer_stats", "/proc/sched_debug", "/proc/scsi",
      "/sys/firmware", "/sys/devices/virtual/powercap");
  static final List<String> READONLY_PATHS = List.of("/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys",
      "/proc/sysrq-trigger");
  /** The capabilities a container gets by default (containerd's and CRI-O's default set). */
  static final List<String> DEFAULT_CAPABILITIES = List.of("CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_FSETID",
      "CAP_FOWNER", "CAP_MKNOD", "CAP_NET_RAW", "CAP_SETGID", "CAP_SETUID", "CAP_SETFCAP", "CAP_SETPCAP",
      "CAP_NET_BIND_SERVICE", "CAP_SYS_CHROOT", "CAP_KILL", "CAP_AUDIT_WRITE");

  @JsonInclude(JsonInclude.Include.NON_NULL)
  record Spec(String ociVersion, Process process, Root root, String hostname, List<Mount> mounts, Linux linux) {}

  @JsonInclude(JsonInclude.Include.NON_NULL)
  record Process(boolean terminal, User user, List<String> args, List<String> env, String cwd,
      Capabilities capabilities, List<Rlimit> rlimits, boolean noNewPrivileges) {
  }

  @JsonInclude(JsonInclude.Include.NON_NULL)
  record User(long uid, long gid, List<Long> additionalGids) {}

  record Capabilities(List<String> bounding, List<String> effective, List<String> inheritable,
      List<String> permitted, List<String> ambient) {}

  record Rlimit(String type, long hard, long soft) {}

  record Root(String path, boolean readonly) {}

  @JsonInclude(JsonInclude.Include.NON_NULL)
  record Mount(String destination, String type, String source, List<String> options) {}

  @JsonInclude(JsonInclude.Include.NON_NULL)
  record Linux(List<Namespace> namespaces, String cgroupsPath, Seccomp.Profile seccomp, List<String> maskedPaths,
      List<String> readonlyPaths) {}

  @JsonInclude(JsonInclude.Include.NON_NULL)
  record Namespace(String type, String path) {}

  /** A volume (or file) bind-mounted into the container. */
  record Volume(Path source, String target, boolean readOnly) {}

  /**
   * Where a container runs: the pod's network namespace (null: the machine's) and its sandbox, whose
   * pid, ipc and uts namespaces it joins (pid and ipc: the machine's under hostPID and hostIPC).
   */
  record Sandbox(Path networkNamespace, long sandboxPid, boolean hostPid, boolean hostIpc) {
    List<Namespace> namespaces() {
      List<Namespace> namespaces = new ArrayList<>();
      String proc = "/proc/" + sandboxPid + "/ns/";
      if (!hostPid) {
        namespaces.add(new Namespace("pid", proc + "pid"));
      }
      if (!hostIpc) {
        namespaces.add(new Namespace("ipc", proc + "ipc"));
      }
      namespaces.add(new Namespace("uts", proc + "uts"));
      namespaces.add(new Namespace("mount", null));
      if (networkNamespace != null) {
        namespaces.add(new Namespace("network", networkNamespace.toString()));
      }
      return namespaces;
    }
  }

  private OciSpec() {}

  /**
   * The spec of an app or init container.
   *
   * @param cgroupsPath the runtime's cgroup for it (below the one that carries its limits)
   */
  static Spec container(List<String> args, Map<String, String> env, String cwd, ContainerUser user, List<Volume> volumes,
      Sandbox sandbox, String cgroupsPath) {
    return container(args, env, cwd, user, volumes, sandbox, cgroupsPath, null);
  }

  /**
   * The same, where {@code mountPoints} (made by {@link #makeMountPoints}) holds the mount points of
   * volumes that go under one of the machine's directories where the machine has no such path (the
   * docs' nginx at /usr/share/nginx/html on a machine without nginx): that directory is then a
   * read-only overlay of the mount points over the machine's, since the runtime cannot make a mount
   * point in a read-only bind, and the machine's own directory must not be written.
   */
  static Spec container(List<String> args, Map<String, String> env, String cwd, ContainerUser user, List<Volume> volumes,
      Sandbox sandbox, String cgroupsPath, Path mountPoints) {
    List<Mount> mounts = new ArrayList<>();
    for (Mount mount : baseMounts()) {
      Path layer = mountPoints == null ? null : mountPoints.resolve(mount.destination().substring(1));
      mounts.add(layer != null && "bind".equals(mount.type()) && Files.isDirectory(layer)
          ? new Mount(mount.destination(), "overlay", "overlay",
              List.of("lowerdir=" + layer + ":" + mount.source(), "ro", "nosuid", "nodev"))
          : mount);
    }
    for (Volume volume : volumes) {
      List<String> options = new ArrayList<>(List.of("bind", "nosuid", "nodev"));
      if (volume.readOnly()) {
        options.add("ro");
      }
      mounts.add(new Mount(volume.target(), "bind", volume.source().toString(), options));
    }
    Process process = new Process(false, new User(user.uid(), user.gid(), user.groups()), args, envList(env), cwd,
        user.capabilities(), null, user.noNewPrivs());
    return new Spec(VERSION, process, new Root("rootfs", user.readOnlyRoot()), null, mounts,
        new Linux(sandbox.namespaces(), cgroupsPath, user.privileged() || user.unconfined() ? null : Seccomp.RUNTIME_DEFAULT,
            user.privileged() ? List.of() : maskedPaths(), user.privileged() ? List.of() : READONLY_PATHS));
  }

  /**
   * Makes, under {@code layers}, each volume's mount point that lies in one of the machine's
   * directories a container sees read-only and that the machine lacks (a file for a file volume, else
   * a directory); returns {@code layers}, which {@link #container} overlays on those directories.
   */
  static Path makeMountPoints(Path layers, List<Volume> volumes) throws IOException {
    List<String> hostDirectories = hostDirectories();
    for (Volume volume : volumes) {
      Path target = Path.of(volume.target()).normalize();
      boolean underHostDirectory = hostDirectories.stream().anyMatch(dir -> target.startsWith(dir) && !target.equals(Path.of(dir)));
      if (underHostDirectory && !Files.exists(target, LinkOption.NOFOLLOW_LINKS)) {
        Path point = layers.resolve(target.toString().substring(1));
        if (Files.isRegularFile(volume.source())) {
          Files.createDirectories(point.getParent());
          if (!Files.exists(point)) {
            Files.createFile(point);
          }
        } else {
          Files.createDirectories(point);
        }
      }
    }
    return layers;
  }

  /** The machine's directories bound read-only into every container. */
  private static List<String> hostDirectories() {
    return baseMounts().stream().filter(mount -> "bind".equals(mount.type())).map(Mount::destination).toList();
  }

  /**
   * The pod's sandbox, as upstream's pause container: it holds the pid, ipc and uts namespaces the
   * containers join (the network one is a named namespace of its own), reaps their orphans, and
   * does nothing else, as nobody, with no capability.
   */
  static Spec sandbox(String hostname, Path networkNamespace, boolean hostPid, boolean hostIpc, String cgroupsPath) {
    List<Namespace> namespaces = new ArrayList<>(List.of(new Namespace("uts", null), new Namespace("mount", null)));
    if (!hostPid) {
      namespaces.add(new Namespace("pid", null));
    }
    if (!hostIpc) {
      namespaces.add(new Namespace("ipc", null));
    }
    if (networkNamespace != null) {
      namespaces.add(new Namespace("network", networkNamespace.toString()));
    }
    List<String> none = List.of();
    Process process = new Process(false, new User(ContainerUser.FALLBACK_ID, ContainerUser.FALLBACK_ID, null),
        List.of(PodSandbox.PAUSE, "-P"), List.of("PATH=" + OciSpec.PATH), "/",
        new Capabilities(none, none, none, none, none), null, true);
    return new Spec(VERSION, process, new Root("rootfs", true), hostname, baseMounts(),
        new Linux(namespaces, cgroupsPath, Seccomp.RUNTIME_DEFAULT, maskedPaths(), READONLY_PATHS));
  }

  /** /proc, /dev, /sys of the container's own; the machine's programs and configuration read-only; a private /tmp. */
  private static List<Mount> baseMounts() {
    List<Mount> mounts = new ArrayList<>(List.of(
        new Mount("/proc", "proc", "proc", List.of("nosuid", "noexec", "nodev")),
        new Mount("/dev", "tmpfs", "tmpfs", List.of("nosuid", "strictatime", "mode=755", "size=65536k")),
        new Mount("/dev/pts", "devpts", "devpts", List.of("nosuid", "noexec", "newinstance", "ptmxmode=0666", "mode=0620", "gid=5")),
        new Mount("/dev/shm", "tmpfs", "shm", List.of("nosuid", "noexec", "nodev", "mode=1777", "size=65536k")),
        new Mount("/dev/mqueue", "mqueue", "mqueue", List.of("nosuid", "noexec", "nodev")),
        new Mount("/sys", "sysfs", "sysfs", List.of("nosuid", "noexec", "nodev", "ro"))));
    for (String dir : HOST_DIRECTORIES) {
      mounts.add(new Mount(dir, "bind", dir, List.of("rbind", "ro", "nosuid", "nodev")));
    }
    for (String alias : USR_ALIASES) {
      Path host = Path.of("/", alias);
      if (Files.isDirectory(host) && !Files.isSymbolicLink(host)) {
        mounts.add(new Mount(host.toString(), "bind", host.toString(), List.of("rbind", "ro", "nosuid", "nodev")));
      }
    }
    mounts.add(new Mount("/tmp", "tmpfs", "tmpfs", List.of("nosuid", "nodev", "mode=1777")));
    return mounts;
  }

  /** The kernel's interfaces above, and the machine's files in /etc that not every user may read (/etc/shadow...). */
  private static List<String> maskedPaths() {
    List<String> masked = new ArrayList<>(MASKED_PATHS);
    masked.addAll(HostSecrets.paths());
    return masked;
  }

  static List<String> envList(Map<String, String> env) {
    return env.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).toList();
  }
}
