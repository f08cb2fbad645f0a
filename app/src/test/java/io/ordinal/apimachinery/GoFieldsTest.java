package io.ordinal.apimachinery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import io.ordinal.store.KubeJson;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class GoFieldsTest {

  /** The Python client's models refused a created set's "status": {} (replicas is required). */
  @Test
  void aSetsStatusCountersArePresentAsUpstreamWritesThem() {
    JsonNode set = GoFields.tree(new StatefulSetBuilder().withApiVersion("apps/v1").withKind("StatefulSet")
        .withNewMetadata().withName("web").endMetadata().withNewSpec().withServiceName("web").endSpec()
        .withNewStatus().endStatus().build());
    assertEquals(0, set.at("/status/replicas").asInt(-1), set.toString());
    assertEquals(0, set.at("/status/availableReplicas").asInt(-1), set.toString());
    assertFalse(set.at("/status").has("readyReplicas"), "omitempty in Go: " + set);
  }

  /** ... and a pod list whose container statuses lacked imageID (required). */
  @Test
  void aListsItemsGetTheirContainerStatusesFields() {
    var pod = new PodBuilder().withApiVersion("v1").withKind("Pod").withNewMetadata().withName("p").endMetadata()
        .withNewStatus().addNewContainerStatus().withName("c").withImage("i").endContainerStatus().endStatus().build();
    Map<String, Object> list = Map.of("apiVersion", "v1", "kind", "PodList", "metadata", Map.of(), "items", List.of(pod));
    JsonNode tree = GoFields.tree(list);
    JsonNode status = tree.at("/items/0/status/containerStatuses/0");
    assertEquals("", status.path("imageID").asText("missing"), tree.toString());
    assertEquals(0, status.path("restartCount").asInt(-1));
    assertFalse(status.path("ready").asBoolean(true));
    assertEquals("{}", status.path("state").toString(), "a struct value is always written");
  }

  /** In a spec as anywhere: a container's resources {}, a claim template's status {}, serviceName "". */
  @Test
  void aSpecGetsTheFieldsGoAlwaysWritesToo() {
    JsonNode set = GoFields.tree(new StatefulSetBuilder().withApiVersion("apps/v1").withKind("StatefulSet")
        .withNewMetadata().withName("web").endMetadata().withNewSpec().withNewTemplate().withNewSpec()
        .addNewContainer().withName("c").endContainer().endSpec().endTemplate()
        .addNewVolumeClaimTemplate().withNewMetadata().withName("www").endMetadata().endVolumeClaimTemplate().endSpec()
        .build());
    assertEquals("{}", set.at("/spec/template/spec/containers/0/resources").toString(), set.toString());
    assertEquals("{}", set.at("/spec/volumeClaimTemplates/0/status").toString(), set.toString());
    assertEquals("{}", set.at("/spec/volumeClaimTemplates/0/spec/resources").toString(), set.toString());
    assertEquals("", set.at("/spec/serviceName").asText("missing"), set.toString());
    assertFalse(set.at("/spec/template/metadata").has("creationTimestamp"), "omitzero since Kubernetes 1.34: " + set);
    assertFalse(set.at("/spec").has("selector"), "a nil pointer's null adds nothing: " + set);
  }

  @Test
  void whatAnObjectHasIsKeptAndUnknownKindsAreLeftAlone() {
    JsonNode map = GoFields.tree(new ConfigMapBuilder().withApiVersion("v1").withKind("ConfigMap").withNewMetadata()
        .withName("m").endMetadata().withData(Map.of("k", "v")).build());
    assertEquals("v", map.at("/data/k").asText());
    JsonNode other = KubeJson.JSON.valueToTree(Map.of("apiVersion", "x/v1", "kind", "Thing"));
    GoFields.fill(other);
    assertEquals(2, other.size());
  }
}
