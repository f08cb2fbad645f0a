package io.ordinal.patch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.apps.StatefulSetSpec;
import io.ordinal.patch.ListTypes.ListType;
import io.ordinal.store.KubeJson;
import org.junit.jupiter.api.Test;

class ListTypesTest {

  @Test
  void everyMarkedPropertyExists() {
    ListTypes.declared().forEach((owner, fields) -> fields.keySet().forEach(property ->
        assertTrue(PatchStrategies.elementType(KubeJson.JSON.constructType(owner), property) != null,
            owner.getSimpleName() + "." + property + " is a list")));
  }

  @Test
  void markersWinAndPatchStrategiesFillIn() {
    assertEquals(ListType.map("containerPort", "protocol"), ListTypes.of(Container.class, "ports"));
    assertEquals(ListType.map("mountPath"), ListTypes.of(Container.class, "volumeMounts"));
    assertEquals(ListType.ATOMIC, ListTypes.of(Container.class, "args"));
    assertEquals(ListType.ATOMIC, ListTypes.of(StatefulSetSpec.class, "volumeClaimTemplates"));
    assertEquals(ListType.SET, ListTypes.of(ObjectMeta.class, "finalizers"));
    // No marker here: merge with a key is a map list, as schemaconv reads it.
    assertNull(ListTypes.declared(PodStatus.class, "podIPs"));
    assertEquals(ListType.map("ip"), ListTypes.of(PodStatus.class, "podIPs"));
    assertEquals(ListType.ATOMIC, ListTypes.of(PodSpec.class, "tolerations"));
    assertTrue(ListTypes.atomicStruct(LabelSelector.class));
    assertFalse(ListTypes.atomicStruct(Container.class));
    assertTrue(ListTypes.atomicMap(PodSpec.class, "nodeSelector"));
    assertEquals("TCP", ListTypes.keyDefault(ContainerPort.class, "protocol"));
  }
}
