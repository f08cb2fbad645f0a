package io.ordinal.api;

import io.ordinal.apimachinery.KubeCodec;
import io.ordinal.apimachinery.ApiException;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.swagger.v3.oas.annotations.Hidden;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

/** Serves the OpenAPI 3 document that micronaut-openapi generates from these controllers at compile time. */
@Controller
@Hidden
public class OpenApiController {
  static final String DOCUMENT = "META-INF/swagger/ordinal-0.1.0.yml";

  @Get(value = "/openapi.yaml", produces = KubeCodec.YAML)
  public HttpResponse<String> openapi() throws IOException {
    try (InputStream in = getClass().getClassLoader().getResourceAsStream(DOCUMENT)) {
      if (in == null) {
        throw ApiException.of(404, "NotFound", "no OpenAPI document was generated into this build");
      }
      return HttpResponse.ok(new String(in.readAllBytes(), StandardCharsets.UTF_8)).contentType(KubeCodec.YAML);
    }
  }
}
