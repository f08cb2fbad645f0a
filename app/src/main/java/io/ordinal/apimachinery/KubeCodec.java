package io.ordinal.apimachinery;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MediaType;
import io.micronaut.http.MutableHttpResponse;
import io.micronaut.http.context.ServerRequestContext;
import io.ordinal.store.KubeJson;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/** Reads request bodies and writes responses as JSON or YAML, by Content-Type and Accept. */
public final class KubeCodec {
  public static final String YAML = "application/yaml";
  public static final String MERGE_PATCH = "application/merge-patch+json";
  public static final String JSON_PATCH = "application/json-patch+json";
  public static final String STRATEGIC_MERGE_PATCH = "application/strategic-merge-patch+json";
  /** A server-side apply: the applied configuration, YAML or JSON. */
  public static final String APPLY_PATCH = "application/apply-patch+yaml";
  public static final List<String> BODY_TYPES = List.of(MediaType.APPLICATION_JSON, YAML);
  /**
   * The patch types PATCH takes (keep the {@code @Patch} consumes in step). The OpenAPI documents list
   * them: kubectl apply computes its patch from the document only once this holds
   * {@code application/strategic-merge-patch+json}.
   */
  public static final List<String> PATCH_TYPES = List.of(STRATEGIC_MERGE_PATCH, MERGE_PATCH, JSON_PATCH, APPLY_PATCH);
  /** The patch types of the scale and status subresources: no server-side apply there. */
  public static final List<String> SUBRESOURCE_PATCH_TYPES = List.of(STRATEGIC_MERGE_PATCH, MERGE_PATCH, JSON_PATCH);
  /** Request attribute: warnings for the response's Warning headers. */
  private static final String WARNINGS = "ordinal.warnings";
  private static final int MAX_WARNINGS = 32;
  /** Long enough for a Pod Security warning listing several checks; the API server caps a warning near 4 KiB. */
  private static final int MAX_WARNING_LENGTH = 2048;

  private KubeCodec() {}

  /**
   * Parses a body sent as JSON or YAML; 415 for other media types, 400 for a malformed body. Fields
   * the type does not have are dropped with a {@code Warning} header, ignored, or refused, as the
   * request's {@code fieldValidation} (Warn, the default, Ignore or Strict) asks, like Kubernetes.
   */
  public static <T> T read(HttpRequest<?> request, String body, Class<T> type) {
    return read(request, mediaType(request), body, type);
  }

  public static <T> T read(HttpRequest<?> request, String mediaType, String body, Class<T> type) {
    ObjectMapper mapper = switch (mediaType) {
      case "", MediaType.APPLICATION_JSON -> KubeJson.JSON;
      case YAML, "application/x-yaml", "text/yaml" -> KubeJson.YAML;
      default -> throw ApiException.unsupportedMediaType(mediaType, BODY_TYPES);
    };
    if (body == null || body.isBlank()) {
      throw ApiException.badRequest("the request body is empty");
    }
    try {
      JsonNode tree = mapper.readTree(body);
      if (tree == null || tree.isMissingNode() || tree.isNull()) {
        throw ApiException.badRequest("the request body is empty");
      }
      List<String> unknown = tree.isObject() ? UnknownFields.strip(tree, type) : List.of();
      if (!unknown.isEmpty()) {
        switch (fieldValidation(request)) {
          case "Strict" -> throw ApiException.badRequest("strict decoding error: " + String.join(", ",
              unknown.stream().map(f -> "unknown field \"" + f + "\"").toList()));
          case "Warn" -> {
            // A set: a PATCH that re-applies after a write conflict decodes its result again, and
            // the API server sends each distinct warning once.
            Set<String> warnings = new LinkedHashSet<>(request.getAttribute(WARNINGS, Set.class).orElse(Set.of()));
            unknown.forEach(f -> warnings.add("unknown field \"" + f + "\""));
            request.setAttribute(WARNINGS, warnings);
          }
          default -> { } // Ignore
        }
      }
      return mapper.treeToValue(tree, type);
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

  /** Adds a warning to the current request's response (a {@code Warning} header), once. */
  public static void warn(String warning) {
    ServerRequestContext.currentRequest().ifPresent(request -> {
      Set<String> warnings = new LinkedHashSet<>(request.getAttribute(WARNINGS, Set.class).orElse(Set.of()));
      warnings.add(warning);
      request.setAttribute(WARNINGS, warnings);
    });
  }

  /** {@code ?fieldValidation=}: Warn unless the client asks otherwise. */
  private static String fieldValidation(HttpRequest<?> request) {
    String value = request.getParameters().get("fieldValidation");
    if (value == null || value.isEmpty()) {
      return "Warn";
    }
    if (!List.of("Ignore", "Warn", "Strict").contains(value)) {
      throw ApiException.badRequest("fieldValidation must be Ignore, Warn or Strict, not \"" + value + "\"");
    }
    return value;
  }

  /** The request's media type without parameters, lower case; "" when absent. */
  public static String mediaType(HttpRequest<?> request) {
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
      Object written = body instanceof String ? body : GoFields.tree(body);
      String text = yaml ? KubeJson.YAML.writeValueAsString(written) : KubeJson.JSON.writeValueAsString(written);
      MutableHttpResponse<String> response = HttpResponse.<String>status(HttpStatus.valueOf(code))
          .contentType(yaml ? YAML : MediaType.APPLICATION_JSON)
          .body(text);
      Set<?> warnings = request.getAttribute(WARNINGS, Set.class).orElse(Set.of());
      // RFC 7234 warn-code 299 ("miscellaneous persistent warning"), as the API server sends them.
      warnings.stream().limit(MAX_WARNINGS)
          .forEach(w -> response.getHeaders().add("Warning", "299 - \"" + headerSafe(w.toString()) + "\""));
      return response;
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * A warning as a header value: quotes and backslashes escaped, anything outside printable ASCII
   * written as {@code \\uXXXX} (field names come from the client and may hold anything), truncated.
   */
  public static String headerSafe(String text) {
    StringBuilder out = new StringBuilder();
    for (char c : text.toCharArray()) {
      if (out.length() >= MAX_WARNING_LENGTH) {
        return out.append("...").toString();
      }
      if (c == '"' || c == '\\') {
        out.append('\\').append(c);
      } else if (c < 0x20 || c > 0x7e) {
        out.append(String.format("\\u%04x", (int) c));
      } else {
        out.append(c);
      }
    }
    return out.toString();
  }

  public static boolean wantsYaml(HttpRequest<?> request) {
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
