package io.ordinal.driver.local;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.Volume;
import io.micronaut.jdbc.DataSourceResolver;
import io.ordinal.driver.local.AtomicWriter.FileProjection;
import io.ordinal.store.KubeJson;
import io.ordinal.store.ObjectStore;
import io.ordinal.store.ObjectTable;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * A volume's files as upstream's MakePayload and CollectData make them (items, modes, optional, the
 * errors' words), and the downward API's labels and annotations one key="value" line each, by key.
 */
class VolumeFilesTest {
  /** ConfigMaps and Secrets by table and name, in place of the database. */
  static final class Objects extends ObjectStore {
    final Map<String, HasMetadata> stored = new HashMap<>();

    Objects() {
      super(null, DataSourceResolver.DEFAULT, null);
    }

    @Override
    public <T extends HasMetadata> Optional<T> find(ObjectTable kind, Class<T> type, String namespace, String name) {
      return Optional.ofNullable(stored.get(kind + "/" + name)).map(type::cast);
    }
  }

  private final Objects objects = new Objects();
  private final Pod pod = KubeJson.read("""
      {"metadata": {"name": "web-0", "namespace": "ns", "labels": {"app": "web"}, "annotations": {"note": "hi"}},
       "spec": {"containers": [{"name": "main", "resources": {"limits": {"memory": "64Mi", "cpu": "500m"}}}]}}""", Pod.class);
  private final VolumeFiles files = new VolumeFiles(objects, "ns", pod, "uid-1");

  private static Volume volume(String yaml) throws Exception {
    return KubeJson.YAML.readValue(yaml, Volume.class);
  }

  private static String text(FileProjection file) {
    return new String(file.data(), StandardCharsets.UTF_8);
  }

  private void configMap() {
    ConfigMap map = new ConfigMapBuilder().withNewMetadata().withName("app").endMetadata()
        .addToData("mode", "fast").addToBinaryData("bin", "AAE=").build();
    objects.stored.put(ObjectTable.CONFIG_MAPS + "/app", map);
  }

  @Test
  void everyKeyOfAConfigMapAtTheDefaultMode() throws Exception {
    configMap();
    Map<String, FileProjection> payload = files.of(volume("{name: v, configMap: {name: app}}"));
    assertEquals("fast", text(payload.get("mode")));
    assertEquals(0644, payload.get("mode").mode());
    assertArrayEquals(new byte[] {0, 1}, payload.get("bin").data());
  }

  @Test
  void itemsMapKeysToPathsWithTheirOwnModes() throws Exception {
    configMap();
    Map<String, FileProjection> payload = files.of(volume(
        "{name: v, configMap: {name: app, defaultMode: 256, items: [{key: mode, path: a/m}, {key: bin, path: b, mode: 384}]}}"));
    assertEquals(Map.of("a/m", new FileProjection("fast".getBytes(StandardCharsets.UTF_8), 0400),
        "b", new FileProjection(new byte[] {0, 1}, 0600)), payload);
  }

  @Test
  void aMissingObjectOrKeyFailsWithUpstreamsWordsUnlessOptional() throws Exception {
    assertEquals("configmap \"app\" not found",
        assertThrows(VolumeFiles.Failed.class, () -> files.of(volume("{name: v, configMap: {name: app}}"))).getMessage());
    assertEquals("secret \"db\" not found",
        assertThrows(VolumeFiles.Failed.class, () -> files.of(volume("{name: v, secret: {secretName: db}}"))).getMessage());
    assertEquals(Map.of(), files.of(volume("{name: v, configMap: {name: app, optional: true}}")));
    configMap();
    assertEquals("configmap references non-existent config key: nope", assertThrows(VolumeFiles.Failed.class,
        () -> files.of(volume("{name: v, configMap: {name: app, items: [{key: nope, path: p}]}}"))).getMessage());
    assertEquals(1, files.of(volume("{name: v, configMap: {name: app, optional: true, items: [{key: nope, path: p},"
        + " {key: mode, path: m}]}}")).size());
    objects.stored.put(ObjectTable.SECRETS + "/db",
        new SecretBuilder().withNewMetadata().withName("db").endMetadata().addToData("user", "YWRtaW4=").build());
    assertEquals("references non-existent secret key: pw", assertThrows(VolumeFiles.Failed.class,
        () -> files.of(volume("{name: v, secret: {secretName: db, items: [{key: pw, path: p}]}}"))).getMessage());
    assertEquals("admin", text(files.of(volume("{name: v, secret: {secretName: db}}")).get("user")));
  }

  @Test
  void theDownwardApiShowsThePodsFieldsAndResources() throws Exception {
    Map<String, FileProjection> payload = files.of(volume("""
        name: v
        downwardAPI:
          defaultMode: 256
          items:
          - {path: name, fieldRef: {fieldPath: metadata.name}}
          - {path: uid, fieldRef: {fieldPath: metadata.uid}}
          - {path: labels, fieldRef: {fieldPath: metadata.labels}, mode: 292}
          - {path: note, fieldRef: {fieldPath: "metadata.annotations['note']"}}
          - {path: absent, fieldRef: {fieldPath: "metadata.labels['absent']"}}
          - {path: mem, resourceFieldRef: {containerName: main, resource: limits.memory, divisor: 1Mi}}
          - {path: cpu, resourceFieldRef: {containerName: main, resource: limits.cpu, divisor: 1m}}
          - {path: cores, resourceFieldRef: {containerName: main, resource: limits.cpu}}
          - {path: req, resourceFieldRef: {containerName: main, resource: requests.memory}}
        """));
    assertEquals("web-0", text(payload.get("name")));
    assertEquals(0400, payload.get("name").mode());
    assertEquals("uid-1", text(payload.get("uid")));
    assertEquals("app=\"web\"", text(payload.get("labels")));
    assertEquals(0444, payload.get("labels").mode());
    assertEquals("hi", text(payload.get("note")));
    assertEquals("", text(payload.get("absent")));
    assertEquals("64", text(payload.get("mem")));
    assertEquals("500", text(payload.get("cpu")));
    assertEquals("1", text(payload.get("cores")), "0.5 cores rounded up, as upstream");
    assertEquals(Long.toString(64L * 1024 * 1024), text(payload.get("req")), "an unset request is the limit (upstream's defaulting)");
  }

  @Test
  void aProjectedVolumeJoinsItsSourcesAndRefusesAServiceAccountToken() throws Exception {
    configMap();
    Map<String, FileProjection> payload = files.of(volume("""
        name: v
        projected:
          defaultMode: 288
          sources:
          - configMap: {name: app, items: [{key: mode, path: c/mode}]}
          - downwardAPI: {items: [{path: p/name, fieldRef: {fieldPath: metadata.name}}]}
          - secret: {name: absent, optional: true}
        """));
    assertEquals("fast", text(payload.get("c/mode")));
    assertEquals(0440, payload.get("c/mode").mode());
    assertEquals("web-0", text(payload.get("p/name")));
    assertEquals(2, payload.size());
    assertEquals("[secret \"db\" not found, configmap \"other\" not found]", assertThrows(VolumeFiles.Failed.class,
        () -> files.of(volume("{name: v, projected: {sources: [{secret: {name: db}}, {configMap: {name: other}}]}}"))).getMessage());
    String refused = assertThrows(VolumeFiles.Failed.class,
        () -> files.of(volume("{name: v, projected: {sources: [{serviceAccountToken: {path: token}}]}}"))).getMessage();
    assertEquals("serviceAccountToken projection is not supported by the local driver: it cannot mint a token for the"
        + " pod's service account (path \"token\")", refused);
  }
  @Test
  void aMapIsOneQuotedLinePerKeyInKeyOrder() {
    Map<String, String> labels = new LinkedHashMap<>();
    labels.put("zone", "b");
    labels.put("app", "web");
    assertEquals("app=\"web\"\nzone=\"b\"", VolumeFiles.formatMap(labels));
  }

  @Test
  void valuesAreQuotedAsGoQuotesThem() {
    assertEquals("\"a\\\"b\\\\c\\nd\\te\\x01é\"", VolumeFiles.goQuote("a\"b\\c\nd\te\u0001é"));
  }

  @Test
  void spacesAndFormatCharactersBeyondAsciiAreEscapedAsGoEscapesThem() {
    assertEquals("\"a\\u00a0b\\u200bc\"", VolumeFiles.goQuote("a\u00a0b\u200bc"));
  }

  @Test
  void anEmptyMapIsAnEmptyFile() {
    assertEquals("", VolumeFiles.formatMap(Map.of()));
  }
}
