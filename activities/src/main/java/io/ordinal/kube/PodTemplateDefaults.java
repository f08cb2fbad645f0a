package io.ordinal.kube;

import io.fabric8.kubernetes.api.model.AzureDiskVolumeSource;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.DownwardAPIVolumeFile;
import io.fabric8.kubernetes.api.model.EmptyDirVolumeSource;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EphemeralContainer;
import io.fabric8.kubernetes.api.model.HTTPGetAction;
import io.fabric8.kubernetes.api.model.Lifecycle;
import io.fabric8.kubernetes.api.model.LifecycleHandler;
import io.fabric8.kubernetes.api.model.ObjectFieldSelector;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimSpec;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimStatus;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimTemplate;
import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeProjection;
import io.fabric8.kubernetes.api.model.VolumeResourceRequirements;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Stream;

/**
 * Upstream's apps/v1 defaulting of a StatefulSet's pod template and claim templates, as Kubernetes
 * v1.34.2 does it (SetObjectDefaults_StatefulSet in pkg/apis/apps/v1/zz_generated.defaults.go, calling
 * pkg/apis/core/v1/defaults.go). The ControllerRevision hash is taken of the template after this, so
 * Ordinal's must be the same to name revisions as upstream does.
 *
 * <p>Only what a PodSpec gets is applied, not SetDefaults_Pod (enableServiceLinks, requests from
 * limits, host ports under hostNetwork, pod-level resources), which upstream keeps for pods so that a
 * new default does not change the templates, and their hashes, of existing workloads. Defaults behind
 * a feature gate that is off in v1.34.2 are left out: ImageVolume (an image volume's pullPolicy) and
 * EnvFiles (fileKeyRef.optional); with the gate off upstream drops those fields anyway.
 *
 * <p>Like upstream's, it fills only what is unset, Go's zero value included ("" for a string, 0 for a
 * probe's counts), so applying it again changes nothing. It rewrites set values only where upstream
 * does too, idempotently: resource quantities finer than milli units are rounded up, and a claim
 * template's apiVersion and kind are v1 PersistentVolumeClaim.
 */
public final class PodTemplateDefaults {
  static final String ALWAYS = "Always";
  static final String IF_NOT_PRESENT = "IfNotPresent";
  /** 0644, the defaultMode of secret, configMap, downwardAPI and projected volumes. */
  static final int DEFAULT_MODE = 420;

  private PodTemplateDefaults() {}

  /** Fills the unset fields of {@code template} that upstream defaults; mutates and returns it. */
  public static PodTemplateSpec apply(PodTemplateSpec template) {
    if (template == null) {
      return null;
    }
    if (template.getSpec() == null) {
      template.setSpec(new PodSpec()); // a Go struct, defaulted when absent
    }
    PodSpec spec = template.getSpec();
    podSpec(spec);
    for (Volume volume : nullSafe(spec.getVolumes())) {
      volume(volume);
    }
    for (Container container : nullSafe(spec.getInitContainers())) {
      container(container);
    }
    for (Container container : nullSafe(spec.getContainers())) {
      container(container);
    }
    for (EphemeralContainer container : nullSafe(spec.getEphemeralContainers())) {
      ephemeralContainer(container);
    }
    resourceList(spec.getOverhead());
    resources(spec.getResources());
    return template;
  }

  /**
   * Fills the unset fields of a volumeClaimTemplate that upstream defaults; mutates and returns it.
   * SetObjectDefaults_StatefulSet gives each one SetDefaults_PersistentVolumeClaim (status.phase),
   * SetDefaults_PersistentVolumeClaimSpec and SetDefaults_ResourceList of its spec and status.
   */
  public static PersistentVolumeClaim applyClaim(PersistentVolumeClaim claim) {
    if (claim == null) {
      return null;
    }
    // Convert_apps_StatefulSetSpec_To_v1_StatefulSetSpec (apps/v1 conversion.go) writes these
    // over whatever was sent, so every served claim template has them.
    claim.setApiVersion("v1");
    claim.setKind("PersistentVolumeClaim");
    if (claim.getSpec() == null) {
      claim.setSpec(new PersistentVolumeClaimSpec());
    }
    claimSpec(claim.getSpec());
    if (claim.getStatus() == null) {
      claim.setStatus(new PersistentVolumeClaimStatus());
    }
    PersistentVolumeClaimStatus status = claim.getStatus();
    if (unset(status.getPhase())) {
      status.setPhase("Pending"); // SetDefaults_PersistentVolumeClaim
    }
    resourceList(status.getCapacity());
    resourceList(status.getAllocatedResources());
    return claim;
  }

  /** core/v1 SetDefaults_PodSpec. */
  private static void podSpec(PodSpec spec) {
    if (unset(spec.getDnsPolicy())) {
      spec.setDnsPolicy("ClusterFirst");
    }
    if (unset(spec.getRestartPolicy())) {
      spec.setRestartPolicy(ALWAYS);
    }
    if (spec.getSecurityContext() == null) {
      spec.setSecurityContext(new PodSecurityContext());
    }
    if (spec.getTerminationGracePeriodSeconds() == null) {
      spec.setTerminationGracePeriodSeconds(30L);
    }
    if (unset(spec.getSchedulerName())) {
      spec.setSchedulerName("default-scheduler");
    }
    // Not a default but core/v1's conversion, which every stored spec goes through: serviceAccount
    // is an alias of serviceAccountName, which wins when both are set.
    if (unset(spec.getServiceAccountName())) {
      spec.setServiceAccountName(spec.getServiceAccount());
    }
    spec.setServiceAccount(unset(spec.getServiceAccountName()) ? null : spec.getServiceAccountName());
  }

  /** core/v1 SetDefaults_Volume and the generated defaults of each volume source. */
  private static void volume(Volume volume) {
    if (volume == null) {
      return;
    }
    if (noSource(volume)) {
      volume.setEmptyDir(new EmptyDirVolumeSource());
    }
    if (volume.getHostPath() != null && volume.getHostPath().getType() == null) {
      volume.getHostPath().setType(""); // SetDefaults_HostPathVolumeSource: HostPathUnset
    }
    if (volume.getSecret() != null && volume.getSecret().getDefaultMode() == null) {
      volume.getSecret().setDefaultMode(DEFAULT_MODE); // SetDefaults_SecretVolumeSource
    }
    if (volume.getIscsi() != null && unset(volume.getIscsi().getIscsiInterface())) {
      volume.getIscsi().setIscsiInterface("default");
    }
    if (volume.getRbd() != null) {
      var rbd = volume.getRbd();
      if (unset(rbd.getPool())) {
        rbd.setPool("rbd");
      }
      if (unset(rbd.getUser())) {
        rbd.setUser("admin");
      }
      if (unset(rbd.getKeyring())) {
        rbd.setKeyring("/etc/ceph/keyring");
      }
    }
    if (volume.getDownwardAPI() != null) {
      if (volume.getDownwardAPI().getDefaultMode() == null) {
        volume.getDownwardAPI().setDefaultMode(DEFAULT_MODE); // SetDefaults_DownwardAPIVolumeSource
      }
      downwardApiItems(volume.getDownwardAPI().getItems());
    }
    if (volume.getConfigMap() != null && volume.getConfigMap().getDefaultMode() == null) {
      volume.getConfigMap().setDefaultMode(DEFAULT_MODE); // SetDefaults_ConfigMapVolumeSource
    }
    if (volume.getAzureDisk() != null) {
      azureDisk(volume.getAzureDisk());
    }
    if (volume.getProjected() != null) {
      if (volume.getProjected().getDefaultMode() == null) {
        volume.getProjected().setDefaultMode(DEFAULT_MODE); // SetDefaults_ProjectedVolumeSource
      }
      for (VolumeProjection source : nullSafe(volume.getProjected().getSources())) {
        if (source == null) {
          continue;
        }
        if (source.getDownwardAPI() != null) {
          downwardApiItems(source.getDownwardAPI().getItems());
        }
        if (source.getServiceAccountToken() != null && source.getServiceAccountToken().getExpirationSeconds() == null) {
          source.getServiceAccountToken().setExpirationSeconds(3600L); // SetDefaults_ServiceAccountTokenProjection
        }
      }
    }
    if (volume.getScaleIO() != null) {
      if (unset(volume.getScaleIO().getStorageMode())) {
        volume.getScaleIO().setStorageMode("ThinProvisioned");
      }
      if (unset(volume.getScaleIO().getFsType())) {
        volume.getScaleIO().setFsType("xfs");
      }
    }
    if (volume.getEphemeral() != null && volume.getEphemeral().getVolumeClaimTemplate() != null) {
      PersistentVolumeClaimTemplate claim = volume.getEphemeral().getVolumeClaimTemplate();
      if (claim.getSpec() == null) {
        claim.setSpec(new PersistentVolumeClaimSpec());
      }
      claimSpec(claim.getSpec());
    }
  }

  /** ptr.AllPtrFieldsNil(&VolumeSource): none of the 30 sources of v1.34 is set. */
  private static boolean noSource(Volume v) {
    return Stream.of(v.getHostPath(), v.getEmptyDir(), v.getGcePersistentDisk(), v.getAwsElasticBlockStore(),
        v.getGitRepo(), v.getSecret(), v.getNfs(), v.getIscsi(), v.getGlusterfs(), v.getPersistentVolumeClaim(),
        v.getRbd(), v.getFlexVolume(), v.getCinder(), v.getCephfs(), v.getFlocker(), v.getDownwardAPI(), v.getFc(),
        v.getAzureFile(), v.getConfigMap(), v.getVsphereVolume(), v.getQuobyte(), v.getAzureDisk(),
        v.getPhotonPersistentDisk(), v.getProjected(), v.getPortworxVolume(), v.getScaleIO(), v.getStorageos(),
        v.getCsi(), v.getEphemeral(), v.getImage()).allMatch(Objects::isNull);
  }

  /** The generated defaults of AzureDiskVolumeSource, pointers all, so only nil is unset. */
  private static void azureDisk(AzureDiskVolumeSource disk) {
    if (disk.getCachingMode() == null) {
      disk.setCachingMode("ReadWrite");
    }
    if (disk.getFsType() == null) {
      disk.setFsType("ext4");
    }
    if (disk.getReadOnly() == null) {
      disk.setReadOnly(false);
    }
    if (disk.getKind() == null) {
      disk.setKind("Shared");
    }
  }

  private static void downwardApiItems(List<DownwardAPIVolumeFile> items) {
    for (DownwardAPIVolumeFile item : nullSafe(items)) {
      if (item != null) {
        fieldRef(item.getFieldRef());
      }
    }
  }

  /** SetDefaults_ObjectFieldSelector. */
  private static void fieldRef(ObjectFieldSelector selector) {
    if (selector != null && unset(selector.getApiVersion())) {
      selector.setApiVersion("v1");
    }
  }

  /** SetDefaults_PersistentVolumeClaimSpec, and SetDefaults_ResourceList of its resources. */
  private static void claimSpec(PersistentVolumeClaimSpec spec) {
    if (spec.getVolumeMode() == null) {
      spec.setVolumeMode("Filesystem"); // a pointer: "" is set
    }
    VolumeResourceRequirements resources = spec.getResources();
    if (resources != null) {
      resourceList(resources.getLimits());
      resourceList(resources.getRequests());
    }
  }

  /** SetDefaults_Container, then what the generated code does for the container's parts. */
  private static void container(Container c) {
    if (c == null) {
      return;
    }
    if (unset(c.getImagePullPolicy())) {
      c.setImagePullPolicy(pullPolicy(c.getImage()));
    }
    if (unset(c.getTerminationMessagePath())) {
      c.setTerminationMessagePath("/dev/termination-log");
    }
    if (unset(c.getTerminationMessagePolicy())) {
      c.setTerminationMessagePolicy("File");
    }
    parts(c.getPorts(), c.getEnv(), c.getResources(), c.getLifecycle(), c.getLivenessProbe(), c.getReadinessProbe(),
        c.getStartupProbe());
  }

  /** SetDefaults_EphemeralContainer is SetDefaults_Container of its common part. */
  private static void ephemeralContainer(EphemeralContainer c) {
    if (c == null) {
      return;
    }
    if (unset(c.getImagePullPolicy())) {
      c.setImagePullPolicy(pullPolicy(c.getImage()));
    }
    if (unset(c.getTerminationMessagePath())) {
      c.setTerminationMessagePath("/dev/termination-log");
    }
    if (unset(c.getTerminationMessagePolicy())) {
      c.setTerminationMessagePolicy("File");
    }
    parts(c.getPorts(), c.getEnv(), c.getResources(), c.getLifecycle(), c.getLivenessProbe(), c.getReadinessProbe(),
        c.getStartupProbe());
  }

  private static void parts(List<ContainerPort> ports, List<EnvVar> env, ResourceRequirements resources,
      Lifecycle lifecycle, Probe... probes) {
    for (ContainerPort port : nullSafe(ports)) {
      if (port != null && unset(port.getProtocol())) {
        port.setProtocol("TCP");
      }
    }
    for (EnvVar envVar : nullSafe(env)) {
      if (envVar != null && envVar.getValueFrom() != null) {
        fieldRef(envVar.getValueFrom().getFieldRef());
      }
    }
    resources(resources);
    for (Probe probe : probes) {
      probe(probe);
    }
    if (lifecycle != null) {
      handler(lifecycle.getPostStart());
      handler(lifecycle.getPreStop());
    }
  }

  private static void resources(ResourceRequirements resources) {
    if (resources != null) {
      resourceList(resources.getLimits());
      resourceList(resources.getRequests());
    }
  }

  /** SetDefaults_Probe, SetDefaults_HTTPGetAction of its handler, and a gRPC handler's service. */
  private static void probe(Probe probe) {
    if (probe == null) {
      return;
    }
    if (zero(probe.getTimeoutSeconds())) {
      probe.setTimeoutSeconds(1);
    }
    if (zero(probe.getPeriodSeconds())) {
      probe.setPeriodSeconds(10);
    }
    if (zero(probe.getSuccessThreshold())) {
      probe.setSuccessThreshold(1);
    }
    if (zero(probe.getFailureThreshold())) {
      probe.setFailureThreshold(3);
    }
    httpGet(probe.getHttpGet());
    if (probe.getGrpc() != null && probe.getGrpc().getService() == null) {
      probe.getGrpc().setService(""); // a pointer without omitempty: upstream writes "service": ""
    }
  }

  private static void handler(LifecycleHandler handler) {
    if (handler != null) {
      httpGet(handler.getHttpGet());
    }
  }

  /** SetDefaults_HTTPGetAction. */
  private static void httpGet(HTTPGetAction action) {
    if (action == null) {
      return;
    }
    if (unset(action.getPath())) {
      action.setPath("/");
    }
    if (unset(action.getScheme())) {
      action.setScheme("HTTP");
    }
  }

  /**
   * SetDefaults_ResourceList: each quantity rounded up to milli units (Quantity.RoundUp(-3)), then
   * written as Go writes it back ("0.5" is stored as "500m").
   */
  private static void resourceList(Map<String, Quantity> list) {
    if (list == null) {
      return;
    }
    for (Map.Entry<String, Quantity> entry : list.entrySet()) {
      Quantity quantity = entry.getValue();
      if (quantity == null) {
        continue;
      }
      String text = Objects.toString(quantity.getAmount(), "") + Objects.toString(quantity.getFormat(), "");
      String rounded = GoQuantity.roundedUpToMilli(text).orElse(text);
      if (!rounded.equals(text)) {
        entry.setValue(new Quantity(rounded));
      }
    }
  }

  /**
   * SetDefaults_Container's imagePullPolicy: Always when parsers.ParseImageName gives the tag
   * "latest" (written, or implied by neither tag nor digest), else IfNotPresent, unparsable names
   * (an empty one, upper case in the repository) included, as upstream ignores the error.
   */
  static String pullPolicy(String image) {
    return "latest".equals(ImageNames.tag(image == null ? "" : image)) ? ALWAYS : IF_NOT_PRESENT;
  }

  private static boolean unset(String value) {
    return value == null || value.isEmpty();
  }

  private static boolean zero(Integer value) {
    return value == null || value == 0;
  }

  private static <T> List<T> nullSafe(List<T> list) {
    return list == null ? List.of() : list;
  }

  /**
   * The tag parsers.ParseImageName finds, following github.com/distribution/reference v0.6.0
   * (ParseNormalizedNamed, then Parse with its grammar), written out rather than as its regular
   * expressions, which Java would match with recursion as deep as the name is long.
   */
  static final class ImageNames {
    private static final String DEFAULT_DOMAIN = "docker.io";
    private static final String OFFICIAL_PREFIX = "library/";
    private static final int MAX_PATH = 255;
    private static final Map<String, Integer> DIGEST_LENGTHS = Map.of("sha256", 64, "sha384", 96, "sha512", 128);

    private ImageNames() {}

    /** The tag; "latest" without tag and digest, "" with a digest alone; null if {@code s} does not parse. */
    static String tag(String s) {
      if (!s.chars().allMatch(c -> c < 0x80)) {
        return null; // every part of the grammar is ASCII
      }
      if (s.length() == 64 && s.chars().allMatch(ImageNames::lowerHex)) {
        return null; // "cannot specify 64-byte hexadecimal strings"
      }
      // splitDockerDomain
      String domain;
      String remainder;
      int slash = s.indexOf('/');
      if (slash < 0) {
        domain = DEFAULT_DOMAIN;
        remainder = OFFICIAL_PREFIX + s;
      } else {
        String maybeDomain = s.substring(0, slash);
        remainder = s.substring(slash + 1);
        if (maybeDomain.equals("localhost") || maybeDomain.contains(".") || maybeDomain.contains(":")
            || !maybeDomain.toLowerCase(Locale.ROOT).equals(maybeDomain)) {
          domain = maybeDomain.equals("index.docker.io") ? DEFAULT_DOMAIN : maybeDomain;
        } else {
          domain = DEFAULT_DOMAIN;
          remainder = s;
        }
        if (domain.equals(DEFAULT_DOMAIN) && !remainder.contains("/")) {
          remainder = OFFICIAL_PREFIX + remainder;
        }
      }
      int tagSeparator = remainder.indexOf(':');
      String remote = tagSeparator < 0 ? remainder : remainder.substring(0, tagSeparator);
      if (!remote.toLowerCase(Locale.ROOT).equals(remote)) {
        return null; // "repository name must be lowercase"
      }
      // Parse(domain + "/" + remainder): name, then ":" tag, then "@" digest; neither name nor tag has '@'.
      String reference = domain + "/" + remainder;
      String digest = null;
      int at = reference.indexOf('@');
      if (at >= 0) {
        digest = reference.substring(at + 1);
        reference = reference.substring(0, at);
      }
      String tag = "";
      int colon = reference.lastIndexOf(':');
      if (colon > reference.lastIndexOf('/')) { // a name's only ':' is its domain's port, before a '/'
        tag = reference.substring(colon + 1);
        reference = reference.substring(0, colon);
        if (!isTag(tag)) {
          return null;
        }
      }
      String path = path(reference);
      if (path == null || path.length() > MAX_PATH || (digest != null && !isDigest(digest))) {
        return null;
      }
      return tag.isEmpty() && digest == null ? "latest" : tag;
    }

    /** The repository path of a name ({@code [domainAndPort "/"] remoteName}), or null if it is none. */
    private static String path(String name) {
      int slash = name.indexOf('/');
      if (slash >= 0 && isDomainAndPort(name.substring(0, slash)) && isRemoteName(name.substring(slash + 1))) {
        return name.substring(slash + 1);
      }
      return isRemoteName(name) ? name : null;
    }

    /** {@code (domainName | "[" ipv6 "]") [":" port]}. */
    private static boolean isDomainAndPort(String s) {
      String host = s;
      String port = "";
      if (s.startsWith("[")) {
        int close = s.indexOf(']');
        if (close < 2 || !s.substring(1, close).chars().allMatch(c -> hex(c) || c == ':')) {
          return false;
        }
        port = s.substring(close + 1);
        return port.isEmpty() || isPort(port);
      }
      int colon = s.indexOf(':');
      if (colon >= 0) {
        host = s.substring(0, colon);
        port = s.substring(colon);
      }
      return (port.isEmpty() || isPort(port)) && isDomainName(host);
    }

    private static boolean isPort(String s) {
      return s.length() > 1 && s.charAt(0) == ':' && s.substring(1).chars().allMatch(c -> c >= '0' && c <= '9');
    }

    /** Components of letters, digits and inner '-', joined by '.'. */
    private static boolean isDomainName(String s) {
      for (String component : s.split("\\.", -1)) {
        if (component.isEmpty() || !alnum(component.charAt(0)) || !alnum(component.charAt(component.length() - 1))
            || !component.chars().allMatch(c -> alnum(c) || c == '-')) {
          return false;
        }
      }
      return true;
    }

    /** Path components joined by '/'. */
    private static boolean isRemoteName(String s) {
      for (String component : s.split("/", -1)) {
        if (!isPathComponent(component)) {
          return false;
        }
      }
      return true;
    }

    /** Runs of [a-z0-9] joined by one separator: ".", "_", "__" or any number of '-'. */
    private static boolean isPathComponent(String s) {
      int i = 0;
      while (true) {
        int start = i;
        while (i < s.length() && lowerAlnum(s.charAt(i))) {
          i++;
        }
        if (i == start) {
          return false;
        }
        if (i == s.length()) {
          return true;
        }
        start = i;
        while (i < s.length() && !lowerAlnum(s.charAt(i))) {
          i++;
        }
        String separator = s.substring(start, i);
        if (!separator.equals(".") && !separator.equals("_") && !separator.equals("__")
            && !separator.chars().allMatch(c -> c == '-')) {
          return false;
        }
      }
    }

    /** {@code [\w][\w.-]{0,127}}. */
    private static boolean isTag(String s) {
      return !s.isEmpty() && s.length() <= 128 && word(s.charAt(0))
          && s.chars().allMatch(c -> word(c) || c == '.' || c == '-');
    }

    /** What digest.Parse accepts: an algorithm the binary has (sha256, sha384, sha512) and its lower-case hex. */
    private static boolean isDigest(String s) {
      int colon = s.indexOf(':');
      Integer length = colon < 0 ? null : DIGEST_LENGTHS.get(s.substring(0, colon));
      String encoded = colon < 0 ? "" : s.substring(colon + 1);
      return length != null && encoded.length() == length && encoded.chars().allMatch(ImageNames::lowerHex);
    }

    private static boolean alnum(int c) {
      return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    }

    private static boolean lowerAlnum(int c) {
      return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    }

    private static boolean word(int c) {
      return alnum(c) || c == '_';
    }

    private static boolean hex(int c) {
      return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    }

    private static boolean lowerHex(int c) {
      return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
    }
  }
}
