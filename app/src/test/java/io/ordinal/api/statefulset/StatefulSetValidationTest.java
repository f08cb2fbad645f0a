package io.ordinal.api.statefulset;

import io.ordinal.apimachinery.FieldError;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSetPersistentVolumeClaimRetentionPolicy;
import io.fabric8.kubernetes.api.model.apps.StatefulSetUpdateStrategyBuilder;
import io.ordinal.kube.Drivers;
import io.ordinal.kube.Labels;
import io.ordinal.store.KubeJson;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class StatefulSetValidationTest {
  static final Drivers DRIVERS = new Drivers(Set.of("sim", "local"), "sim");

  static StatefulSet valid() {
    return new StatefulSetBuilder()
        .withApiVersion("apps/v1").withKind("StatefulSet")
        .withNewMetadata().withName("web").withNamespace("default").endMetadata()
        .withNewSpec()
          .withReplicas(3).withServiceName("nginx")
          .withNewSelector().addToMatchLabels("app", "nginx").endSelector()
          .withNewTemplate()
            .withNewMetadata().addToLabels("app", "nginx").endMetadata()
            .withNewSpec()
              .addNewContainer().withName("nginx").withImage("nginx:1.0")
                .addNewPort().withContainerPort(80).withName("web").endPort()
                .addNewVolumeMount().withName("www").withMountPath("/data").endVolumeMount()
              .endContainer()
            .endSpec()
          .endTemplate()
          .addNewVolumeClaimTemplate()
            .withNewMetadata().withName("www").endMetadata()
            .withNewSpec().withAccessModes("ReadWriteOnce")
              .withNewResources().addToRequests("storage", new Quantity("1Gi")).endResources()
            .endSpec()
          .endVolumeClaimTemplate()
        .endSpec()
        .build();
  }

  static List<FieldError> errorsOf(Consumer<StatefulSet> change) {
    StatefulSet set = valid();
    change.accept(set);
    StatefulSetDefaults.apply(set);
    return StatefulSetValidation.validateCreate(set, DRIVERS);
  }

  @Test
  void theDocumentationExampleIsValidOnceDefaulted() {
    assertEquals(List.of(), errorsOf(set -> { }));
  }

  @Test
  void defaultsAreUpstreams() {
    StatefulSet set = valid();
    set.getSpec().setReplicas(null);
    StatefulSetDefaults.apply(set);
    assertEquals(1, set.getSpec().getReplicas());
    assertEquals("OrderedReady", set.getSpec().getPodManagementPolicy());
    assertEquals("RollingUpdate", set.getSpec().getUpdateStrategy().getType());
    assertEquals(0, set.getSpec().getUpdateStrategy().getRollingUpdate().getPartition());
    assertEquals(10, set.getSpec().getRevisionHistoryLimit());
    assertEquals("Retain", set.getSpec().getPersistentVolumeClaimRetentionPolicy().getWhenDeleted());
    assertEquals("Retain", set.getSpec().getPersistentVolumeClaimRetentionPolicy().getWhenScaled());
  }

  static Stream<Arguments> invalid() {
    return Stream.<Arguments>of(
        Arguments.of("missing name", (Consumer<StatefulSet>) s -> s.getMetadata().setName(null), "metadata.name"),
        Arguments.of("uppercase name", (Consumer<StatefulSet>) s -> s.getMetadata().setName("Web"), "metadata.name"),
        Arguments.of("pod names would not be DNS labels", (Consumer<StatefulSet>) s -> s.getMetadata().setName("a".repeat(62)), "metadata.name"),
        Arguments.of("negative replicas", (Consumer<StatefulSet>) s -> s.getSpec().setReplicas(-1), "spec.replicas"),
        Arguments.of("negative minReadySeconds", (Consumer<StatefulSet>) s -> s.getSpec().setMinReadySeconds(-5), "spec.minReadySeconds"),
        Arguments.of("negative revisionHistoryLimit", (Consumer<StatefulSet>) s -> s.getSpec().setRevisionHistoryLimit(-1), "spec.revisionHistoryLimit"),
        Arguments.of("unknown pod management policy", (Consumer<StatefulSet>) s -> s.getSpec().setPodManagementPolicy("Sometimes"), "spec.podManagementPolicy"),
        Arguments.of("missing selector", (Consumer<StatefulSet>) s -> s.getSpec().setSelector(null), "spec.selector"),
        Arguments.of("empty selector", (Consumer<StatefulSet>) s -> s.getSpec().setSelector(new LabelSelectorBuilder().build()), "spec.selector"),
        Arguments.of("selector does not match template", (Consumer<StatefulSet>) s -> s.getSpec().getSelector().getMatchLabels().put("app", "other"), "spec.template.metadata.labels"),
        Arguments.of("unknown update strategy", (Consumer<StatefulSet>) s -> s.getSpec().setUpdateStrategy(new StatefulSetUpdateStrategyBuilder().withType("Blue").build()), "spec.updateStrategy.type"),
        Arguments.of("negative partition", (Consumer<StatefulSet>) s -> s.getSpec().setUpdateStrategy(new StatefulSetUpdateStrategyBuilder().withType("RollingUpdate").withNewRollingUpdate().withPartition(-1).endRollingUpdate().build()), "spec.updateStrategy.rollingUpdate.partition"),
        Arguments.of("maxUnavailable 0", (Consumer<StatefulSet>) s -> s.getSpec().setUpdateStrategy(new StatefulSetUpdateStrategyBuilder().withType("RollingUpdate").withNewRollingUpdate().withMaxUnavailable(new IntOrString(0)).endRollingUpdate().build()), "spec.updateStrategy.rollingUpdate.maxUnavailable"),
        Arguments.of("rollingUpdate with OnDelete", (Consumer<StatefulSet>) s -> s.getSpec().setUpdateStrategy(new StatefulSetUpdateStrategyBuilder().withType("OnDelete").withNewRollingUpdate().withPartition(1).endRollingUpdate().build()), "spec.updateStrategy.rollingUpdate"),
        Arguments.of("volumeMount without its claim", (Consumer<StatefulSet>) s -> s.getSpec().getTemplate().getSpec().getContainers().get(0).getVolumeMounts().get(0).setName("data"), "spec.template.spec.containers[0].volumeMounts[0].name"),
        Arguments.of("duplicate container name", (Consumer<StatefulSet>) s -> s.getSpec().getTemplate().getSpec().getContainers().add(new ContainerBuilder().withName("nginx").withImage("x").build()), "spec.template.spec.containers[1].name"),
        Arguments.of("no containers", (Consumer<StatefulSet>) s -> s.getSpec().getTemplate().getSpec().setContainers(List.of()), "spec.template.spec.containers"),
        Arguments.of("missing image", (Consumer<StatefulSet>) s -> s.getSpec().getTemplate().getSpec().getContainers().get(0).setImage(null), "spec.template.spec.containers[0].image"),
        Arguments.of("port out of range", (Consumer<StatefulSet>) s -> s.getSpec().getTemplate().getSpec().getContainers().get(0).getPorts().get(0).setContainerPort(70000), "spec.template.spec.containers[0].ports[0].containerPort"),
        Arguments.of("restartPolicy Never", (Consumer<StatefulSet>) s -> s.getSpec().getTemplate().getSpec().setRestartPolicy("Never"), "spec.template.spec.restartPolicy"),
        Arguments.of("claim without access modes", (Consumer<StatefulSet>) s -> s.getSpec().getVolumeClaimTemplates().get(0).getSpec().setAccessModes(List.of()), "spec.volumeClaimTemplates[0].spec.accessModes"),
        Arguments.of("claim without storage request", (Consumer<StatefulSet>) s -> s.getSpec().getVolumeClaimTemplates().get(0).getSpec().getResources().setRequests(null), "spec.volumeClaimTemplates[0].spec.resources.requests[storage]"),
        Arguments.of("unknown retention policy", (Consumer<StatefulSet>) s -> s.getSpec().setPersistentVolumeClaimRetentionPolicy(new StatefulSetPersistentVolumeClaimRetentionPolicy("Keep", "Retain")), "spec.persistentVolumeClaimRetentionPolicy.whenDeleted"),
        Arguments.of("unknown driver", (Consumer<StatefulSet>) s -> s.getMetadata().setAnnotations(Map.of(Labels.DRIVER_ANNOTATION, "docker")), "metadata.annotations[ordinal.io/driver]"),
        Arguments.of("bad label value", (Consumer<StatefulSet>) s -> s.getMetadata().setLabels(Map.of("tier", "-bad-")), "metadata.labels"));
  }

  @ParameterizedTest(name = "{0} is reported at {2}")
  @MethodSource("invalid")
  void invalidManifestsAreReportedWithTheirFieldPath(String name, Consumer<StatefulSet> change, String field) {
    List<FieldError> errors = errorsOf(change);
    assertTrue(errors.stream().anyMatch(e -> e.field().equals(field)), () -> "expected " + field + " in " + errors);
  }

  @Test
  void theLocalDriverNeedsACommand() {
    List<FieldError> errors = errorsOf(s -> s.getMetadata().setAnnotations(Map.of(Labels.DRIVER_ANNOTATION, "local")));
    assertEquals(List.of("spec.template.spec.containers[0].command"), errors.stream().map(FieldError::field).toList());
    assertEquals(List.of(), errorsOf(s -> {
      s.getMetadata().setAnnotations(Map.of(Labels.DRIVER_ANNOTATION, "local"));
      s.getSpec().getTemplate().getSpec().getContainers().get(0).setCommand(List.of("/bin/sleep", "infinity"));
    }));
    List<FieldError> root = errorsOf(s -> {
      s.getMetadata().setAnnotations(Map.of(Labels.DRIVER_ANNOTATION, "local"));
      s.getSpec().getTemplate().getSpec().getContainers().get(0).setCommand(List.of("/bin/true"));
      s.getSpec().getTemplate().getSpec().getContainers().get(0).getVolumeMounts().get(0).setMountPath("/");
    });
    assertEquals(List.of("spec.template.spec.containers[0].volumeMounts[0].mountPath"), root.stream().map(FieldError::field).toList());
  }

  /** Volumes as YAML (a list), read as the API reads them. */
  static List<Volume> volumes(String yaml) {
    try {
      return List.of(KubeJson.YAML.readValue(yaml, Volume[].class));
    } catch (java.io.IOException e) {
      throw new IllegalArgumentException(e);
    }
  }

  @Test
  void configMapSecretDownwardApiAndProjectedVolumesAsUpstreamsExamplesAreValid() {
    assertEquals(List.of(), errorsOf(s -> s.getSpec().getTemplate().getSpec().setVolumes(volumes("""
        - {name: a, configMap: {name: app, defaultMode: 420, items: [{key: k, path: dir/k, mode: 256}]}}
        - {name: b, secret: {secretName: db, optional: true}}
        - name: c
          downwardAPI:
            items:
            - {path: labels, fieldRef: {fieldPath: metadata.labels}}
            - {path: tier, fieldRef: {apiVersion: v1, fieldPath: "metadata.labels['tier']"}}
            - {path: mem, resourceFieldRef: {containerName: nginx, resource: limits.memory, divisor: 1Mi}}
            - {path: cpu, resourceFieldRef: {containerName: nginx, resource: requests.cpu, divisor: 1m}}
        - name: d
          projected:
            sources:
            - configMap: {name: app, items: [{key: k, path: a}]}
            - secret: {name: db, items: [{key: k, path: b}]}
            - downwardAPI: {items: [{path: c, fieldRef: {fieldPath: metadata.name}}]}
            - serviceAccountToken: {path: token, expirationSeconds: 3600}
        - {name: e, emptyDir: {}}
        """))));
  }

  static Stream<Arguments> invalidVolumes() {
    return Stream.of(
        Arguments.of("[{name: v, secret: {secretName: s}, configMap: {name: c}}]", "spec.template.spec.volumes[0].configMap"),
        // validateVolumeSource's order: flexVolume comes before configMap, projected before scaleIO.
        Arguments.of("[{name: v, configMap: {name: c}, flexVolume: {driver: d}}]", "spec.template.spec.volumes[0].configMap"),
        Arguments.of("[{name: v, scaleIO: {gateway: g, system: s, secretRef: {name: x}}, projected: {sources: []}}]",
            "spec.template.spec.volumes[0].scaleIO"),
        Arguments.of("[{name: v, configMap: {}}]", "spec.template.spec.volumes[0].configMap.name"),
        Arguments.of("[{name: v, secret: {}}]", "spec.template.spec.volumes[0].secret.secretName"),
        Arguments.of("[{name: v, configMap: {name: c, items: [{key: k, path: /abs}]}}]", "spec.template.spec.volumes[0].configMap.items[0].path"),
        Arguments.of("[{name: v, configMap: {name: c, items: [{key: k, path: a/../../b}]}}]", "spec.template.spec.volumes[0].configMap.items[0].path"),
        Arguments.of("[{name: v, configMap: {name: c, items: [{key: k, path: ..data}]}}]", "spec.template.spec.volumes[0].configMap.items[0].path"),
        Arguments.of("[{name: v, configMap: {name: c, items: [{key: k, path: ''}]}}]", "spec.template.spec.volumes[0].configMap.items[0].path"),
        Arguments.of("[{name: v, configMap: {name: c, items: [{path: p}]}}]", "spec.template.spec.volumes[0].configMap.items[0].key"),
        Arguments.of("[{name: v, secret: {secretName: s, items: [{key: k, path: p, mode: 512}]}}]", "spec.template.spec.volumes[0].secret.items[0].mode"),
        Arguments.of("[{name: v, secret: {secretName: s, defaultMode: -1}}]", "spec.template.spec.volumes[0].secret.defaultMode"),
        Arguments.of("[{name: v, downwardAPI: {items: [{path: ip, fieldRef: {fieldPath: status.podIP}}]}}]", "spec.template.spec.volumes[0].downwardAPI.fieldRef.fieldPath"),
        Arguments.of("[{name: v, downwardAPI: {items: [{path: p}]}}]", "spec.template.spec.volumes[0].downwardAPI"),
        Arguments.of("[{name: v, downwardAPI: {items: [{path: m, resourceFieldRef: {resource: limits.memory}}]}}]", "spec.template.spec.volumes[0].downwardAPI.resourceFieldRef.containerName"),
        Arguments.of("[{name: v, downwardAPI: {items: [{path: c, resourceFieldRef: {containerName: nginx, resource: limits.cpu, divisor: 1Mi}}]}}]", "spec.template.spec.volumes[0].downwardAPI.resourceFieldRef.divisor"),
        Arguments.of("[{name: v, projected: {sources: [{configMap: {name: c, items: [{key: k, path: p}]}}, {secret: {name: s, items: [{key: k, path: p}]}}]}}]", "spec.template.spec.volumes[0].projected"),
        Arguments.of("[{name: v, projected: {sources: [{configMap: {name: c}, secret: {name: s}}]}}]", "spec.template.spec.volumes[0].projected.sources[0]"),
        Arguments.of("[{name: v, projected: {defaultMode: 1000, sources: []}}]", "spec.template.spec.volumes[0].projected.defaultMode"),
        Arguments.of("[{name: v, projected: {sources: [{serviceAccountToken: {path: t, expirationSeconds: 60}}]}}]", "spec.template.spec.volumes[0].projected.sources[0].serviceAccountToken.expirationSeconds"));
  }

  @ParameterizedTest(name = "{0} is reported at {1}")
  @MethodSource("invalidVolumes")
  void invalidVolumeSourcesAreReportedAtUpstreamsFieldPaths(String yaml, String field) {
    List<FieldError> errors = errorsOf(s -> s.getSpec().getTemplate().getSpec().setVolumes(volumes(yaml)));
    assertEquals(List.of(field), errors.stream().map(FieldError::field).toList(), () -> errors.toString());
  }

  @Test
  void immutableFieldsCannotChange() {
    StatefulSet old = StatefulSetDefaults.apply(valid());
    StatefulSet changed = StatefulSetDefaults.apply(valid());
    changed.getSpec().setServiceName("other");
    changed.getSpec().setPodManagementPolicy("Parallel");
    changed.getSpec().setReplicas(7);
    List<String> fields = StatefulSetValidation.validateUpdate(changed, old, DRIVERS).stream().map(FieldError::field).toList();
    assertEquals(List.of("spec.serviceName", "spec.podManagementPolicy"), fields);
  }

  @Test
  void aClaimTemplatesStorageMayGrowButNotShrinkAndNothingElseMayChange() {
    StatefulSet old = StatefulSetDefaults.apply(valid());
    StatefulSet grown = StatefulSetDefaults.apply(valid());
    grown.getSpec().getVolumeClaimTemplates().get(0).getSpec().getResources().getRequests()
        .put("storage", new io.fabric8.kubernetes.api.model.Quantity("20Gi"));
    assertEquals(List.of(), StatefulSetValidation.validateUpdate(grown, old, DRIVERS));
    List<String> shrunk = StatefulSetValidation.validateUpdate(old, grown, DRIVERS).stream().map(FieldError::field).toList();
    assertEquals(List.of("spec.volumeClaimTemplates[0].spec.resources.requests.storage"), shrunk);
    StatefulSet modes = StatefulSetDefaults.apply(valid());
    modes.getSpec().getVolumeClaimTemplates().get(0).getSpec().setAccessModes(List.of("ReadWriteMany"));
    assertEquals(List.of("spec.volumeClaimTemplates[0]"),
        StatefulSetValidation.validateUpdate(modes, old, DRIVERS).stream().map(FieldError::field).toList());
  }

  /** A GET writes what Go always writes (serviceName "", a claim template's status {}): PUT back, it is no change. */
  @Test
  void aPutOfWhatAGetWroteChangesNoImmutableField() {
    StatefulSet old = StatefulSetDefaults.apply(valid());
    old.getSpec().setServiceName(null);
    StatefulSet fromGet = io.ordinal.store.KubeJson.JSON.convertValue(
        io.ordinal.apimachinery.GoFields.tree(old), StatefulSet.class);
    assertEquals("", fromGet.getSpec().getServiceName());
    assertEquals(List.of(), StatefulSetValidation.validateUpdate(fromGet, old, DRIVERS));
  }

  private static io.fabric8.kubernetes.api.model.PodSpec podSpec(StatefulSet s) {
    return s.getSpec().getTemplate().getSpec();
  }

  private static io.fabric8.kubernetes.api.model.Container container(StatefulSet s) {
    return podSpec(s).getContainers().get(0);
  }

  private static io.fabric8.kubernetes.api.model.PodSecurityContext podContext(StatefulSet s) {
    if (podSpec(s).getSecurityContext() == null) {
      podSpec(s).setSecurityContext(new io.fabric8.kubernetes.api.model.PodSecurityContext());
    }
    return podSpec(s).getSecurityContext();
  }

  private static io.fabric8.kubernetes.api.model.SecurityContext context(io.fabric8.kubernetes.api.model.Container c) {
    if (c.getSecurityContext() == null) {
      c.setSecurityContext(new io.fabric8.kubernetes.api.model.SecurityContext());
    }
    return c.getSecurityContext();
  }

  private static io.fabric8.kubernetes.api.model.Container initContainer(StatefulSet s) {
    podSpec(s).setInitContainers(new java.util.ArrayList<>(List.of(new ContainerBuilder().withName("init").withImage("x").build())));
    return podSpec(s).getInitContainers().get(0);
  }

  /** Where each uid and gid is set, and how (upstream's IsValidUserID / IsValidGroupID apply to them all). */
  static Stream<Arguments> ids() {
    List<Arguments> fields = List.of(
        Arguments.of("spec.template.spec.securityContext.runAsUser",
            (java.util.function.BiConsumer<StatefulSet, Long>) (s, v) -> podContext(s).setRunAsUser(v)),
        Arguments.of("spec.template.spec.securityContext.runAsGroup",
            (java.util.function.BiConsumer<StatefulSet, Long>) (s, v) -> podContext(s).setRunAsGroup(v)),
        Arguments.of("spec.template.spec.securityContext.fsGroup",
            (java.util.function.BiConsumer<StatefulSet, Long>) (s, v) -> podContext(s).setFsGroup(v)),
        Arguments.of("spec.template.spec.securityContext.supplementalGroups[1]",
            (java.util.function.BiConsumer<StatefulSet, Long>) (s, v) -> podContext(s).setSupplementalGroups(List.of(4000L, v))),
        Arguments.of("spec.template.spec.containers[0].securityContext.runAsUser",
            (java.util.function.BiConsumer<StatefulSet, Long>) (s, v) -> context(container(s)).setRunAsUser(v)),
        Arguments.of("spec.template.spec.containers[0].securityContext.runAsGroup",
            (java.util.function.BiConsumer<StatefulSet, Long>) (s, v) -> context(container(s)).setRunAsGroup(v)),
        Arguments.of("spec.template.spec.initContainers[0].securityContext.runAsUser",
            (java.util.function.BiConsumer<StatefulSet, Long>) (s, v) -> context(initContainer(s)).setRunAsUser(v)),
        Arguments.of("spec.template.spec.initContainers[0].securityContext.runAsGroup",
            (java.util.function.BiConsumer<StatefulSet, Long>) (s, v) -> context(initContainer(s)).setRunAsGroup(v)));
    return fields.stream().flatMap(f -> Stream.of(-1L, 2147483648L, 4294967295L, 4294967296L, Long.MIN_VALUE)
        .map(v -> Arguments.of(f.get()[0], f.get()[1], v)));
  }

  @ParameterizedTest(name = "{0} = {2} is invalid")
  @MethodSource("ids")
  void aUidOrGidOutsideUpstreamsRangeIsInvalid(String field, java.util.function.BiConsumer<StatefulSet, Long> set, long value) {
    List<FieldError> errors = errorsOf(s -> set.accept(s, value));
    assertEquals(List.of(new FieldError("FieldValueInvalid", field,
        "Invalid value: " + value + ": must be between 0 and 2147483647, inclusive")), errors);
    assertEquals(List.of(), errorsOf(s -> set.accept(s, 0L)), "0 is a valid id");
    assertEquals(List.of(), errorsOf(s -> set.accept(s, 2147483647L)), "2147483647 is a valid id");
  }

  static Stream<Arguments> envNames() {
    // RelaxedEnvironmentVariableValidation is on by default in v1.32: any printable ASCII but '='.
    return Stream.of(
        Arguments.of("A=B", false), Arguments.of("=", false), Arguments.of("NUL\0", false), Arguments.of("TAB\t", false),
        Arguments.of("NEW\nLINE", false), Arguments.of("DEL\u007f", false), Arguments.of("caf\u00e9", false),
        Arguments.of("BASH_ENV", true), Arguments.of("LD_PRELOAD", true), Arguments.of("1st", true),
        Arguments.of("my.env-name", true), Arguments.of("with space", true), Arguments.of("~!@#$%^&*()", true));
  }

  @ParameterizedTest(name = "env name \"{0}\" valid: {1}")
  @MethodSource("envNames")
  void envVarNamesAreUpstreamsRelaxedNames(String name, boolean valid) {
    String message = "a valid environment variable name must consist only of printable ASCII characters other than '='";
    List<FieldError> env = errorsOf(s -> container(s).setEnv(List.of(new io.fabric8.kubernetes.api.model.EnvVar(name, "x", null))));
    List<FieldError> init = errorsOf(s -> initContainer(s).setEnv(List.of(new io.fabric8.kubernetes.api.model.EnvVar(name, "x", null))));
    List<FieldError> prefix = errorsOf(s -> container(s).setEnvFrom(List.of(new io.fabric8.kubernetes.api.model.EnvFromSourceBuilder()
        .withPrefix(name).withNewConfigMapRef().withName("config").endConfigMapRef().build())));
    if (valid) {
      assertEquals(List.of(), env);
      assertEquals(List.of(), init);
      assertEquals(List.of(), prefix);
    } else {
      assertEquals(List.of(FieldError.invalid("spec.template.spec.containers[0].env[0].name", name, message)), env);
      assertEquals(List.of(FieldError.invalid("spec.template.spec.initContainers[0].env[0].name", name, message)), init);
      assertEquals(List.of(FieldError.invalid("spec.template.spec.containers[0].envFrom[0].prefix", name, message)), prefix);
    }
  }

  @Test
  void anEnvVarNeedsAName() {
    assertEquals(List.of(FieldError.required("spec.template.spec.containers[0].env[0].name", "")),
        errorsOf(s -> container(s).setEnv(List.of(new io.fabric8.kubernetes.api.model.EnvVar("", "x", null)))));
  }

  private static void mount(StatefulSet s, String mountPath, String subPath, String subPathExpr) {
    var mount = new io.fabric8.kubernetes.api.model.VolumeMountBuilder().withName("www").withMountPath(mountPath)
        .withSubPath(subPath).withSubPathExpr(subPathExpr).build();
    container(s).setVolumeMounts(List.of(mount));
  }

  static Stream<Arguments> volumeMounts() {
    String base = "spec.template.spec.containers[0].volumeMounts";
    return Stream.of(
        Arguments.of("no mountPath", (Consumer<StatefulSet>) s -> mount(s, null, null, null),
            List.of(FieldError.required(base + "[0].mountPath", ""))),
        Arguments.of("empty mountPath", (Consumer<StatefulSet>) s -> mount(s, "", null, null),
            List.of(FieldError.required(base + "[0].mountPath", ""))),
        Arguments.of("mountPath twice", (Consumer<StatefulSet>) s -> container(s).getVolumeMounts().add(
            new io.fabric8.kubernetes.api.model.VolumeMountBuilder().withName("www").withMountPath("/data").build()),
            List.of(FieldError.invalid(base + "[1].mountPath", "/data", "must be unique"))),
        // As upstream: subPath errors are reported at volumeMounts.subPath, without the mount's index.
        Arguments.of("absolute subPath", (Consumer<StatefulSet>) s -> mount(s, "/data", "/etc", null),
            List.of(FieldError.invalid(base + ".subPath", "/etc", "must be a relative path"))),
        Arguments.of("subPath ..", (Consumer<StatefulSet>) s -> mount(s, "/data", "..", null),
            List.of(FieldError.invalid(base + ".subPath", "..", "must not contain '..'"))),
        Arguments.of("subPath climbing out", (Consumer<StatefulSet>) s -> mount(s, "/data", "a/../../team-b", null),
            List.of(FieldError.invalid(base + ".subPath", "a/../../team-b", "must not contain '..'"))),
        Arguments.of("absolute subPath with ..", (Consumer<StatefulSet>) s -> mount(s, "/data", "/../x", null),
            List.of(FieldError.invalid(base + ".subPath", "/../x", "must be a relative path"),
                FieldError.invalid(base + ".subPath", "/../x", "must not contain '..'"))),
        Arguments.of("subPath with NUL", (Consumer<StatefulSet>) s -> mount(s, "/data", "a\0b", null),
            List.of(FieldError.invalid(base + ".subPath", "a\0b", "must not contain NUL"))),
        Arguments.of("subPathExpr climbing out", (Consumer<StatefulSet>) s -> mount(s, "/data", null, "../$(POD_NAME)"),
            List.of(FieldError.invalid(base + ".subPathExpr", "../$(POD_NAME)", "must not contain '..'"),
                FieldError.forbidden(base + "[0].subPathExpr", "not supported by Ordinal; use subPath"))),
        Arguments.of("subPath and subPathExpr", (Consumer<StatefulSet>) s -> mount(s, "/data", "a", "$(POD_NAME)"),
            List.of(FieldError.invalid(base + "[0].subPathExpr", "$(POD_NAME)", "subPathExpr and subPath are mutually exclusive"),
                FieldError.forbidden(base + "[0].subPathExpr", "not supported by Ordinal; use subPath"))),
        // Accepted as upstream accepts them: compared and kept as written.
        Arguments.of("/data and /data/", (Consumer<StatefulSet>) s -> container(s).getVolumeMounts().add(
            new io.fabric8.kubernetes.api.model.VolumeMountBuilder().withName("www").withMountPath("/data/").build()), List.of()),
        Arguments.of("relative mountPath", (Consumer<StatefulSet>) s -> mount(s, "data", null, null), List.of()),
        Arguments.of("subPath a/..b/..c", (Consumer<StatefulSet>) s -> mount(s, "/data", "a/..b/..c", null), List.of()),
        Arguments.of("subPath with dots", (Consumer<StatefulSet>) s -> mount(s, "/data", "./a/./b/", null), List.of()));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("volumeMounts")
  void volumeMountsAreValidatedAsUpstreamDoes(String name, Consumer<StatefulSet> change, List<FieldError> expected) {
    assertEquals(expected, errorsOf(change));
  }

  private static void claimVolume(StatefulSet s, String claimName) {
    podSpec(s).setVolumes(List.of(new io.fabric8.kubernetes.api.model.VolumeBuilder().withName("shared")
        .withNewPersistentVolumeClaim().withClaimName(claimName).endPersistentVolumeClaim().build()));
  }

  static Stream<Arguments> claimNames() {
    String field = "spec.template.spec.volumes[0].persistentVolumeClaim.claimName";
    String subdomain = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.',"
        + " and must start and end with an alphanumeric character";
    return Stream.of(
        Arguments.of(null, List.of(FieldError.required(field, ""))),
        Arguments.of("", List.of(FieldError.required(field, ""))),
        Arguments.of("../team-b/data-db-0", List.of(FieldError.invalid(field, "../team-b/data-db-0", subdomain))),
        Arguments.of("..", List.of(FieldError.invalid(field, "..", subdomain))),
        Arguments.of("Data", List.of(FieldError.invalid(field, "Data", subdomain))),
        Arguments.of("a".repeat(254), List.of(FieldError.invalid(field, "a".repeat(254), subdomain))),
        Arguments.of("data-db-0", List.of()),
        Arguments.of("data.db-0", List.of()));
  }

  /** Stricter than upstream, deliberately: a claim's name is a DNS subdomain, and the local driver makes a path of it. */
  @ParameterizedTest(name = "claimName \"{0}\"")
  @MethodSource("claimNames")
  void aClaimVolumeNamesAClaimByItsDnsName(String claimName, List<FieldError> expected) {
    assertEquals(expected, errorsOf(s -> claimVolume(s, claimName)));
  }

  @Test
  void claimTemplateNamesAreDnsLabelsAsThePodVolumesMadeOfThem() {
    List<FieldError> dots = errorsOf(s -> {
      s.getSpec().getVolumeClaimTemplates().get(0).getMetadata().setName("www.data");
      container(s).getVolumeMounts().get(0).setName("www.data");
    });
    assertEquals(List.of("spec.volumeClaimTemplates[0].metadata.name"), dots.stream().map(FieldError::field).toList());
    assertEquals(List.of("spec.volumeClaimTemplates[0].metadata.name"), errorsOf(s -> {
      s.getSpec().getVolumeClaimTemplates().get(0).getMetadata().setName("a".repeat(64));
      container(s).getVolumeMounts().get(0).setName("a".repeat(64));
    }).stream().map(FieldError::field).toList());
  }

  @Test
  void workingDirIsAnyStringButNul() {
    assertEquals(List.of(), errorsOf(s -> container(s).setWorkingDir("relative/../dir")));
    assertEquals(List.of(FieldError.invalid("spec.template.spec.containers[0].workingDir", "/tmp\0x", "must not contain NUL")),
        errorsOf(s -> container(s).setWorkingDir("/tmp\0x")));
  }

  @Test
  void theLocalDriverMountsOverNoPathThatIsRoot() {
    for (String root : List.of("/", "//", "/.", "/tmp/..", "/a/b/../..", "/..")) {
      List<FieldError> errors = errorsOf(s -> {
        s.getMetadata().setAnnotations(Map.of(Labels.DRIVER_ANNOTATION, "local"));
        container(s).setCommand(List.of("/bin/true"));
        container(s).getVolumeMounts().get(0).setMountPath(root);
      });
      assertEquals(List.of("spec.template.spec.containers[0].volumeMounts[0].mountPath"),
          errors.stream().map(FieldError::field).toList(), root);
    }
  }

  @Test
  void aPodUpdateIsValidatedAsUpstreamValidatesThePodAndKeepsItsDefaultUser() {
    var pod = new io.fabric8.kubernetes.api.model.PodBuilder().withNewMetadata().withName("web-0")
        .addToAnnotations(io.ordinal.podsecurity.PodSecurityAdmission.DEFAULT_USER_ANNOTATION, "65534:65534").endMetadata()
        .withNewSpec().addNewContainer().withName("nginx").withImage("nginx")
        .addNewEnv().withName("A=B").withValue("x").endEnv()
        .withNewSecurityContext().withRunAsUser(-1L).endSecurityContext().endContainer().endSpec().build();
    var changed = io.ordinal.store.KubeJson.copy(pod, io.fabric8.kubernetes.api.model.Pod.class);
    changed.getMetadata().getAnnotations().put(io.ordinal.podsecurity.PodSecurityAdmission.DEFAULT_USER_ANNOTATION, "0:0");
    assertEquals(List.of("metadata.annotations[ordinal.io/default-user]", "spec.containers[0].env[0].name",
        "spec.containers[0].securityContext.runAsUser"),
        StatefulSetValidation.validatePodUpdate(changed, pod).stream().map(FieldError::field).toList());
  }

  /** A set stored before these rules can still be scaled (or scaled to 0 and deleted); a new template is checked. */
  @Test
  void aStoredSetThatBreaksANewRuleCanBeScaledButItsTemplateNotChangedUnlessValid() {
    StatefulSet old = StatefulSetDefaults.apply(valid());
    context(container(old)).setRunAsUser(-1L);
    old.getSpec().getVolumeClaimTemplates().get(0).getMetadata().setName("www.data");
    container(old).getVolumeMounts().get(0).setName("www.data");
    StatefulSet scaled = io.ordinal.store.KubeJson.copy(old, StatefulSet.class);
    scaled.getSpec().setReplicas(0);
    assertEquals(List.of(), StatefulSetValidation.validateUpdate(scaled, old, DRIVERS));
    StatefulSet newImage = io.ordinal.store.KubeJson.copy(old, StatefulSet.class);
    container(newImage).setImage("nginx:2.0");
    assertEquals(List.of("spec.template.spec.containers[0].securityContext.runAsUser"),
        StatefulSetValidation.validateUpdate(newImage, old, DRIVERS).stream().map(FieldError::field).toList());
    assertEquals(List.of("spec.volumeClaimTemplates[0].metadata.name", "spec.template.spec.containers[0].securityContext.runAsUser"),
        StatefulSetValidation.validateCreate(old, DRIVERS).stream().map(FieldError::field).toList());
  }
}
