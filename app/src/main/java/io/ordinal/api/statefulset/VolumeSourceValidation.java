package io.ordinal.api.statefulset;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.DownwardAPIVolumeFile;
import io.fabric8.kubernetes.api.model.KeyToPath;
import io.fabric8.kubernetes.api.model.ObjectFieldSelector;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceFieldSelector;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeProjection;
import io.ordinal.apimachinery.FieldError;
import io.ordinal.apimachinery.ObjectMetaValidation;
import io.ordinal.store.KubeJson;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Upstream's validateVolumeSource for the sources whose files a driver writes (configMap, secret,
 * downwardAPI, projected), with its field paths and words: one volume type per volume, names
 * required, item paths relative without '..' and not starting with '..', modes 0 to 0777, the
 * downward API's fields and resources. The one type check counts every type upstream knows.
 */
final class VolumeSourceValidation {
  private static final String FILE_MODE = "must be a number between 0 and 0777 (octal), both inclusive";
  /** validateVolumeSource's order, in which the second type set is the one refused. */
  private static final List<String> TYPES = List.of("emptyDir", "hostPath", "gitRepo", "gcePersistentDisk",
      "awsElasticBlockStore", "secret", "nfs", "iscsi", "glusterfs", "flocker", "persistentVolumeClaim", "rbd", "cinder",
      "cephfs", "quobyte", "downwardAPI", "fc", "flexVolume", "configMap", "azureFile", "vsphereVolume",
      "photonPersistentDisk", "portworxVolume", "azureDisk", "storageos", "projected", "scaleIO", "csi", "ephemeral",
      "image");
  private static final List<String> FIELD_PATHS = List.of("metadata.annotations", "metadata.labels", "metadata.name",
      "metadata.namespace", "metadata.uid");
  private static final List<String> RESOURCES = List.of("limits.cpu", "limits.ephemeral-storage", "limits.memory",
      "requests.cpu", "requests.ephemeral-storage", "requests.memory");
  private static final Pattern SUBSCRIPTED = Pattern.compile("(.*)\\['(.*)'\\]");

  private final List<FieldError> errors = new ArrayList<>();

  private VolumeSourceValidation() {}

  /** The failures of {@code volumes}, at {@code path} ({@code spec.template.spec.volumes}). */
  static List<FieldError> validate(String path, List<Volume> volumes) {
    VolumeSourceValidation v = new VolumeSourceValidation();
    for (int i = 0; i < volumes.size(); i++) {
      v.volume(path + "[" + i + "]", volumes.get(i));
    }
    return v.errors;
  }

  private void volume(String path, Volume volume) {
    JsonNode tree = KubeJson.JSON.valueToTree(volume);
    int types = 0;
    for (String type : TYPES) {
      if (tree.hasNonNull(type)) {
        if (++types > 1) {
          errors.add(FieldError.forbidden(path + "." + type, "may not specify more than 1 volume type"));
        }
      }
    }
    if (types > 1) {
      return;
    }
    if (volume.getConfigMap() != null) {
      var source = volume.getConfigMap();
      if (source.getName() == null || source.getName().isEmpty()) {
        errors.add(FieldError.required(path + ".configMap.name", ""));
      }
      mode(path + ".configMap.defaultMode", source.getDefaultMode());
      items(path + ".configMap.items", source.getItems(), null);
    } else if (volume.getSecret() != null) {
      var source = volume.getSecret();
      if (source.getSecretName() == null || source.getSecretName().isEmpty()) {
        errors.add(FieldError.required(path + ".secret.secretName", ""));
      }
      mode(path + ".secret.defaultMode", source.getDefaultMode());
      items(path + ".secret.items", source.getItems(), null);
    } else if (volume.getDownwardAPI() != null) {
      mode(path + ".downwardAPI.defaultMode", volume.getDownwardAPI().getDefaultMode());
      for (DownwardAPIVolumeFile file : nullSafe(volume.getDownwardAPI().getItems())) {
        // Upstream reports an item's errors at the source's path, without the item's index.
        downwardApiFile(path + ".downwardAPI", file);
      }
    } else if (volume.getProjected() != null) {
      projected(path + ".projected", volume.getProjected().getDefaultMode(), nullSafe(volume.getProjected().getSources()));
    }
  }

  /** validateProjectionSources: one type per source, and no path twice across the sources. */
  private void projected(String path, Integer defaultMode, List<VolumeProjection> sources) {
    mode(path + ".defaultMode", defaultMode);
    Set<String> paths = new HashSet<>();
    for (int i = 0; i < sources.size(); i++) {
      VolumeProjection source = sources.get(i);
      String sourcePath = path + ".sources[" + i + "]";
      int kinds = 0;
      if (source.getSecret() != null) {
        kinds++;
        if (source.getSecret().getName() == null || source.getSecret().getName().isEmpty()) {
          errors.add(FieldError.required(sourcePath + ".secret.name", ""));
        }
        items(sourcePath + ".secret.items", source.getSecret().getItems(), paths, path, source.getSecret().getName());
      }
      if (source.getConfigMap() != null) {
        kinds++;
        if (source.getConfigMap().getName() == null || source.getConfigMap().getName().isEmpty()) {
          errors.add(FieldError.required(sourcePath + ".configMap.name", ""));
        }
        items(sourcePath + ".configMap.items", source.getConfigMap().getItems(), paths, path, source.getConfigMap().getName());
      }
      if (source.getDownwardAPI() != null) {
        kinds++;
        for (DownwardAPIVolumeFile file : nullSafe(source.getDownwardAPI().getItems())) {
          downwardApiFile(sourcePath + ".downwardAPI", file);
          if (file.getPath() != null && !file.getPath().isEmpty() && !paths.add(file.getPath())) {
            errors.add(FieldError.invalid(path, file.getPath(), "conflicting duplicate paths"));
          }
        }
      }
      var token = source.getServiceAccountToken();
      if (token != null) {
        kinds++;
        String tokenPath = sourcePath + ".serviceAccountToken";
        long seconds = token.getExpirationSeconds() == null ? 3600 : token.getExpirationSeconds();
        if (seconds < 600) {
          errors.add(FieldError.invalid(tokenPath + ".expirationSeconds", seconds, "may not specify a duration less than 10 minutes"));
        } else if (seconds > 1L << 32) {
          errors.add(FieldError.invalid(tokenPath + ".expirationSeconds", seconds, "may not specify a duration larger than 2^32 seconds"));
        }
        if (token.getPath() == null || token.getPath().isEmpty()) {
          errors.add(FieldError.required(path + ".path", ""));
        } else {
          localNonReservedPath(tokenPath + ".path", token.getPath());
          if (!paths.add(token.getPath())) {
            errors.add(FieldError.invalid(path, token.getPath(), "conflicting duplicate paths"));
          }
        }
      }
      if (source.getClusterTrustBundle() != null) {
        kinds++;
      }
      if (kinds > 1) {
        errors.add(FieldError.forbidden(sourcePath, "may not specify more than 1 volume type per source"));
      }
    }
  }

  private void items(String path, List<KeyToPath> items, Set<String> paths) {
    items(path, items, paths, null, null);
  }

  /** validateKeyToPath for each item; within a projected volume ({@code paths} not null), each path once. */
  private void items(String path, List<KeyToPath> items, Set<String> paths, String volumePath, String sourceName) {
    List<KeyToPath> list = nullSafe(items);
    for (int i = 0; i < list.size(); i++) {
      KeyToPath item = list.get(i);
      String itemPath = path + "[" + i + "]";
      if (item.getKey() == null || item.getKey().isEmpty()) {
        errors.add(FieldError.required(itemPath + ".key", ""));
      }
      String target = item.getPath() == null ? "" : item.getPath();
      if (target.isEmpty()) {
        errors.add(FieldError.required(itemPath + ".path", ""));
      }
      localNonReservedPath(itemPath + ".path", target);
      mode(itemPath + ".mode", item.getMode());
      if (paths != null && !target.isEmpty() && !paths.add(target)) {
        errors.add(FieldError.invalid(volumePath, sourceName, "conflicting duplicate paths"));
      }
    }
  }

  /** validateDownwardAPIVolumeFile. */
  private void downwardApiFile(String path, DownwardAPIVolumeFile file) {
    String target = file.getPath() == null ? "" : file.getPath();
    if (target.isEmpty()) {
      errors.add(FieldError.required(path + ".path", ""));
    }
    localNonReservedPath(path + ".path", target);
    if (file.getFieldRef() != null) {
      fieldRef(path + ".fieldRef", file.getFieldRef());
      if (file.getResourceFieldRef() != null) {
        errors.add(FieldError.invalid(path, "resource", "fieldRef and resourceFieldRef can not be specified simultaneously"));
      }
    } else if (file.getResourceFieldRef() != null) {
      resourceFieldRef(path + ".resourceFieldRef", file.getResourceFieldRef());
    } else {
      errors.add(FieldError.required(path, "one of fieldRef and resourceFieldRef is required"));
    }
    mode(path + ".mode", file.getMode());
  }

  /** validateObjectFieldSelector with the volume's expressions (apiVersion v1, defaulted when unset). */
  private void fieldRef(String path, ObjectFieldSelector ref) {
    if (ref.getApiVersion() != null && !ref.getApiVersion().isEmpty() && !ref.getApiVersion().equals("v1")) {
      errors.add(FieldError.notSupported(path + ".apiVersion", ref.getApiVersion(), "v1"));
      return;
    }
    String fieldPath = ref.getFieldPath();
    if (fieldPath == null || fieldPath.isEmpty()) {
      errors.add(FieldError.required(path + ".fieldPath", ""));
      return;
    }
    Matcher subscripted = SUBSCRIPTED.matcher(fieldPath);
    if (subscripted.matches()) {
      String field = subscripted.group(1);
      if (field.equals("metadata.annotations") || field.equals("metadata.labels")) {
        errors.addAll(ObjectMetaValidation.validateQualifiedName(path, subscripted.group(2)));
      } else {
        errors.add(FieldError.invalid(path, field, "does not support subscript"));
      }
    } else if (!FIELD_PATHS.contains(fieldPath)) {
      errors.add(FieldError.notSupported(path + ".fieldPath", fieldPath, FIELD_PATHS.toArray(String[]::new)));
    }
  }

  /** validateContainerResourceFieldSelector for a volume: the container's name is required; its divisors. */
  private void resourceFieldRef(String path, ResourceFieldSelector ref) {
    String resource = ref.getResource() == null ? "" : ref.getResource();
    if (ref.getContainerName() == null || ref.getContainerName().isEmpty()) {
      errors.add(FieldError.required(path + ".containerName", ""));
    } else if (resource.isEmpty()) {
      errors.add(FieldError.required(path + ".resource", ""));
    } else if (!RESOURCES.contains(resource)) {
      errors.add(FieldError.notSupported(path + ".resource", resource, RESOURCES.toArray(String[]::new)));
    }
    divisor(path, resource, ref.getDivisor());
  }

  /** validateContainerResourceDivisor: only 1m and 1 for cpu, powers of 1000 and 1024 for memory and storage. */
  private void divisor(String path, String resource, Quantity divisor) {
    if (divisor == null || divisor.getAmount() == null || divisor.getAmount().isEmpty()) {
      return;
    }
    BigDecimal value;
    try {
      value = divisor.getNumericalAmount();
    } catch (RuntimeException e) {
      errors.add(FieldError.invalid(path + ".divisor", divisor.toString(), "must be a quantity"));
      return;
    }
    String text = divisor.getAmount() + (divisor.getFormat() == null ? "" : divisor.getFormat());
    if (resource.endsWith(".cpu")) {
      if (value.compareTo(new BigDecimal("0.001")) != 0 && value.compareTo(BigDecimal.ONE) != 0) {
        errors.add(FieldError.invalid(path + ".divisor", text, "only divisor's values 1m and 1 are supported with the cpu resource"));
      }
    } else if (resource.endsWith(".memory") || resource.endsWith(".ephemeral-storage")) {
      boolean allowed = false;
      for (int power = 0; power <= 6 && !allowed; power++) {
        allowed = value.compareTo(BigDecimal.valueOf(1000).pow(power)) == 0 || value.compareTo(BigDecimal.valueOf(1024).pow(power)) == 0;
      }
      if (!allowed) {
        String kind = resource.endsWith(".memory") ? "memory" : "local ephemeral storage";
        errors.add(FieldError.invalid(path + ".divisor", text, "only divisor's values 1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi,"
            + " 1Gi, 1Ti, 1Pi, 1Ei are supported with the " + kind + " resource"));
      }
    }
  }

  /** ValidateLocalNonReservedPath: relative, no '..' element, not starting with '..'. */
  private void localNonReservedPath(String path, String value) {
    if (value.startsWith("/")) {
      errors.add(FieldError.invalid(path, value, "must be a relative path"));
    }
    for (String part : value.split("/")) {
      if (part.equals("..")) {
        errors.add(FieldError.invalid(path, value, "must not contain '..'"));
        break;
      }
    }
    if (value.startsWith("..") && !value.startsWith("../")) {
      errors.add(FieldError.invalid(path, value, "must not start with '..'"));
    }
  }

  private void mode(String path, Integer mode) {
    if (mode != null && (mode > 0777 || mode < 0)) {
      errors.add(FieldError.invalid(path, mode, FILE_MODE));
    }
  }

  private static <T> List<T> nullSafe(List<T> list) {
    return list == null ? List.of() : list;
  }
}
