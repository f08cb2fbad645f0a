package io.ordinal.apimachinery;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.micronaut.http.HttpRequest;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import java.util.List;
import org.junit.jupiter.api.Test;

class KubeCodecTest {
  @Test
  void aBodyDecodedTwiceInOneRequestWarnsAboutEachUnknownFieldOnce() {
    // A PATCH that loses a write race re-applies itself and decodes its result a second time.
    HttpRequest<?> request = HttpRequest.PATCH("/apis/apps/v1/namespaces/default/statefulsets/web", "");
    String body = "{\"metadata\":{\"name\":\"web\",\"colour\":\"blue\"}}";
    KubeCodec.read(request, "application/json", body, StatefulSet.class);
    KubeCodec.read(request, "application/json", body, StatefulSet.class);

    List<String> warnings = KubeCodec.ok(request, "{}").getHeaders().getAll("Warning");
    assertEquals(List.of("299 - \"unknown field \\\"metadata.colour\\\"\""), warnings);
  }
}
