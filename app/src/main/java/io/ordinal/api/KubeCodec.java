package io.ordinal.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.MediaType;
import io.micronaut.http.MutableHttpResponse;
import io.ordinal.store.KubeJson;
import java.util.List;
import java.util.Locale;

/** Reads request bodies and writes responses as JSON or YAML, by Content-Type and Accept. */
public final class KubeCodec {
  public static final String YAML = "application/yaml";
  public static final String MERGE_PATCH = "application/merge-patch+json";
  public static final String JSON_PATCH = "application/json-patch+json";
  static final List<String> BODY_TYPES = List.of(MediaType.APPLICATION_JSON, YAML);

  private KubeCodec() {}

  /** Parses a body sent as JSON or YAML; 415 for other media types, 400 for a malformed body. */
  public static <T> T read(HttpRequest<?> request, String body, Class<T> type) {
    return read(mediaType(request), body, type);
  }

  static <T> T read(String mediaType, String body, Class<T> type) {
    ObjectMapper mapper = switch (mediaType) {
      case "", MediaType.APPLICATION_JSON -> KubeJson.JSON;
      case YAML, "application/x-yaml", "text/yaml" -> KubeJson.YAML;
      default -> throw ApiException.unsupportedMediaType(mediaType, BODY_TYPES);
    };
    if (body == null || body.isBlank()) {
      throw ApiException.badRequest("the request body is empty");
    }
    try {
      T value = mapper.readValue(body, type);
      if (value == null) {
        throw ApiException.badRequest("the request body is empty");
      }
      return value;
    } catch (JsonMappingException e) {
      String path = e.getPath().stream()
          .map(ref -> ref.getFieldName() != null ? ref.getFieldName() : "[" + ref.getIndex() + "]")
          .reduce("", (a, b) -> a.isEmpty() || b.startsWith("[") ? a + b : a + "." + b);
      throw ApiException.badRequest("the request body could not be decoded"
          + (path.isEmpty() ? "" : " at " + path) + ": " + e.getOriginalMessage());
    } catch (JsonProcessingException e) {
      throw ApiException.badRequest("the request body could not be decoded: " + e.getOriginalMessage());
    }
  }

  /** The request's media type without parameters, lower case; "" when absent. */
  static String mediaType(HttpRequest<?> request) {
    return request.getHeaders().get("Content-Type", String.class)
        .map(v -> v.split(";")[0].trim().toLowerCase(Locale.ROOT)).orElse("");
  }

  /** 200 with the object, as YAML when the client prefers it, else JSON. */
  public static MutableHttpResponse<String> ok(HttpRequest<?> request, Object body) {
    return respond(request, 200, body);
  }

  public static MutableHttpResponse<String> respond(HttpRequest<?> request, int code, Object body) {
    boolean yaml = wantsYaml(request);
    try {
      String text = yaml ? KubeJson.YAML.writeValueAsString(body) : KubeJson.JSON.writeValueAsString(body);
      return HttpResponse.<String>status(io.micronaut.http.HttpStatus.valueOf(code))
          .contentType(yaml ? YAML : MediaType.APPLICATION_JSON)
          .body(text);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  static boolean wantsYaml(HttpRequest<?> request) {
    for (MediaType accepted : request.accept()) {
      String name = accepted.getName().toLowerCase(Locale.ROOT);
      if (name.equals(YAML) || name.equals("application/x-yaml") || name.equals("text/yaml")) {
        return true;
      }
      if (name.equals(MediaType.APPLICATION_JSON)) {
        return false;
      }
    }
    return false;
  }
}
