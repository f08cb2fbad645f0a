package io.ordinal.driver.local;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapKeySelector;
import io.fabric8.kubernetes.api.model.EnvFromSource;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretKeySelector;
import io.ordinal.store.ObjectStore;
import io.ordinal.store.ObjectTable;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The ConfigMaps and Secrets a container's environment names ({@code valueFrom.configMapKeyRef},
 * {@code secretKeyRef}, {@code envFrom}), read when the container starts, as the kubelet does. A
 * required one that is missing is a {@link Missing} with the kubelet's words; the container then
 * waits in CreateContainerConfigError and is tried again. Values are never logged.
 */
final class EnvSources {
  /** What a container's environment needs and does not have. */
  static final class Missing extends Exception {
    Missing(String message) {
      super(message);
    }
  }

  private final ObjectStore objects;
  private final String namespace;

  EnvSources(ObjectStore objects, String namespace) {
    this.objects = objects;
    this.namespace = namespace;
  }

  /** The value of a key of a ConfigMap; empty when optional and missing. */
  Optional<String> value(ConfigMapKeySelector ref) throws Missing {
    boolean optional = Boolean.TRUE.equals(ref.getOptional());
    Optional<ConfigMap> map = configMap(ref.getName(), optional);
    if (map.isEmpty()) {
      return Optional.empty();
    }
    Map<String, String> values = configMapValues(map.get());
    if (!values.containsKey(ref.getKey())) {
      if (optional) {
        return Optional.empty();
      }
      throw new Missing("couldn't find key " + ref.getKey() + " in ConfigMap " + namespace + "/" + ref.getName());
    }
    return Optional.of(values.get(ref.getKey()));
  }

  /** The value of a key of a Secret; empty when optional and missing. */
  Optional<String> value(SecretKeySelector ref) throws Missing {
    boolean optional = Boolean.TRUE.equals(ref.getOptional());
    Optional<Secret> secret = secret(ref.getName(), optional);
    if (secret.isEmpty()) {
      return Optional.empty();
    }
    Map<String, String> values = secretValues(secret.get());
    if (!values.containsKey(ref.getKey())) {
      if (optional) {
        return Optional.empty();
      }
      throw new Missing("couldn't find key " + ref.getKey() + " in Secret " + namespace + "/" + ref.getName());
    }
    return Optional.of(values.get(ref.getKey()));
  }

  /** The variables an envFrom source gives: each key, after the prefix; none when optional and missing. */
  Map<String, String> variables(EnvFromSource source) throws Missing {
    String prefix = source.getPrefix() == null ? "" : source.getPrefix();
    Map<String, String> values = new LinkedHashMap<>();
    if (source.getConfigMapRef() != null) {
      configMap(source.getConfigMapRef().getName(), Boolean.TRUE.equals(source.getConfigMapRef().getOptional()))
          .ifPresent(map -> values.putAll(configMapValues(map)));
    } else if (source.getSecretRef() != null) {
      Optional<Secret> secret = secret(source.getSecretRef().getName(), Boolean.TRUE.equals(source.getSecretRef().getOptional()));
      if (secret.isPresent()) {
        values.putAll(secretValues(secret.get()));
      }
    }
    Map<String, String> variables = new LinkedHashMap<>();
    // A name with '=' cannot be a variable; the kubelet skips such keys.
    values.forEach((key, value) -> {
      if (!key.contains("=")) {
        variables.put(prefix + key, value);
      }
    });
    return variables;
  }

  private Optional<ConfigMap> configMap(String name, boolean optional) throws Missing {
    Optional<ConfigMap> map = objects.find(ObjectTable.CONFIG_MAPS, ConfigMap.class, namespace, name);
    if (map.isEmpty() && !optional) {
      throw new Missing("configmap \"" + name + "\" not found");
    }
    return map;
  }

  private Optional<Secret> secret(String name, boolean optional) throws Missing {
    Optional<Secret> secret = objects.find(ObjectTable.SECRETS, Secret.class, namespace, name);
    if (secret.isEmpty() && !optional) {
      throw new Missing("secret \"" + name + "\" not found");
    }
    return secret;
  }

  private static Map<String, String> configMapValues(ConfigMap map) {
    Map<String, String> values = new LinkedHashMap<>();
    if (map.getData() != null) {
      values.putAll(map.getData());
    }
    if (map.getBinaryData() != null) {
      map.getBinaryData().forEach((key, value) -> values.put(key, decode(value)));
    }
    return values;
  }

  private static Map<String, String> secretValues(Secret secret) {
    Map<String, String> values = new LinkedHashMap<>();
    if (secret.getData() != null) {
      secret.getData().forEach((key, value) -> values.put(key, decode(value)));
    }
    return values;
  }

  private static String decode(String base64) {
    return new String(Base64.getDecoder().decode(base64 == null ? "" : base64), StandardCharsets.UTF_8);
  }
}
