package io.ordinal.api.openapi;

import static io.ordinal.api.openapi.KubeOpenApiController.PROTOBUF;
import static io.ordinal.api.openapi.KubeOpenApiController.PROTOBUF_DEPRECATED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class KubeOpenApiControllerTest {
  @Test
  void jsonIsServedToClientsThatAcceptIt() {
    assertTrue(KubeOpenApiController.acceptsJson(null));
    assertTrue(KubeOpenApiController.acceptsJson(""));
    assertTrue(KubeOpenApiController.acceptsJson("application/json"));
    assertTrue(KubeOpenApiController.acceptsJson("application/json, */*"));
    assertTrue(KubeOpenApiController.acceptsJson("application/com.github.proto-openapi.spec.v3@v1.0+protobuf, application/*;q=0.5"));
    assertTrue(KubeOpenApiController.acceptsJson("*/*"));
  }

  @Test
  void aClientThatAcceptsOnlyProtobufIsRefusedJson() {
    // client-go asks /openapi/v2 this way: served protobuf there, and refused by the v3 documents.
    assertFalse(KubeOpenApiController.acceptsJson("application/com.github.proto-openapi.spec.v2@v1.0+protobuf"));
    assertFalse(KubeOpenApiController.acceptsJson("application/json;q=0, application/yaml"));
  }

  @Test
  void v2IsServedInTheTypeKubeOpenApiWouldChoose() {
    List<String> offers = List.of("application/json", PROTOBUF_DEPRECATED, PROTOBUF);
    // client-go's OpenAPISchema() asks so, and gets protobuf.
    assertEquals(PROTOBUF_DEPRECATED, KubeOpenApiController.negotiate(PROTOBUF_DEPRECATED, offers));
    assertEquals(PROTOBUF, KubeOpenApiController.negotiate(PROTOBUF, offers));
    assertEquals("application/json", KubeOpenApiController.negotiate(null, offers));
    assertEquals("application/json", KubeOpenApiController.negotiate("*/*", offers));
    assertEquals("application/json", KubeOpenApiController.negotiate("application/*", offers));
    // The highest q first; at the same q, a concrete type before a wildcard.
    assertEquals("application/json",
        KubeOpenApiController.negotiate(PROTOBUF_DEPRECATED + ";q=0.5, application/json", offers));
    assertEquals(PROTOBUF, KubeOpenApiController.negotiate("application/json;q=0.9, " + PROTOBUF, offers));
    assertEquals(PROTOBUF_DEPRECATED, KubeOpenApiController.negotiate("*/*, " + PROTOBUF_DEPRECATED, offers));
    assertNull(KubeOpenApiController.negotiate("text/plain", offers));
    assertNull(KubeOpenApiController.negotiate(PROTOBUF + ";q=0", offers));
  }

  @Test
  void gzipIsSentToClientsThatAcceptIt() {
    assertTrue(KubeOpenApiController.acceptsGzip("gzip")); // what Go's transport sends
    assertTrue(KubeOpenApiController.acceptsGzip("deflate, gzip;q=0.5"));
    assertTrue(KubeOpenApiController.acceptsGzip("*"));
    assertFalse(KubeOpenApiController.acceptsGzip(""));
    assertFalse(KubeOpenApiController.acceptsGzip("identity"));
    assertFalse(KubeOpenApiController.acceptsGzip("gzip;q=0"));
  }
}
