package io.ordinal.kube;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ClaimSizesTest {
  static PersistentVolumeClaim claim(String name, String storage) {
    return new PersistentVolumeClaimBuilder().withNewMetadata().withName(name).endMetadata()
        .withNewSpec().withNewResources().addToRequests("storage", new Quantity(storage)).endResources().endSpec().build();
  }

  @Test
  void aClaimGrowsToItsTemplateAndNeverShrinks() {
    assertEquals(Optional.of(new Quantity("2Gi")), ClaimSizes.grown(claim("data-web-0", "1Gi"), claim("data", "2Gi")));
    assertEquals(Optional.empty(), ClaimSizes.grown(claim("data-web-0", "2Gi"), claim("data", "1Gi")));
    assertEquals(Optional.empty(), ClaimSizes.grown(claim("data-web-0", "1024Mi"), claim("data", "1Gi")), "same bytes");
  }

  @Test
  void aClaimIsMatchedToItsTemplateByName() {
    StatefulSet set = new StatefulSetBuilder().withNewMetadata().withName("web").endMetadata().withNewSpec()
        .addToVolumeClaimTemplates(claim("data", "1Gi"), claim("logs", "1Gi")).endSpec().build();
    assertEquals("logs", ClaimSizes.template(set, "logs-web-3", 3).orElseThrow().getMetadata().getName());
    assertEquals(Optional.empty(), ClaimSizes.template(set, "logs-web-3", 4));
    assertEquals(Optional.empty(), ClaimSizes.template(set, "cache-web-3", 3));
  }
}
