package io.ordinal.api.statefulset;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSetPersistentVolumeClaimRetentionPolicy;
import io.fabric8.kubernetes.api.model.apps.StatefulSetUpdateStrategyBuilder;
import io.ordinal.kube.Drivers;
import io.ordinal.kube.Labels;
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
}
