package io.ordinal.driver.local;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.SecurityContext;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Who a container's processes run as, from its securityContext over the pod's, as the kubelet
 * works it out: uid and gid (runAsUser, runAsGroup; else the pod's default user, the stand-in for an
 * image's USER), supplementary groups (supplementalGroups, then fsGroup), runAsNonRoot, whether
 * setuid binaries may raise privileges, and a read-only root.
 *
 * @param defaultUser whether uid came from the default rather than a runAsUser (for the kubelet's wording)
 */
record ContainerUser(long uid, long gid, List<Long> groups, boolean runAsNonRoot, boolean noNewPrivs,
    boolean readOnlyRoot, boolean defaultUser) {
  static final String SETPRIV = "/usr/bin/setpriv";
  /** Used for a pod that carries no default-user annotation (created before there was one): never root. */
  static final long FALLBACK_ID = 65534;
  /** The service's own user, unchanged: for processes of the driver's own (and its tests). */
  static final ContainerUser SERVICE = new ContainerUser(-1, -1, List.of(), false, false, false, false);

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
    // no_new_privs as the kubelet sets it for allowPrivilegeEscalation=false, and also by default for a
    // non-root user: a local container sees this machine's setuid binaries (su, sudo, mount), not an image's.
    boolean noNewPrivs = Boolean.FALSE.equals(c.getAllowPrivilegeEscalation())
        || (c.getAllowPrivilegeEscalation() == null && effectiveUid != 0 && !Boolean.TRUE.equals(c.getPrivileged()));
    // Without runAsGroup the default gid, not the root group a runtime would pick for a user missing from the image.
    return new ContainerUser(effectiveUid, gid != null ? gid : fallback[1],
        List.copyOf(groups), Boolean.TRUE.equals(nonRoot), noNewPrivs, Boolean.TRUE.equals(c.getReadOnlyRootFilesystem()),
        uid == null);
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
    return Optional.empty();
  }

  boolean root() {
    return uid == 0;
  }

  /** The argv prefix that becomes this user before running the command: setpriv, when we are root to begin with. */
  List<String> setpriv() {
    if (uid < 0 || !ContainerProcess.ROOT || !Files.isExecutable(Path.of(SETPRIV))) {
      return List.of();
    }
    List<String> argv = new ArrayList<>(List.of(SETPRIV, "--reuid=" + uid, "--regid=" + gid));
    if (groups.isEmpty()) {
      argv.add("--clear-groups");
    } else {
      argv.add("--groups=" + String.join(",", groups.stream().map(String::valueOf).toList()));
    }
    if (noNewPrivs) {
      argv.add("--no-new-privs");
    }
    argv.add("--");
    return argv;
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
