package io.ordinal.patch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JavaType;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetSpec;
import io.ordinal.patch.PatchStrategies.FieldPatch;
import io.ordinal.store.KubeJson;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class PatchStrategiesTest {

  @Test
  void everyTaggedPropertyIsAListOfItsClass() {
    List<String> wrong = new ArrayList<>();
    PatchStrategies.table().forEach((owner, fields) -> fields.keySet().forEach(property -> {
      JavaType type = PatchStrategies.propertyType(KubeJson.JSON.constructType(owner), property);
      if (type == null || !type.isCollectionLikeType()) {
        wrong.add(owner.getSimpleName() + "." + property);
      }
    }));
    assertEquals(List.of(), wrong);
  }

  @Test
  void mergeKeysAndStrategiesAreUpstreams() {
    assertEquals(new FieldPatch("merge", "name"), PatchStrategies.of(PodSpec.class, "containers"));
    assertEquals(new FieldPatch("merge", "containerPort"), PatchStrategies.of(Container.class, "ports"));
    assertEquals(new FieldPatch("merge", "mountPath"), PatchStrategies.of(Container.class, "volumeMounts"));
    assertEquals(new FieldPatch("merge", "uid"), PatchStrategies.of(ObjectMeta.class, "ownerReferences"));
    FieldPatch volumes = PatchStrategies.of(PodSpec.class, "volumes");
    assertTrue(volumes.merge() && volumes.retainKeys() && !volumes.replace());
    FieldPatch finalizers = PatchStrategies.of(ObjectMeta.class, "finalizers");
    assertTrue(finalizers.merge());
    assertNull(finalizers.mergeKey());
    // Atomic upstream: no tag.
    assertEquals(FieldPatch.NONE, PatchStrategies.of(PodSpec.class, "tolerations"));
    assertEquals(FieldPatch.NONE, PatchStrategies.of(StatefulSetSpec.class, "volumeClaimTemplates"));
    assertFalse(FieldPatch.NONE.merge());
  }

  @Test
  void childClassWalksListsMapsAndObjects() {
    assertEquals(StatefulSetSpec.class, PatchStrategies.childClass(StatefulSet.class, "spec"));
    assertEquals(PodTemplateSpec.class, PatchStrategies.childClass(StatefulSetSpec.class, "template"));
    assertEquals(Container.class, PatchStrategies.childClass(PodSpec.class, "containers"));
    assertEquals(EnvVar.class, PatchStrategies.childClass(Container.class, "env"));
    assertEquals(Volume.class, PatchStrategies.childClass(PodSpec.class, "volumes"));
    assertEquals(String.class, PatchStrategies.childClass(ObjectMeta.class, "labels"));
    assertEquals(Quantity.class, PatchStrategies.childClass(ResourceRequirements.class, "limits"));
    assertNull(PatchStrategies.childClass(PodSpec.class, "noSuchField"));
  }
}
