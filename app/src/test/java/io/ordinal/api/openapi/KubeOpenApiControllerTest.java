package io.ordinal.api.openapi;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
  void aClientThatAcceptsOnlyProtobufIsRefused() {
    // client-go's OpenAPISchema() asks /openapi/v2 this way; a 406 makes kubectl fall back.
    assertFalse(KubeOpenApiController.acceptsJson("application/com.github.proto-openapi.spec.v2@v1.0+protobuf"));
    assertFalse(KubeOpenApiController.acceptsJson("application/json;q=0, application/yaml"));
  }
}
