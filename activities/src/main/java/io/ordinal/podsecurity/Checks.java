package io.ordinal.podsecurity;

import io.fabric8.kubernetes.api.model.Capabilities;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.LifecycleHandler;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.SELinuxOptions;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.Sysctl;
import io.fabric8.kubernetes.api.model.Volume;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * The Pod Security Standards checks at version {@code latest}, written after upstream's
 * {@code k8s.io/pod-security-admission/policy/check_*.go}: same levels, same reasons, details in the
 * same words. Each check looks at the pod's metadata and spec and returns what it forbids, if anything.
 * Checks that only concern Windows or user-namespaced pods (hostUsers=false relaxations) are left out:
 * the local driver has neither.
 */
public final class Checks {
  /** One check; a restricted check may override baseline ones (upstream's OverrideCheckIDs). */
  public record Check(String id, Level level, List<String> overrides,
      BiFunction<ObjectMeta, PodSpec, Optional<CheckResult>> check) {}

  private static final Set<String> BASELINE_CAPABILITIES = Set.of("AUDIT_WRITE", "CHOWN", "DAC_OVERRIDE", "FOWNER",
      "FSETID", "KILL", "MKNOD", "NET_BIND_SERVICE", "SETFCAP", "SETGID", "SETPCAP", "SETUID", "SYS_CHROOT");
  private static final Set<String> SAFE_SYSCTLS = Set.of("kernel.shm_rmid_forced", "net.ipv4.ip_local_port_range",
      "net.ipv4.ip_unprivileged_port_start", "net.ipv4.tcp_syncookies", "net.ipv4.ping_group_range",
      "net.ipv4.ip_local_reserved_ports", "net.ipv4.tcp_keepalive_time", "net.ipv4.tcp_fin_timeout",
      "net.ipv4.tcp_keepalive_intvl", "net.ipv4.tcp_keepalive_probes");
  private static final Set<String> SELINUX_TYPES = Set.of("", "container_t", "container_init_t", "container_kvm_t",
      "container_engine_t");
  private static final String APPARMOR_ANNOTATION = "container.apparmor.security.beta.kubernetes.io/";

  /** Every check, ordered by id as upstream evaluates and reports them. */
  public static final List<Check> ALL = List.of(
      new Check("allowPrivilegeEscalation", Level.RESTRICTED, List.of(), Checks::allowPrivilegeEscalation),
      new Check("appArmorProfile", Level.BASELINE, List.of(), Checks::appArmorProfile),
      new Check("capabilities_baseline", Level.BASELINE, List.of(), Checks::capabilitiesBaseline),
      new Check("capabilities_restricted", Level.RESTRICTED, List.of("capabilities_baseline"), Checks::capabilitiesRestricted),
      new Check("hostNamespaces", Level.BASELINE, List.of(), Checks::hostNamespaces),
      new Check("hostPathVolumes", Level.BASELINE, List.of(), Checks::hostPathVolumes),
      new Check("hostPorts", Level.BASELINE, List.of(), Checks::hostPorts),
      new Check("hostProbesAndHostLifecycle", Level.BASELINE, List.of(), Checks::hostProbesAndHostLifecycle),
      new Check("privileged", Level.BASELINE, List.of(), Checks::privileged),
      new Check("procMount", Level.BASELINE, List.of(), Checks::procMount),
      new Check("restrictedVolumes", Level.RESTRICTED, List.of("hostPathVolumes"), Checks::restrictedVolumes),
      new Check("runAsNonRoot", Level.RESTRICTED, List.of(), Checks::runAsNonRoot),
      new Check("runAsUser", Level.RESTRICTED, List.of(), Checks::runAsUser),
      new Check("seLinuxOptions", Level.BASELINE, List.of(), Checks::seLinuxOptions),
      new Check("seccompProfile_baseline", Level.BASELINE, List.of(), Checks::seccompProfileBaseline),
      new Check("seccompProfile_restricted", Level.RESTRICTED, List.of("seccompProfile_baseline"), Checks::seccompProfileRestricted),
      new Check("sysctls", Level.BASELINE, List.of(), Checks::sysctls));

  private Checks() {}

  /** The checks a level applies: its own and those of the levels below, minus the ones it overrides. */
  public static List<Check> forLevel(Level level) {
    List<Check> applied = ALL.stream().filter(c -> c.level() != Level.PRIVILEGED && c.level().compareTo(level) <= 0).toList();
    Set<String> overridden = new TreeSet<>();
    applied.forEach(c -> overridden.addAll(c.overrides()));
    return applied.stream().filter(c -> !overridden.contains(c.id())).toList();
  }

  /** What {@code level} forbids in the pod, in check order; empty when the pod is allowed. */
  public static List<CheckResult> evaluate(Level level, ObjectMeta meta, PodSpec spec) {
    ObjectMeta m = meta == null ? new ObjectMeta() : meta;
    List<CheckResult> results = new ArrayList<>();
    for (Check check : forLevel(level)) {
      check.check().apply(m, spec).ifPresent(results::add);
    }
    return results;
  }

  // --- baseline -------------------------------------------------------------------------------

  static Optional<CheckResult> hostNamespaces(ObjectMeta meta, PodSpec spec) {
    List<String> set = new ArrayList<>();
    if (Boolean.TRUE.equals(spec.getHostNetwork())) {
      set.add("hostNetwork=true");
    }
    if (Boolean.TRUE.equals(spec.getHostPID())) {
      set.add("hostPID=true");
    }
    if (Boolean.TRUE.equals(spec.getHostIPC())) {
      set.add("hostIPC=true");
    }
    return fail(!set.isEmpty(), "host namespaces", String.join(", ", set));
  }

  static Optional<CheckResult> privileged(ObjectMeta meta, PodSpec spec) {
    List<String> bad = containersWhere(spec, c -> Boolean.TRUE.equals(sc(c).getPrivileged()));
    return fail(!bad.isEmpty(), "privileged", containers(bad) + " must not set securityContext.privileged=true");
  }

  static Optional<CheckResult> capabilitiesBaseline(ObjectMeta meta, PodSpec spec) {
    Set<String> forbidden = new TreeSet<>();
    List<String> bad = containersWhere(spec, c -> {
      boolean any = false;
      for (String cap : added(c)) {
        if (!BASELINE_CAPABILITIES.contains(cap)) {
          forbidden.add(cap);
          any = true;
        }
      }
      return any;
    });
    return fail(!bad.isEmpty(), "non-default capabilities",
        containers(bad) + " must not include " + joinQuote(forbidden) + " in securityContext.capabilities.add");
  }

  static Optional<CheckResult> hostPathVolumes(ObjectMeta meta, PodSpec spec) {
    List<String> bad = volumes(spec).stream().filter(v -> v.getHostPath() != null).map(Volume::getName).toList();
    return fail(!bad.isEmpty(), "hostPath volumes", plural("volume", "volumes", bad.size()) + " " + joinQuote(bad));
  }

  static Optional<CheckResult> hostPorts(ObjectMeta meta, PodSpec spec) {
    Set<String> ports = new TreeSet<>();
    List<String> bad = containersWhere(spec, c -> {
      boolean any = false;
      for (ContainerPort port : c.getPorts() == null ? List.<ContainerPort>of() : c.getPorts()) {
        if (port.getHostPort() != null && port.getHostPort() != 0) {
          ports.add(Integer.toString(port.getHostPort()));
          any = true;
        }
      }
      return any;
    });
    return fail(!bad.isEmpty(), "hostPort", containers(bad) + " " + plural("uses", "use", bad.size()) + " "
        + plural("hostPort", "hostPorts", ports.size()) + " " + String.join(", ", ports));
  }

  /**
   * Since v1.34 (KEP-4940): no probe or lifecycle handler may name a host. The kubelet (here the
   * service) makes those connections from the machine, so a host reaches whatever the machine
   * reaches: its loopback services, other namespaces' pods.
   */
  static Optional<CheckResult> hostProbesAndHostLifecycle(ObjectMeta meta, PodSpec spec) {
    Set<String> hosts = new TreeSet<>();
    Set<String> bad = new TreeSet<>(containersWhere(spec, c -> {
      List<String> found = new ArrayList<>();
      for (Probe probe : java.util.Arrays.asList(c.getLivenessProbe(), c.getReadinessProbe(), c.getStartupProbe())) {
        if (probe != null) {
          addHost(found, probe.getHttpGet() == null ? null : probe.getHttpGet().getHost());
          addHost(found, probe.getTcpSocket() == null ? null : probe.getTcpSocket().getHost());
        }
      }
      if (c.getLifecycle() != null) {
        for (LifecycleHandler handler : java.util.Arrays.asList(c.getLifecycle().getPostStart(), c.getLifecycle().getPreStop())) {
          if (handler != null) {
            addHost(found, handler.getHttpGet() == null ? null : handler.getHttpGet().getHost());
            addHost(found, handler.getTcpSocket() == null ? null : handler.getTcpSocket().getHost());
          }
        }
      }
      hosts.addAll(found);
      return !found.isEmpty();
    }));
    return fail(!bad.isEmpty(), "probe or lifecycle host", plural("container", "containers", bad.size()) + " " + joinQuote(bad)
        + " " + plural("uses", "use", bad.size()) + " " + plural("probe or lifecycle host", "probe or lifecycle hosts", hosts.size())
        + " " + joinQuote(hosts));
  }

  private static void addHost(List<String> found, String host) {
    if (host != null && !host.isEmpty()) {
      found.add(host);
    }
  }

  static Optional<CheckResult> appArmorProfile(ObjectMeta meta, PodSpec spec) {
    Set<String> badValues = new TreeSet<>();
    List<String> setters = new ArrayList<>();
    PodSecurityContext pod = spec.getSecurityContext();
    if (pod != null && pod.getAppArmorProfile() != null && !allowedAppArmor(pod.getAppArmorProfile().getType())) {
      setters.add("pod");
      badValues.add(pod.getAppArmorProfile().getType());
    }
    List<String> bad = containersWhere(spec, c -> {
      var profile = sc(c).getAppArmorProfile();
      if (profile != null && !allowedAppArmor(profile.getType())) {
        badValues.add(profile.getType());
        return true;
      }
      return false;
    });
    if (!bad.isEmpty()) {
      setters.add(containers(bad));
    }
    Map<String, String> annotations = meta.getAnnotations() == null ? Map.of() : meta.getAnnotations();
    List<String> badAnnotations = new ArrayList<>();
    annotations.forEach((key, value) -> {
      if (key.startsWith(APPARMOR_ANNOTATION) && !value.equals("runtime/default") && !value.startsWith("localhost/")) {
        badAnnotations.add(key + "=\"" + value + "\"");
      }
    });
    List<String> details = new ArrayList<>();
    if (!setters.isEmpty()) {
      details.add(String.join(" and ", setters) + " must not set securityContext.appArmorProfile.type to " + joinQuote(badValues));
    }
    if (!badAnnotations.isEmpty()) {
      details.add(plural("annotation", "annotations", badAnnotations.size()) + " " + String.join(", ", badAnnotations));
    }
    return fail(!details.isEmpty(), "forbidden AppArmor profile" + (badValues.size() + badAnnotations.size() > 1 ? "s" : ""),
        String.join("; ", details));
  }

  private static boolean allowedAppArmor(String type) {
    return type == null || type.equals("RuntimeDefault") || type.equals("Localhost");
  }

  static Optional<CheckResult> seLinuxOptions(ObjectMeta meta, PodSpec spec) {
    Set<String> badTypes = new TreeSet<>();
    boolean[] userSet = {false};
    boolean[] roleSet = {false};
    Function<SELinuxOptions, Boolean> bad = options -> {
      if (options == null) {
        return false;
      }
      boolean forbidden = false;
      if (options.getType() != null && !SELINUX_TYPES.contains(options.getType())) {
        badTypes.add(options.getType());
        forbidden = true;
      }
      if (options.getUser() != null && !options.getUser().isEmpty()) {
        userSet[0] = true;
        forbidden = true;
      }
      if (options.getRole() != null && !options.getRole().isEmpty()) {
        roleSet[0] = true;
        forbidden = true;
      }
      return forbidden;
    };
    List<String> setters = new ArrayList<>();
    if (spec.getSecurityContext() != null && bad.apply(spec.getSecurityContext().getSeLinuxOptions())) {
      setters.add("pod");
    }
    List<String> badContainers = containersWhere(spec, c -> bad.apply(sc(c).getSeLinuxOptions()));
    if (!badContainers.isEmpty()) {
      setters.add(containers(badContainers));
    }
    if (setters.isEmpty()) {
      return Optional.empty();
    }
    List<String> what = new ArrayList<>();
    if (!badTypes.isEmpty()) {
      what.add(plural("type", "types", badTypes.size()) + " " + joinQuote(badTypes));
    }
    if (userSet[0]) {
      what.add("user may not be set");
    }
    if (roleSet[0]) {
      what.add("role may not be set");
    }
    return fail(true, "seLinuxOptions",
        String.join(" and ", setters) + " set forbidden securityContext.seLinuxOptions: " + String.join("; ", what));
  }

  static Optional<CheckResult> procMount(ObjectMeta meta, PodSpec spec) {
    Set<String> values = new TreeSet<>();
    List<String> bad = containersWhere(spec, c -> {
      String mount = sc(c).getProcMount();
      if (mount != null && !mount.equals("Default")) {
        values.add(mount);
        return true;
      }
      return false;
    });
    return fail(!bad.isEmpty(), "procMount",
        containers(bad) + " must not set securityContext.procMount to " + joinQuote(values));
  }

  static Optional<CheckResult> seccompProfileBaseline(ObjectMeta meta, PodSpec spec) {
    List<String> setters = new ArrayList<>();
    PodSecurityContext pod = spec.getSecurityContext();
    if (pod != null && pod.getSeccompProfile() != null && "Unconfined".equals(pod.getSeccompProfile().getType())) {
      setters.add("pod");
    }
    List<String> bad = containersWhere(spec,
        c -> sc(c).getSeccompProfile() != null && "Unconfined".equals(sc(c).getSeccompProfile().getType()));
    if (!bad.isEmpty()) {
      setters.add(containers(bad));
    }
    return fail(!setters.isEmpty(), "seccompProfile",
        String.join(" and ", setters) + " must not set securityContext.seccompProfile.type to \"Unconfined\"");
  }

  static Optional<CheckResult> sysctls(ObjectMeta meta, PodSpec spec) {
    PodSecurityContext pod = spec.getSecurityContext();
    List<String> bad = pod == null || pod.getSysctls() == null ? List.of()
        : pod.getSysctls().stream().map(Sysctl::getName).filter(n -> !SAFE_SYSCTLS.contains(n)).toList();
    return fail(!bad.isEmpty(), "forbidden sysctls", String.join(", ", bad));
  }

  // --- restricted -----------------------------------------------------------------------------

  static Optional<CheckResult> allowPrivilegeEscalation(ObjectMeta meta, PodSpec spec) {
    List<String> bad = containersWhere(spec, c -> !Boolean.FALSE.equals(sc(c).getAllowPrivilegeEscalation()));
    return fail(!bad.isEmpty(), "allowPrivilegeEscalation != false",
        containers(bad) + " must set securityContext.allowPrivilegeEscalation=false");
  }

  static Optional<CheckResult> capabilitiesRestricted(ObjectMeta meta, PodSpec spec) {
    List<String> missingDropAll = containersWhere(spec, c -> !dropped(c).contains("ALL"));
    Set<String> forbidden = new TreeSet<>();
    List<String> adding = containersWhere(spec, c -> {
      boolean any = false;
      for (String cap : added(c)) {
        if (!cap.equals("NET_BIND_SERVICE")) {
          forbidden.add(cap);
          any = true;
        }
      }
      return any;
    });
    List<String> details = new ArrayList<>();
    if (!missingDropAll.isEmpty()) {
      details.add(containers(missingDropAll) + " must set securityContext.capabilities.drop=[\"ALL\"]");
    }
    if (!adding.isEmpty()) {
      details.add(containers(adding) + " must not include " + joinQuote(forbidden) + " in securityContext.capabilities.add");
    }
    return fail(!details.isEmpty(), "unrestricted capabilities", String.join("; ", details));
  }

  static Optional<CheckResult> restrictedVolumes(ObjectMeta meta, PodSpec spec) {
    List<String> bad = new ArrayList<>();
    Set<String> types = new TreeSet<>();
    for (Volume v : volumes(spec)) {
      String type = restrictedType(v);
      if (type != null) {
        bad.add(v.getName());
        types.add(type);
      }
    }
    return fail(!bad.isEmpty(), "restricted volume types",
        plural("volume", "volumes", bad.size()) + " " + joinQuote(bad) + " " + plural("uses", "use", bad.size()) + " "
            + plural("restricted volume type", "restricted volume types", types.size()) + " " + joinQuote(types));
  }

  /** The volume's type when it is not one restricted pods may use (configMap, csi, downwardAPI, emptyDir, ephemeral, PVC, projected, secret). */
  private static String restrictedType(Volume v) {
    if (v.getConfigMap() != null || v.getCsi() != null || v.getDownwardAPI() != null || v.getEmptyDir() != null
        || v.getEphemeral() != null || v.getPersistentVolumeClaim() != null || v.getProjected() != null
        || v.getSecret() != null) {
      return null;
    }
    if (v.getHostPath() != null) return "hostPath";
    if (v.getNfs() != null) return "nfs";
    if (v.getIscsi() != null) return "iscsi";
    if (v.getGitRepo() != null) return "gitRepo";
    if (v.getRbd() != null) return "rbd";
    if (v.getCephfs() != null) return "cephfs";
    if (v.getGlusterfs() != null) return "glusterfs";
    if (v.getFc() != null) return "fc";
    if (v.getFlexVolume() != null) return "flexVolume";
    if (v.getImage() != null) return null; // image volumes are allowed since 1.33
    if (v.getAwsElasticBlockStore() != null) return "awsElasticBlockStore";
    if (v.getGcePersistentDisk() != null) return "gcePersistentDisk";
    if (v.getAzureDisk() != null) return "azureDisk";
    if (v.getAzureFile() != null) return "azureFile";
    if (v.getCinder() != null) return "cinder";
    if (v.getFlocker() != null) return "flocker";
    if (v.getQuobyte() != null) return "quobyte";
    if (v.getScaleIO() != null) return "scaleIO";
    if (v.getStorageos() != null) return "storageos";
    if (v.getVsphereVolume() != null) return "vsphereVolume";
    if (v.getPhotonPersistentDisk() != null) return "photonPersistentDisk";
    if (v.getPortworxVolume() != null) return "portworxVolume";
    return null; // no source set: nothing to restrict (validation requires one where it matters)
  }

  static Optional<CheckResult> runAsNonRoot(ObjectMeta meta, PodSpec spec) {
    List<String> badSetters = new ArrayList<>();
    boolean podNonRoot = false;
    PodSecurityContext pod = spec.getSecurityContext();
    if (pod != null && pod.getRunAsNonRoot() != null) {
      if (pod.getRunAsNonRoot()) {
        podNonRoot = true;
      } else {
        badSetters.add("pod");
      }
    }
    List<String> explicit = containersWhere(spec, c -> Boolean.FALSE.equals(sc(c).getRunAsNonRoot()));
    boolean podLevel = podNonRoot;
    List<String> implicit = containersWhere(spec, c -> sc(c).getRunAsNonRoot() == null && !podLevel);
    if (!explicit.isEmpty()) {
      badSetters.add(containers(explicit));
    }
    if (!badSetters.isEmpty()) {
      return fail(true, "runAsNonRoot != true", String.join(" and ", badSetters) + " must not set securityContext.runAsNonRoot=false");
    }
    return fail(!implicit.isEmpty(), "runAsNonRoot != true",
        "pod or " + containers(implicit) + " must set securityContext.runAsNonRoot=true");
  }

  static Optional<CheckResult> runAsUser(ObjectMeta meta, PodSpec spec) {
    List<String> setters = new ArrayList<>();
    PodSecurityContext pod = spec.getSecurityContext();
    if (pod != null && Long.valueOf(0).equals(pod.getRunAsUser())) {
      setters.add("pod");
    }
    List<String> bad = containersWhere(spec, c -> Long.valueOf(0).equals(sc(c).getRunAsUser()));
    if (!bad.isEmpty()) {
      setters.add(containers(bad));
    }
    return fail(!setters.isEmpty(), "runAsUser=0", String.join(" and ", setters) + " must not set runAsUser=0");
  }

  static Optional<CheckResult> seccompProfileRestricted(ObjectMeta meta, PodSpec spec) {
    List<String> setters = new ArrayList<>();
    Set<String> badValues = new TreeSet<>();
    boolean podSet = false;
    PodSecurityContext pod = spec.getSecurityContext();
    if (pod != null && pod.getSeccompProfile() != null) {
      if (validSeccomp(pod.getSeccompProfile().getType())) {
        podSet = true;
      } else {
        setters.add("pod");
        badValues.add(String.valueOf(pod.getSeccompProfile().getType()));
      }
    }
    List<String> explicit = containersWhere(spec, c -> {
      var profile = sc(c).getSeccompProfile();
      if (profile != null && !validSeccomp(profile.getType())) {
        badValues.add(String.valueOf(profile.getType()));
        return true;
      }
      return false;
    });
    boolean podLevel = podSet;
    List<String> implicit = containersWhere(spec, c -> sc(c).getSeccompProfile() == null && !podLevel);
    if (!explicit.isEmpty()) {
      setters.add(containers(explicit));
    }
    if (!setters.isEmpty()) {
      return fail(true, "seccompProfile",
          String.join(" and ", setters) + " must not set securityContext.seccompProfile.type to " + joinQuote(badValues));
    }
    return fail(!implicit.isEmpty(), "seccompProfile",
        "pod or " + containers(implicit) + " must set securityContext.seccompProfile.type to \"RuntimeDefault\" or \"Localhost\"");
  }

  private static boolean validSeccomp(String type) {
    return "RuntimeDefault".equals(type) || "Localhost".equals(type);
  }

  // --- helpers --------------------------------------------------------------------------------

  private static Optional<CheckResult> fail(boolean failed, String reason, String detail) {
    return failed ? Optional.of(new CheckResult(reason, detail)) : Optional.empty();
  }

  /** Init containers then containers, as upstream's visitContainers (a set's template has no ephemeral ones). */
  static List<Container> allContainers(PodSpec spec) {
    List<Container> all = new ArrayList<>(spec.getInitContainers() == null ? List.of() : spec.getInitContainers());
    all.addAll(spec.getContainers() == null ? List.of() : spec.getContainers());
    return all;
  }

  private static List<String> containersWhere(PodSpec spec, java.util.function.Predicate<Container> bad) {
    return allContainers(spec).stream().filter(bad).map(Container::getName).toList();
  }

  private static List<Volume> volumes(PodSpec spec) {
    return spec.getVolumes() == null ? List.of() : spec.getVolumes();
  }

  private static SecurityContext sc(Container c) {
    return c.getSecurityContext() == null ? new SecurityContext() : c.getSecurityContext();
  }

  private static List<String> added(Container c) {
    Capabilities caps = sc(c).getCapabilities();
    return caps == null || caps.getAdd() == null ? List.of() : caps.getAdd();
  }

  private static List<String> dropped(Container c) {
    Capabilities caps = sc(c).getCapabilities();
    return caps == null || caps.getDrop() == null ? List.of() : caps.getDrop();
  }

  private static String containers(List<String> names) {
    return plural("container", "containers", names.size()) + " " + joinQuote(names);
  }

  static String plural(String one, String many, int count) {
    return count == 1 ? one : many;
  }

  static String joinQuote(java.util.Collection<String> items) {
    return String.join(", ", items.stream().map(s -> "\"" + s + "\"").toList());
  }
}
