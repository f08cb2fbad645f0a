package io.ordinal.api.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.ordinal.apimachinery.ApiException;
import io.ordinal.apimachinery.FieldError;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ConfigValidationTest {

  @Test
  void configKeysFollowUpstreamsIsConfigMapKey() {
    assertEquals(List.of(), ConfigValidation.keyErrors("app.properties"));
    assertEquals(List.of("must not be '.'"), ConfigValidation.keyErrors("."));
    assertEquals(List.of("must not start with '..'"), ConfigValidation.keyErrors("..data"));
    assertEquals(1, ConfigValidation.keyErrors("a b").size());
    assertTrue(ConfigValidation.keyErrors("a b").getFirst().startsWith("a valid config key must consist of"));
    assertEquals(List.of("must be no more than 253 characters"), ConfigValidation.keyErrors("k".repeat(254)));
  }

  @Test
  void aConfigMapKeyInDataAndBinaryDataIsADuplicate() {
    ConfigMap map = new ConfigMapBuilder().withNewMetadata().withName("m").endMetadata()
        .withData(Map.of("k", "v")).withBinaryData(Map.of("k", "eA==")).build();
    assertEquals(List.of("data[k]"), fields(ConfigValidation.validateConfigMap(map)));
  }

  @Test
  void dataOverOneMebibyteIsTooLong() {
    ConfigMap map = new ConfigMapBuilder().withNewMetadata().withName("m").endMetadata().build();
    map.setData(Map.of("a", "x".repeat(ConfigValidation.MAX_SIZE / 2), "b", "x".repeat(ConfigValidation.MAX_SIZE / 2 + 1)));
    List<FieldError> errors = ConfigValidation.validateConfigMap(map);
    assertEquals(List.of(""), fields(errors));
    assertEquals("FieldValueTooLong", errors.getFirst().reason());
  }

  @Test
  void anImmutableConfigMapKeepsItsDataAndStaysImmutable() {
    ConfigMap old = new ConfigMapBuilder().withNewMetadata().withName("m").endMetadata().withImmutable(true)
        .withData(Map.of("k", "v")).build();
    ConfigMap changed = new ConfigMapBuilder(old).withImmutable(false).withData(Map.of("k", "w")).build();
    assertEquals(List.of("immutable", "data"), fields(ConfigValidation.validateConfigMapUpdate(changed, old)));
    assertEquals(List.of(), ConfigValidation.validateConfigMapUpdate(new ConfigMapBuilder(old).build(), old));
  }

  @Test
  void typedSecretsNeedTheirKeysAndKeepTheirType() {
    Secret tls = new SecretBuilder().withNewMetadata().withName("t").endMetadata().withType("kubernetes.io/tls")
        .withData(Map.of("tls.crt", "eA==")).build();
    assertEquals(List.of("data[tls.key]"), fields(ConfigValidation.validateSecret(tls)));
    Secret basic = new SecretBuilder().withNewMetadata().withName("b").endMetadata().withType("kubernetes.io/basic-auth")
        .withData(Map.of()).build();
    assertEquals(List.of("data[username]", "data[password]"), fields(ConfigValidation.validateSecret(basic)));
    Secret docker = new SecretBuilder().withNewMetadata().withName("d").endMetadata()
        .withType("kubernetes.io/dockerconfigjson").withData(Map.of(".dockerconfigjson", "bm90IGpzb24=")).build();
    List<FieldError> errors = ConfigValidation.validateSecret(docker);
    assertEquals(List.of("data[.dockerconfigjson]"), fields(errors));
    assertTrue(errors.getFirst().message().contains("<secret contents redacted>"), errors.toString());
    Secret opaque = new SecretBuilder().withNewMetadata().withName("o").endMetadata().withType("Opaque").build();
    Secret retyped = new SecretBuilder(opaque).withType("kubernetes.io/basic-auth").withData(Map.of("username", "eA==")).build();
    assertEquals(List.of("type"), fields(ConfigValidation.validateSecretUpdate(retyped, opaque)));
  }

  @Test
  void stringDataIsFoldedIntoDataAndTheTypeDefaultsToOpaque() {
    Secret secret = new SecretBuilder().withNewMetadata().withName("s").endMetadata()
        .withData(Map.of("a", "eA==", "b", "eA==")).withStringData(Map.of("b", "yes")).build();
    ConfigStrategies.decode(secret);
    assertEquals(Map.of("a", "eA==", "b", "eWVz"), secret.getData());
    assertEquals(null, secret.getStringData());
    assertEquals("Opaque", secret.getType());
    Secret bad = new SecretBuilder().withNewMetadata().withName("s").endMetadata().withData(Map.of("a", "%%")).build();
    assertEquals(400, assertThrows(ApiException.class, () -> ConfigStrategies.decode(bad)).code());
  }

  private static List<String> fields(List<FieldError> errors) {
    return errors.stream().map(FieldError::field).toList();
  }
}
