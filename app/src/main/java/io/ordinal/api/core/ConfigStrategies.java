package io.ordinal.api.core;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.ordinal.api.discovery.ApiResources;
import io.ordinal.api.registry.Resource;
import io.ordinal.api.registry.Strategy;
import io.ordinal.apimachinery.FieldError;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The strategies of ConfigMaps, Secrets and ServiceAccounts (upstream's pkg/registry/core/configmap,
 * secret, serviceaccount): objects a user writes whole, validated by {@link ConfigValidation}.
 */
public final class ConfigStrategies {
  public static final Resource<ConfigMap> CONFIG_MAPS = new Resource<>(ApiResources.CONFIG_MAPS, ConfigMap.class);
  public static final Resource<Secret> SECRETS = new Resource<>(ApiResources.SECRETS, Secret.class);
  public static final Resource<ServiceAccount> SERVICE_ACCOUNTS =
      new Resource<>(ApiResources.SERVICE_ACCOUNTS, ServiceAccount.class);

  private ConfigStrategies() {}

  public static Strategy<ConfigMap> configMaps() {
    return new Strategy<>() {
      @Override
      public Resource<ConfigMap> resource() {
        return CONFIG_MAPS;
      }

      @Override
      public void prepareForCreate(ConfigMap map) {
        ConfigValidation.requireBase64("ConfigMap", map.getBinaryData());
      }

      @Override
      public void prepareForUpdate(ConfigMap map, ConfigMap old) {
        ConfigValidation.requireBase64("ConfigMap", map.getBinaryData());
      }

      @Override
      public List<FieldError> validate(ConfigMap map) {
        return ConfigValidation.validateConfigMap(map);
      }

      @Override
      public List<FieldError> validateUpdate(ConfigMap map, ConfigMap old) {
        return ConfigValidation.validateConfigMapUpdate(map, old);
      }
    };
  }

  public static Strategy<Secret> secrets() {
    return new Strategy<>() {
      @Override
      public Resource<Secret> resource() {
        return SECRETS;
      }

      @Override
      public void prepareForCreate(Secret secret) {
        decode(secret);
      }

      @Override
      public void prepareForUpdate(Secret secret, Secret old) {
        decode(secret);
      }

      @Override
      public List<FieldError> validate(Secret secret) {
        return ConfigValidation.validateSecret(secret);
      }

      @Override
      public List<FieldError> validateUpdate(Secret secret, Secret old) {
        return ConfigValidation.validateSecretUpdate(secret, old);
      }
    };
  }

  public static Strategy<ServiceAccount> serviceAccounts() {
    return new Strategy<>() {
      @Override
      public Resource<ServiceAccount> resource() {
        return SERVICE_ACCOUNTS;
      }

      @Override
      public List<FieldError> validate(ServiceAccount account) {
        return ConfigValidation.validateServiceAccount(account);
      }

      @Override
      public List<FieldError> validateUpdate(ServiceAccount account, ServiceAccount old) {
        return ConfigValidation.validateServiceAccount(account);
      }
    };
  }

  /**
   * What upstream's decoding and defaulting of a v1 Secret do: stringData folded into data (its
   * values win), never stored; type Opaque when none; data that is not base64 refused.
   */
  static void decode(Secret secret) {
    ConfigValidation.requireBase64("Secret", secret.getData());
    if (secret.getStringData() != null && !secret.getStringData().isEmpty()) {
      Map<String, String> data = new LinkedHashMap<>(secret.getData() == null ? Map.of() : secret.getData());
      secret.getStringData().forEach((key, value) -> data.put(key,
          Base64.getEncoder().encodeToString((value == null ? "" : value).getBytes(StandardCharsets.UTF_8))));
      secret.setData(data);
    }
    secret.setStringData(null);
    if (secret.getType() == null || secret.getType().isEmpty()) {
      secret.setType("Opaque");
    }
  }
}
