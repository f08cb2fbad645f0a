package io.ordinal.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.fabric8.kubernetes.api.model.Namespace;
import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.Test;

class NamespaceProtobufTest {
  @Test
  void readsNameAndLabels() {
    Namespace ns = NamespaceProtobuf.read(NamespaceProtobuf.write("team-a", Map.of("pod-security.kubernetes.io/enforce", "restricted")));
    assertEquals("team-a", ns.getMetadata().getName());
    assertEquals(Map.of("pod-security.kubernetes.io/enforce", "restricted"), ns.getMetadata().getLabels());
  }

  @Test
  void truncatedOrForeignBodiesAreBadRequests() {
    byte[] body = NamespaceProtobuf.write("team-a", Map.of());
    assertEquals(400, assertThrows(ApiException.class, () -> NamespaceProtobuf.read(Arrays.copyOf(body, body.length - 3))).code());
    assertEquals(400, assertThrows(ApiException.class, () -> NamespaceProtobuf.read("{}".getBytes())).code());
  }
}
