package io.ordinal.api.core;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.ordinal.apimachinery.ApiException;
import io.ordinal.apimachinery.FieldError;
import io.ordinal.apimachinery.ObjectMetaValidation;
import io.ordinal.store.KubeJson;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * ConfigMaps, Secrets and ServiceAccounts as upstream validates them
 * (pkg/apis/core/validation/validation.go: ValidateConfigMap, ValidateSecret, their updates,
 * ValidateServiceAccount). A Secret's values never appear in a message.
 */
public final class ConfigValidation {
  /** core.MaxSecretSize: the bound on a ConfigMap's or a Secret's data, all keys together. */
  public static final int MAX_SIZE = 1024 * 1024;
  private static final Pattern CONFIG_KEY = Pattern.compile("[-._a-zA-Z0-9]+");
  private static final String IMMUTABLE = "field is immutable when `immutable` is set";

  private ConfigValidation() {}

  public static List<FieldError> validateConfigMap(ConfigMap map) {
    List<FieldError> errors = new ArrayList<>(ObjectMetaValidation.validateObjectMeta(map.getMetadata()));
    long size = 0;
    Map<String, String> binary = map.getBinaryData() == null ? Map.of() : map.getBinaryData();
    if (map.getData() != null) {
      for (var entry : map.getData().entrySet()) {
        keyErrors(entry.getKey()).forEach(m -> errors.add(FieldError.invalid("data[" + entry.getKey() + "]", entry.getKey(), m)));
        if (binary.containsKey(entry.getKey())) {
          errors.add(FieldError.invalid("data[" + entry.getKey() + "]", entry.getKey(), "duplicate of key present in binaryData"));
        }
        size += entry.getValue() == null ? 0 : entry.getValue().getBytes(StandardCharsets.UTF_8).length;
      }
    }
    for (var entry : binary.entrySet()) {
      keyErrors(entry.getKey()).forEach(m -> errors.add(FieldError.invalid("binaryData[" + entry.getKey() + "]", entry.getKey(), m)));
      size += decoded(entry.getValue());
    }
    if (size > MAX_SIZE) {
      errors.add(FieldError.tooLong("", MAX_SIZE));
    }
    return errors;
  }

  public static List<FieldError> validateConfigMapUpdate(ConfigMap map, ConfigMap old) {
    List<FieldError> errors = new ArrayList<>();
    if (Boolean.TRUE.equals(old.getImmutable())) {
      if (!Boolean.TRUE.equals(map.getImmutable())) {
        errors.add(FieldError.forbidden("immutable", IMMUTABLE));
      }
      if (!Objects.equals(emptyIfNull(map.getData()), emptyIfNull(old.getData()))) {
        errors.add(FieldError.forbidden("data", IMMUTABLE));
      }
      if (!Objects.equals(emptyIfNull(map.getBinaryData()), emptyIfNull(old.getBinaryData()))) {
        errors.add(FieldError.forbidden("binaryData", IMMUTABLE));
      }
    }
    errors.addAll(validateConfigMap(map));
    return errors;
  }

  public static List<FieldError> validateSecret(Secret secret) {
    List<FieldError> errors = new ArrayList<>(ObjectMetaValidation.validateObjectMeta(secret.getMetadata()));
    Map<String, String> data = secret.getData() == null ? Map.of() : secret.getData();
    long size = 0;
    for (var entry : data.entrySet()) {
      keyErrors(entry.getKey()).forEach(m -> errors.add(FieldError.invalid("data[" + entry.getKey() + "]", entry.getKey(), m)));
      size += decoded(entry.getValue());
    }
    if (size > MAX_SIZE) {
      errors.add(FieldError.tooLong("data", MAX_SIZE));
    }
    String type = secret.getType() == null ? "" : secret.getType();
    switch (type) {
      case "kubernetes.io/service-account-token" -> {
        var annotations = secret.getMetadata().getAnnotations();
        String account = annotations == null ? null : annotations.get("kubernetes.io/service-account.name");
        if (account == null || account.isEmpty()) {
          errors.add(FieldError.required("metadata.annotations[kubernetes.io/service-account.name]", ""));
        }
      }
      case "kubernetes.io/dockercfg" -> dockerConfig(data, ".dockercfg", errors);
      case "kubernetes.io/dockerconfigjson" -> dockerConfig(data, ".dockerconfigjson", errors);
      case "kubernetes.io/basic-auth" -> {
        if (!data.containsKey("username") && !data.containsKey("password")) {
          errors.add(FieldError.required("data[username]", ""));
          errors.add(FieldError.required("data[password]", ""));
        }
      }
      case "kubernetes.io/ssh-auth" -> {
        if (decoded(data.get("ssh-privatekey")) == 0) {
          errors.add(FieldError.required("data[ssh-privatekey]", ""));
        }
      }
      case "kubernetes.io/tls" -> {
        if (!data.containsKey("tls.crt")) {
          errors.add(FieldError.required("data[tls.crt]", ""));
        }
        if (!data.containsKey("tls.key")) {
          errors.add(FieldError.required("data[tls.key]", ""));
        }
      }
      default -> { }
    }
    return errors;
  }

  public static List<FieldError> validateSecretUpdate(Secret secret, Secret old) {
    List<FieldError> errors = new ArrayList<>();
    if (!Objects.equals(secret.getType(), old.getType())) {
      errors.add(FieldError.invalid("type", secret.getType(), "field is immutable"));
    }
    if (Boolean.TRUE.equals(old.getImmutable())) {
      if (!Boolean.TRUE.equals(secret.getImmutable())) {
        errors.add(FieldError.forbidden("immutable", IMMUTABLE));
      }
      if (!Objects.equals(emptyIfNull(secret.getData()), emptyIfNull(old.getData()))) {
        errors.add(FieldError.forbidden("data", IMMUTABLE));
      }
    }
    errors.addAll(validateSecret(secret));
    return errors;
  }

  public static List<FieldError> validateServiceAccount(ServiceAccount account) {
    return ObjectMetaValidation.validateObjectMeta(account.getMetadata());
  }

  /**
   * Upstream decodes {@code []byte} fields as base64 while reading the body: a value that is not
   * base64 is a 400 before validation, as there.
   */
  public static void requireBase64(String kind, Map<String, String> values) {
    if (values == null) {
      return;
    }
    for (String value : values.values()) {
      try {
        Base64.getDecoder().decode(value == null ? "" : value);
      } catch (IllegalArgumentException e) {
        throw ApiException.badRequest(kind + " in version \"v1\" cannot be handled as a " + kind
            + ": illegal base64 data: " + e.getMessage());
      }
    }
  }

  /** Upstream's IsConfigMapKey. */
  static List<String> keyErrors(String key) {
    List<String> errors = new ArrayList<>();
    if (key.length() > 253) {
      errors.add("must be no more than 253 characters");
    }
    if (!CONFIG_KEY.matcher(key).matches()) {
      errors.add("a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or "
          + "'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')");
    }
    if (key.equals(".")) {
      errors.add("must not be '.'");
    } else if (key.equals("..")) {
      errors.add("must not be '..'");
    } else if (key.startsWith("..")) {
      errors.add("must not start with '..'");
    }
    return errors;
  }

  /** A docker config secret: its key present, holding a JSON object (its content never in the message). */
  private static void dockerConfig(Map<String, String> data, String key, List<FieldError> errors) {
    if (!data.containsKey(key)) {
      errors.add(FieldError.required("data[" + key + "]", ""));
      return;
    }
    try {
      var parsed = KubeJson.JSON.readTree(Base64.getDecoder().decode(data.get(key)));
      if (parsed == null || !parsed.isObject()) {
        errors.add(FieldError.invalid("data[" + key + "]", "<secret contents redacted>", "must be a JSON object"));
      }
    } catch (IOException | IllegalArgumentException e) {
      errors.add(FieldError.invalid("data[" + key + "]", "<secret contents redacted>", "is not valid JSON"));
    }
  }

  private static long decoded(String base64) {
    if (base64 == null || base64.isEmpty()) {
      return 0;
    }
    return Base64.getDecoder().decode(base64).length;
  }

  private static <K, V> Map<K, V> emptyIfNull(Map<K, V> map) {
    return map == null ? Map.of() : map;
  }
}
