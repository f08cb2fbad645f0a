package io.ordinal.pods;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.ordinal.store.KubeJson;
import java.util.Optional;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Test;

class PodUpdatePolicyTest {

  static PodTemplateSpec template(String containers) {
    return KubeJson.read("{\"metadata\":{\"labels\":{\"app\":\"web\"}},\"spec\":{\"containers\":[" + containers + "]}}",
        PodTemplateSpec.class);
  }

  static final String APP = "{\"name\":\"app\",\"image\":\"nginx:1\",\"command\":[\"nginx\"]%s}";

  static String app(String image, String extra) {
    return String.format(APP, extra).replace("nginx:1", image);
  }

  @Test
  void imagesAndResourcesChangeInPlaceAnythingElseIsNamedByItsPath() {
    PodTemplateSpec from = template(app("nginx:1", ",\"resources\":{\"requests\":{\"cpu\":\"100m\"}}"));
    assertEquals(Optional.empty(), PodUpdatePolicy.notInPlace(from,
        template(app("nginx:2", ",\"resources\":{\"requests\":{\"cpu\":\"200m\"},\"limits\":{\"memory\":\"1Gi\"}}"))));
    assertEquals("spec.containers[0].command[0]", PodUpdatePolicy.notInPlace(from,
        template(app("nginx:2", ",\"resources\":{\"requests\":{\"cpu\":\"100m\"}}").replace("[\"nginx\"]", "[\"httpd\"]")))
        .orElseThrow().field());
    assertEquals("spec.containers[0].env", PodUpdatePolicy.notInPlace(from,
        template(app("nginx:1", ",\"resources\":{\"requests\":{\"cpu\":\"100m\"}},\"env\":[{\"name\":\"A\"}]")))
        .orElseThrow().field());
    assertEquals("spec.containers", PodUpdatePolicy.notInPlace(from,
        template(app("nginx:1", ",\"resources\":{\"requests\":{\"cpu\":\"100m\"}}") + ",{\"name\":\"side\",\"image\":\"x\"}"))
        .orElseThrow().field());
    PodTemplateSpec relabelled = template(app("nginx:1", ",\"resources\":{\"requests\":{\"cpu\":\"100m\"}}"));
    relabelled.getMetadata().getLabels().put("tier", "db");
    assertEquals("metadata.labels.tier", PodUpdatePolicy.notInPlace(from, relabelled).orElseThrow().field());
  }

  @Test
  void aResourcesChangeThatChangesTheQosClassIsNotMadeInPlace() {
    PodTemplateSpec burstable = template(app("nginx:1", ",\"resources\":{\"requests\":{\"cpu\":\"100m\"}}"));
    PodTemplateSpec guaranteed = template(app("nginx:1", ",\"resources\":{\"limits\":{\"cpu\":\"1\",\"memory\":\"1Gi\"}}"));
    PodTemplateSpec bestEffort = template(app("nginx:1", ""));
    assertEquals("Burstable", PodUpdatePolicy.qosClass(burstable.getSpec()));
    assertEquals("Guaranteed", PodUpdatePolicy.qosClass(guaranteed.getSpec()), "requests default to limits");
    assertEquals("BestEffort", PodUpdatePolicy.qosClass(bestEffort.getSpec()));
    assertEquals("Burstable", PodUpdatePolicy.qosClass(template(app("nginx:1",
        ",\"resources\":{\"requests\":{\"cpu\":\"500m\"},\"limits\":{\"cpu\":\"1\",\"memory\":\"1Gi\"}}")).getSpec()));
    var why = PodUpdatePolicy.notInPlace(burstable, guaranteed).orElseThrow();
    assertTrue(why.detail().contains("from Burstable to Guaranteed"), why.detail());
    assertEquals(Optional.empty(), PodUpdatePolicy.notInPlace(guaranteed,
        template(app("nginx:1", ",\"resources\":{\"limits\":{\"cpu\":\"2\",\"memory\":\"2Gi\"}}"))));
  }

  @Test
  void onlyCpuAndMemoryAreResizedInPlaceAndNoneOfTheirRequestsOrLimitsIsRemoved() {
    PodTemplateSpec from = template(app("nginx:1",
        ",\"resources\":{\"requests\":{\"cpu\":\"100m\",\"ephemeral-storage\":\"1Gi\"},\"limits\":{\"memory\":\"1Gi\"}}"));
    var storage = PodUpdatePolicy.notInPlace(from, template(app("nginx:1",
        ",\"resources\":{\"requests\":{\"cpu\":\"100m\",\"ephemeral-storage\":\"2Gi\"},\"limits\":{\"memory\":\"1Gi\"}}")))
        .orElseThrow();
    assertEquals("spec.containers[0].resources", storage.field());
    assertTrue(storage.detail().contains("not ephemeral-storage"), storage.detail());
    var removed = PodUpdatePolicy.notInPlace(from, template(app("nginx:1",
        ",\"resources\":{\"requests\":{\"cpu\":\"100m\",\"ephemeral-storage\":\"1Gi\"}}"))).orElseThrow();
    assertTrue(removed.detail().contains("memory request cannot be removed"), removed.detail());
    assertEquals(Optional.empty(), PodUpdatePolicy.notInPlace(from, template(app("nginx:1",
        ",\"resources\":{\"requests\":{\"cpu\":\"300m\",\"ephemeral-storage\":\"1Gi\"},\"limits\":{\"memory\":\"2Gi\"}}"))));
  }

  @Test
  void resourcesAreAppliedWhenTheCpuAndMemoryAskedForAreThereWithRequestsDefaultedFromLimits() {
    var wanted = KubeJson.read("{\"limits\":{\"cpu\":\"1\",\"memory\":\"1Gi\"}}",
        io.fabric8.kubernetes.api.model.ResourceRequirements.class);
    var cluster = KubeJson.read("{\"requests\":{\"cpu\":\"1000m\",\"memory\":\"1024Mi\",\"ephemeral-storage\":\"1Gi\"},"
        + "\"limits\":{\"cpu\":\"1\",\"memory\":\"1Gi\"}}", io.fabric8.kubernetes.api.model.ResourceRequirements.class);
    assertTrue(PodUpdatePolicy.resourcesApplied(wanted, cluster), "a LimitRange's additions and the defaulted requests");
    var smaller = KubeJson.read("{\"requests\":{\"cpu\":\"1\",\"memory\":\"512Mi\"},\"limits\":{\"cpu\":\"1\",\"memory\":\"512Mi\"}}",
        io.fabric8.kubernetes.api.model.ResourceRequirements.class);
    Assertions.assertFalse(PodUpdatePolicy.resourcesApplied(wanted, smaller));
  }

  @Test
  void anUpdatedPodKeepsEverythingButItsContainersImagesResourcesAndRevisionLabel() {
    Pod pod = KubeJson.read("""
        {"metadata":{"name":"web-0","labels":{"app":"web","controller-revision-hash":"web-1"},"annotations":{"a":"b"}},
         "spec":{"hostname":"web-0","containers":[{"name":"app","image":"nginx:1","command":["nginx"]}]}}""", Pod.class);
    Pod updated = PodUpdatePolicy.updated(pod, template(app("nginx:2", ",\"resources\":{\"limits\":{\"memory\":\"1Gi\"}}")),
        "web-2");
    assertEquals("nginx:2", updated.getSpec().getContainers().getFirst().getImage());
    assertEquals("1Gi", updated.getSpec().getContainers().getFirst().getResources().getLimits().get("memory").toString());
    assertEquals("web-2", updated.getMetadata().getLabels().get("controller-revision-hash"));
    assertEquals("web-0", updated.getSpec().getHostname());
    assertEquals("b", updated.getMetadata().getAnnotations().get("a"));
    assertEquals("nginx:1", pod.getSpec().getContainers().getFirst().getImage(), "the pod given is not changed");
  }
}
