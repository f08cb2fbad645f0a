package io.ordinal.driver.local;

import io.fabric8.kubernetes.api.model.Capabilities;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.SecurityContext;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Who a container's processes run as and with what privileges, from its securityContext over the
 * pod's, as the kubelet works it out: uid and gid (runAsUser, runAsGroup; else the pod's default
 * user, the stand-in for an image's USER), supplementary groups (supplementalGroups, then fsGroup),
 * runAsNonRoot, whether setuid binaries may raise privileges, a read-only root, capabilities
 * (the runtime's default set, less drop, plus add; every one when privileged) and the seccomp
 * profile (RuntimeDefault unless Unconfined, which only a privileged namespace admits).
 *
 * @param defaultUser whether uid came from the default rather than a runAsUser (for the kubelet's wording)
 */
record ContainerUser(long uid, long gid, List<Long> groups, boolean runAsNonRoot, boolean noNewPrivs,
    boolean readOnlyRoot, boolean defaultUser, List<String> capabilityNames, boolean privileged, boolean unconfined) {
  /** Used for a pod that carries no default-user annotation (created before there was one): never root. */
  static final long FALLBACK_ID = 65534;
  /** Every capability of this kernel's generation (Linux 5.9+), for a privileged container. */
  static final List<String> ALL_CAPABILITIES = List.of("CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_DAC_READ_SEARCH",
      "CAP_FOWNER", "CAP_FSETID", "CAP_KILL", "CAP_SETGID", "CAP_SETUID", "CAP_SETPCAP", "CAP_LINUX_IMMUTABLE",
      "CAP_NET_BIND_SERVICE", "CAP_NET_BROADCAST", "CAP_NET_ADMIN", "CAP_NET_RAW", "CAP_IPC_LOCK", "CAP_IPC_OWNER",
      "CAP_SYS_MODULE", "CAP_SYS_RAWIO", "CAP_SYS_CHROOT", "CAP_SYS_PTRACE", "CAP_SYS_PACCT", "CAP_SYS_ADMIN",
      "CAP_SYS_BOOT", "CAP_SYS_NICE", "CAP_SYS_RESOURCE", "CAP_SYS_TIME", "CAP_SYS_TTY_CONFIG", "CAP_MKNOD",
      "CAP_LEASE", "CAP_AUDIT_WRITE", "CAP_AUDIT_CONTROL", "CAP_SETFCAP", "CAP_MAC_OVERRIDE", "CAP_MAC_ADMIN",
      "CAP_SYSLOG", "CAP_WAKE_ALARM", "CAP_BLOCK_SUSPEND", "CAP_AUDIT_READ", "CAP_PERFMON", "CAP_BPF",
      "CAP_CHECKPOINT_RESTORE");

  /**
   * @param defaultUser the pod's {@code ordinal.io/default-user} annotation ("uid:gid"), or null
   */
  static ContainerUser of(PodSpec pod, Container container, String defaultUser) {
    PodSecurityContext p = pod.getSecurityContext() == null ? new PodSecurityContext() : pod.getSecurityContext();
    SecurityContext c = container.getSecurityContext() == null ? new SecurityContext() : container.getSecurityContext();
    long[] fallback = parse(defaultUser);
    Long uid = c.getRunAsUser() != null ? c.getRunAsUser() : p.getRunAsUser();
    Long gid = c.getRunAsGroup() != null ? c.getRunAsGroup() : p.getRunAsGroup();
    Set<Long> groups = new LinkedHashSet<>(p.getSupplementalGroups() == null ? List.of() : p.getSupplementalGroups());
    if (p.getFsGroup() != null) {
      groups.add(p.getFsGroup());
    }
    Boolean nonRoot = c.getRunAsNonRoot() != null ? c.getRunAsNonRoot() : p.getRunAsNonRoot();
    long effectiveUid = uid != null ? uid : fallback[0];
    boolean privileged = Boolean.TRUE.equals(c.getPrivileged());
    // no_new_privs as the kubelet sets it for allowPrivilegeEscalation=false, and also by default for a
    // non-root user: a local container sees this machine's setuid binaries (su, sudo, mount), not an image's.
    boolean noNewPrivs = Boolean.FALSE.equals(c.getAllowPrivilegeEscalation())
        || (c.getAllowPrivilegeEscalation() == null && effectiveUid != 0 && !privileged);
    var seccomp = c.getSeccompProfile() != null ? c.getSeccompProfile() : p.getSeccompProfile();
    boolean unconfined = seccomp != null && "Unconfined".equals(seccomp.getType());
    // Without runAsGroup the default gid, not the root group a runtime would pick for a user missing from the image.
    return new ContainerUser(effectiveUid, gid != null ? gid : fallback[1],
        List.copyOf(groups), Boolean.TRUE.equals(nonRoot), noNewPrivs, Boolean.TRUE.equals(c.getReadOnlyRootFilesystem()),
        uid == null, privileged ? ALL_CAPABILITIES : capabilities(c.getCapabilities()), privileged, unconfined);
  }

  /** The runtime's default set, less {@code drop} (ALL: every one), plus {@code add}, as containerd applies them. */
  static List<String> capabilities(Capabilities change) {
    List<String> drop = change == null || change.getDrop() == null ? List.of() : change.getDrop();
    List<String> add = change == null || change.getAdd() == null ? List.of() : change.getAdd();
    Set<String> result = new LinkedHashSet<>();
    if (drop.stream().noneMatch("ALL"::equalsIgnoreCase)) {
      result.addAll(OciSpec.DEFAULT_CAPABILITIES);
      drop.forEach(name -> result.remove(capability(name)));
    }
    if (add.stream().anyMatch("ALL"::equalsIgnoreCase)) {
      result.addAll(ALL_CAPABILITIES);
    } else {
      add.stream().map(ContainerUser::capability).filter(ALL_CAPABILITIES::contains).forEach(result::add);
    }
    return List.copyOf(result);
  }

  private static String capability(String name) {
    String upper = name.toUpperCase(java.util.Locale.ROOT);
    return upper.startsWith("CAP_") ? upper : "CAP_" + upper;
  }

  /**
   * The OCI capability sets. For a non-root user the kernel clears the effective and permitted sets
   * at the exec of its command (no ambient capabilities are given), so, as upstream, only root
   * containers hold them; the bounding set caps what a setuid binary could regain.
   */
  OciSpec.Capabilities capabilities() {
    List<String> none = List.of();
    return new OciSpec.Capabilities(capabilityNames, capabilityNames, none, capabilityNames, none);
  }

  private static long[] parse(String defaultUser) {
    if (defaultUser != null) {
      String[] parts = defaultUser.split(":");
      try {
        return new long[] {Long.parseLong(parts[0]), Long.parseLong(parts.length > 1 ? parts[1] : parts[0])};
      } catch (NumberFormatException e) {
        // an annotation edited by hand: fall through to the safe default
      }
    }
    return new long[] {FALLBACK_ID, FALLBACK_ID};
  }

  /** Why the container may not start (the kubelet's CreateContainerConfigError), if so. */
  Optional<String> configError(String podId, String container) {
    if (runAsNonRoot && uid == 0) {
      return Optional.of((defaultUser ? "container has runAsNonRoot and image will run as root"
          : "container's runAsUser breaks non-root policy") + " (pod: \"" + podId + "\", container: " + container + ")");
    }
    // Admission refuses these; the runtime does not trust that alone (a uid the kernel would truncate to 0).
    if (!validId(uid) || !validId(gid) || !groups.stream().allMatch(ContainerUser::validId)) {
      return Optional.of("user and group ids must be between 0 and 2147483647 (pod: \"" + podId + "\", container: "
          + container + ")");
    }
    return Optional.empty();
  }

  private static boolean validId(long id) {
    return id >= 0 && id <= Integer.MAX_VALUE;
  }

  boolean root() {
    return uid == 0;
  }

  /** HOME as a runtime sets it: the user's home in /etc/passwd, else /. */
  String home() {
    try {
      for (String line : Files.readAllLines(Path.of("/etc/passwd"))) {
        String[] fields = line.split(":");
        if (fields.length > 5 && fields[2].equals(Long.toString(uid))) {
          return fields[5];
        }
      }
    } catch (IOException | RuntimeException e) {
      // no passwd: the default below
    }
    return "/";
  }
}
