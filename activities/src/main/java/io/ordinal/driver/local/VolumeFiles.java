package io.ordinal.driver.local;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.DownwardAPIVolumeFile;
import io.fabric8.kubernetes.api.model.KeyToPath;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceFieldSelector;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeProjection;
import io.ordinal.driver.local.AtomicWriter.FileProjection;
import io.ordinal.kube.Labels;
import io.ordinal.store.ObjectStore;
import io.ordinal.store.ObjectTable;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The files of a {@code configMap}, {@code secret}, {@code downwardAPI} or {@code projected} volume,
 * as the kubelet's volume plugins make them (MakePayload, CollectData): every key of the object, or
 * its {@code items} (key to path, each its own {@code mode}), else {@code defaultMode} (0644); an
 * {@code optional} object that is missing gives no files. What cannot be made is a {@link Failed}
 * with upstream's words; its pod waits in ContainerCreating. Contents are never logged.
 */
final class VolumeFiles {
  /** Upstream's defaultMode when a volume sets none (the API server's default). */
  static final int DEFAULT_MODE = 0644;
  private static final Pattern SUBSCRIPT = Pattern.compile("metadata\\.(labels|annotations)\\['(.+)'\\]");

  /** Why a volume's files cannot be made now (upstream's MountVolume.SetUp error). */
  static final class Failed extends Exception {
    Failed(String message) {
      super(message);
    }
  }

  private final ObjectStore objects;
  private final String namespace;
  /** The pod as it is now: its labels and annotations may have changed since it started. */
  private final Pod pod;
  private final String uid;

  VolumeFiles(ObjectStore objects, String namespace, Pod pod, String uid) {
    this.objects = objects;
    this.namespace = namespace;
    this.pod = pod;
    this.uid = uid;
  }

  /** Whether the local driver writes this volume's files (else it is a directory: emptyDir, PVC, hostPath). */
  static boolean projected(Volume volume) {
    return volume != null && (volume.getConfigMap() != null || volume.getSecret() != null
        || volume.getDownwardAPI() != null || volume.getProjected() != null);
  }

  /** The volume's files by path below its root. */
  Map<String, FileProjection> of(Volume volume) throws Failed {
    if (volume.getConfigMap() != null) {
      var source = volume.getConfigMap();
      return configMap(source.getName(), source.getItems(), mode(source.getDefaultMode()), Boolean.TRUE.equals(source.getOptional()));
    }
    if (volume.getSecret() != null) {
      var source = volume.getSecret();
      return secret(source.getSecretName(), source.getItems(), mode(source.getDefaultMode()), Boolean.TRUE.equals(source.getOptional()));
    }
    if (volume.getDownwardAPI() != null) {
      return downwardApi(volume.getDownwardAPI().getItems(), mode(volume.getDownwardAPI().getDefaultMode()));
    }
    return projected(volume.getProjected().getSources(), mode(volume.getProjected().getDefaultMode()));
  }

  private static int mode(Integer mode) {
    return mode == null ? DEFAULT_MODE : mode;
  }

  /** Upstream's projected collectData: each source's files; the errors of all sources together. */
  private Map<String, FileProjection> projected(List<VolumeProjection> sources, int defaultMode) throws Failed {
    Map<String, FileProjection> payload = new LinkedHashMap<>();
    List<String> errors = new ArrayList<>();
    for (VolumeProjection source : sources == null ? List.<VolumeProjection>of() : sources) {
      try {
        if (source.getConfigMap() != null) {
          var cm = source.getConfigMap();
          payload.putAll(configMap(cm.getName(), cm.getItems(), defaultMode, Boolean.TRUE.equals(cm.getOptional())));
        } else if (source.getSecret() != null) {
          var secret = source.getSecret();
          payload.putAll(secret(secret.getName(), secret.getItems(), defaultMode, Boolean.TRUE.equals(secret.getOptional())));
        } else if (source.getDownwardAPI() != null) {
          payload.putAll(downwardApi(source.getDownwardAPI().getItems(), defaultMode));
        } else if (source.getServiceAccountToken() != null) {
          // The service mints no tokens for a pod's service account: refused rather than an empty or fake file.
          throw new Failed("serviceAccountToken projection is not supported by the local driver: it cannot mint a token"
              + " for the pod's service account (path \"" + source.getServiceAccountToken().getPath() + "\")");
        } else {
          throw new Failed("projected source is not supported by the local driver: only configMap, secret and downwardAPI");
        }
      } catch (Failed e) {
        errors.add(e.getMessage());
      }
    }
    if (!errors.isEmpty()) {
      // As upstream's aggregate error: one alone is its message, several are listed.
      throw new Failed(errors.size() == 1 ? errors.get(0) : "[" + String.join(", ", errors) + "]");
    }
    return payload;
  }

  private Map<String, FileProjection> configMap(String name, List<KeyToPath> items, int defaultMode, boolean optional) throws Failed {
    Optional<ConfigMap> found = objects.find(ObjectTable.CONFIG_MAPS, ConfigMap.class, namespace, name);
    if (found.isEmpty() && !optional) {
      throw new Failed("configmap \"" + name + "\" not found");
    }
    Map<String, byte[]> data = new LinkedHashMap<>();
    found.ifPresent(map -> {
      if (map.getData() != null) {
        map.getData().forEach((k, v) -> data.put(k, v == null ? new byte[0] : v.getBytes(StandardCharsets.UTF_8)));
      }
      if (map.getBinaryData() != null) {
        map.getBinaryData().forEach((k, v) -> data.putIfAbsent(k, decode(v)));
      }
    });
    return payload(data, items, defaultMode, optional, "configmap references non-existent config key: ");
  }

  private Map<String, FileProjection> secret(String name, List<KeyToPath> items, int defaultMode, boolean optional) throws Failed {
    Optional<Secret> found = objects.find(ObjectTable.SECRETS, Secret.class, namespace, name);
    if (found.isEmpty() && !optional) {
      throw new Failed("secret \"" + name + "\" not found");
    }
    Map<String, byte[]> data = new LinkedHashMap<>();
    found.ifPresent(secret -> {
      if (secret.getData() != null) {
        secret.getData().forEach((k, v) -> data.put(k, decode(v)));
      }
      if (secret.getStringData() != null) {
        secret.getStringData().forEach((k, v) -> data.put(k, v == null ? new byte[0] : v.getBytes(StandardCharsets.UTF_8)));
      }
    });
    return payload(data, items, defaultMode, optional, "references non-existent secret key: ");
  }

  /** Upstream's MakePayload: all keys at defaultMode, or the items (a missing key is an error unless optional). */
  private static Map<String, FileProjection> payload(Map<String, byte[]> data, List<KeyToPath> items, int defaultMode,
      boolean optional, String missingKey) throws Failed {
    Map<String, FileProjection> payload = new LinkedHashMap<>();
    if (items == null || items.isEmpty()) {
      data.forEach((key, value) -> payload.put(key, new FileProjection(value, defaultMode)));
      return payload;
    }
    for (KeyToPath item : items) {
      byte[] value = data.get(item.getKey());
      if (value == null) {
        if (optional) {
          continue;
        }
        throw new Failed(missingKey + item.getKey());
      }
      payload.put(item.getPath(), new FileProjection(value, item.getMode() != null ? item.getMode() : defaultMode));
    }
    return payload;
  }

  /** Upstream's downwardapi.CollectData: each item's field of the pod or resource of a container. */
  private Map<String, FileProjection> downwardApi(List<DownwardAPIVolumeFile> items, int defaultMode) throws Failed {
    Map<String, FileProjection> payload = new LinkedHashMap<>();
    List<String> errors = new ArrayList<>();
    for (DownwardAPIVolumeFile item : items == null ? List.<DownwardAPIVolumeFile>of() : items) {
      int mode = item.getMode() != null ? item.getMode() : defaultMode;
      try {
        String value;
        if (item.getFieldRef() != null) {
          value = field(item.getFieldRef().getFieldPath());
        } else if (item.getResourceFieldRef() != null) {
          value = resource(item.getResourceFieldRef());
        } else {
          continue;
        }
        payload.put(item.getPath(), new FileProjection(value.getBytes(StandardCharsets.UTF_8), mode));
      } catch (Failed e) {
        errors.add(e.getMessage());
      }
    }
    if (!errors.isEmpty()) {
      throw new Failed(errors.size() == 1 ? errors.get(0) : "[" + String.join(", ", errors) + "]");
    }
    return payload;
  }

  /** Upstream's fieldpath.ExtractFieldPathAsString, for the fields a volume may name. */
  String field(String path) throws Failed {
    Map<String, String> labels = Labels.labels(pod.getMetadata());
    Map<String, String> annotations = Labels.annotations(pod.getMetadata());
    if (path == null) {
      throw new Failed("unsupported fieldPath: ");
    }
    Matcher subscript = SUBSCRIPT.matcher(path);
    if (subscript.matches()) {
      String value = (subscript.group(1).equals("labels") ? labels : annotations).get(subscript.group(2));
      return value == null ? "" : value;
    }
    return switch (path) {
      case "metadata.name" -> pod.getMetadata().getName();
      case "metadata.namespace" -> namespace;
      case "metadata.uid" -> uid;
      case "metadata.labels" -> formatMap(labels);
      case "metadata.annotations" -> formatMap(annotations);
      default -> throw new Failed("unsupported fieldPath: " + path);
    };
  }

  /** Upstream's FormatMap: one {@code key="value"} line per entry, by key, the value quoted as Go's %q. */
  static String formatMap(Map<String, String> map) {
    StringBuilder out = new StringBuilder();
    for (var entry : new TreeMap<>(map).entrySet()) {
      if (!out.isEmpty()) {
        out.append('\n');
      }
      out.append(entry.getKey()).append('=').append(goQuote(entry.getValue()));
    }
    return out.toString();
  }

  /** Go's strconv.Quote for the characters a label or annotation holds: escapes, else the character itself. */
  static String goQuote(String value) {
    StringBuilder out = new StringBuilder("\"");
    value.codePoints().forEach(c -> {
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\t' -> out.append("\\t");
        case '\r' -> out.append("\\r");
        case 7 -> out.append("\\a");
        case '\b' -> out.append("\\b");
        case '\f' -> out.append("\\f");
        case 11 -> out.append("\\v");
        default -> {
          if (c < 0x20 || c == 0x7f) {
            out.append(String.format("\\x%02x", c));
          } else if (c >= 0x80 && !goPrintable(c)) {
            out.append(c < 0x10000 ? String.format("\\u%04x", c) : String.format("\\U%08x", c));
          } else {
            out.appendCodePoint(c);
          }
        }
      }
    });
    return out.append('"').toString();
  }

  /** Go's unicode.IsPrint beyond ASCII: letters, marks, numbers, punctuation and symbols, not spaces or controls. */
  private static boolean goPrintable(int c) {
    return switch (Character.getType(c)) {
      case Character.SPACE_SEPARATOR, Character.LINE_SEPARATOR, Character.PARAGRAPH_SEPARATOR, Character.CONTROL,
          Character.FORMAT, Character.UNASSIGNED, Character.PRIVATE_USE, Character.SURROGATE -> false;
      default -> true;
    };
  }

  /**
   * Upstream's ExtractResourceValueByContainerNameAndNodeAllocatable: a container's request or limit
   * over the divisor, rounded up; a limit it does not set is the machine's (its allocatable).
   */
  private String resource(ResourceFieldSelector ref) throws Failed {
    Container container = null;
    List<Container> all = new ArrayList<>(pod.getSpec().getContainers());
    if (pod.getSpec().getInitContainers() != null) {
      all.addAll(pod.getSpec().getInitContainers());
    }
    for (Container c : all) {
      if (c.getName().equals(ref.getContainerName())) {
        container = c;
      }
    }
    if (container == null) {
      throw new Failed("container " + ref.getContainerName() + " not found");
    }
    String resource = Optional.ofNullable(ref.getResource()).orElse("");
    Map<String, Quantity> limits = container.getResources() == null || container.getResources().getLimits() == null
        ? Map.of() : container.getResources().getLimits();
    Map<String, Quantity> requests = container.getResources() == null || container.getResources().getRequests() == null
        ? Map.of() : container.getResources().getRequests();
    BigDecimal divisor = ref.getDivisor() == null ? BigDecimal.ONE : ref.getDivisor().getNumericalAmount();
    if (divisor.signum() <= 0) {
      throw new Failed("invalid divisor for resource " + resource);
    }
    return switch (resource) {
      case "limits.cpu" -> cpu(amount(limits.get("cpu"), Runtime.getRuntime().availableProcessors()), divisor);
      case "requests.cpu" -> cpu(amount(requests.getOrDefault("cpu", limits.get("cpu")), 0), divisor);
      case "limits.memory" -> bytes(amount(limits.get("memory"), machineMemory()), divisor);
      case "requests.memory" -> bytes(amount(requests.getOrDefault("memory", limits.get("memory")), 0), divisor);
      case "limits.ephemeral-storage" -> bytes(amount(limits.get("ephemeral-storage"), diskSize()), divisor);
      case "requests.ephemeral-storage" -> bytes(amount(requests.getOrDefault("ephemeral-storage", limits.get("ephemeral-storage")), 0), divisor);
      default -> throw new Failed("unsupported container resource : " + resource);
    };
  }

  private static BigDecimal amount(Quantity quantity, long otherwise) {
    return quantity == null ? BigDecimal.valueOf(otherwise) : quantity.getNumericalAmount();
  }

  /** Upstream's convertResourceCPUToString: ceil(millicores / divisor's millicores), each rounded up to a milli. */
  private static String cpu(BigDecimal cores, BigDecimal divisor) {
    BigDecimal milli = cores.movePointRight(3).setScale(0, RoundingMode.CEILING);
    BigDecimal divisorMilli = divisor.movePointRight(3).setScale(0, RoundingMode.CEILING);
    return milli.divide(divisorMilli, 0, RoundingMode.CEILING).toPlainString();
  }

  /** Upstream's convertResourceMemoryToString (and ephemeral storage's): ceil(bytes / divisor). */
  private static String bytes(BigDecimal amount, BigDecimal divisor) {
    return amount.setScale(0, RoundingMode.CEILING).divide(divisor.setScale(0, RoundingMode.CEILING), 0, RoundingMode.CEILING)
        .toPlainString();
  }

  private static long machineMemory() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
        if (line.startsWith("MemTotal:")) {
          return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
        }
      }
    } catch (IOException | NumberFormatException e) {
      // below: what the JVM can see
    }
    return Runtime.getRuntime().maxMemory();
  }

  private static long diskSize() {
    try {
      return Files.getFileStore(Path.of("/")).getTotalSpace();
    } catch (IOException e) {
      return 0;
    }
  }

  private static byte[] decode(String base64) {
    return Base64.getDecoder().decode(base64 == null ? "" : base64);
  }
}
