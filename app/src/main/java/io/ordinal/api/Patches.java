package io.ordinal.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import io.micronaut.http.HttpRequest;
import io.ordinal.patch.StrategicMergePatch;
import io.ordinal.apimachinery.ApiException;
import io.ordinal.apimachinery.KubeCodec;
import io.ordinal.store.KubeJson;
import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonException;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import jakarta.json.JsonString;
import jakarta.json.JsonStructure;
import jakarta.json.JsonValue;
import java.io.StringReader;
import java.util.List;

/**
 * PATCH bodies: JSON Merge Patch (RFC 7386) and JSON Patch (RFC 6902), applied with JSON-P, and
 * Kubernetes strategic merge patches.
 */
final class Patches {
  private Patches() {}

  /** Applies the request's patch to {@code current} and returns the patched object. */
  static <T> T apply(HttpRequest<?> request, String body, T current, Class<T> type) {
    String mediaType = KubeCodec.mediaType(request);
    if (mediaType.equals(KubeCodec.STRATEGIC_MERGE_PATCH)) {
      return KubeCodec.read(request, "application/json", strategic(body, current, type), type);
    }
    JsonValue target = parse(KubeJson.write(current));
    JsonValue patched;
    try {
      patched = switch (mediaType) {
        case KubeCodec.MERGE_PATCH -> Json.createMergePatch(parse(body)).apply(target);
        case KubeCodec.JSON_PATCH -> {
          JsonValue patch = parse(body);
          if (!(patch instanceof JsonArray array)) {
            throw ApiException.badRequest("a JSON patch must be an array of operations");
          }
          checkOperations(array);
          yield Json.createPatch(array).apply((JsonStructure) target);
        }
        default -> throw ApiException.unsupportedMediaType(mediaType, KubeCodec.SUBRESOURCE_PATCH_TYPES);
      };
    } catch (JsonException | ClassCastException | IllegalArgumentException e) {
      throw ApiException.badRequest("the patch could not be applied: " + e.getMessage());
    }
    return KubeCodec.read(request, "application/json", patched.toString(), type);
  }

  /**
   * Each operation an object with a string {@code op} and {@code path} ({@code from} too for a move
   * or copy): JSON-P reads them without a
   * check and fails with a NullPointerException on {@code [{}]}.
   */
  private static void checkOperations(JsonArray operations) {
    for (int i = 0; i < operations.size(); i++) {
      if (!(operations.get(i) instanceof JsonObject operation)) {
        throw ApiException.badRequest("the patch could not be applied: operation " + i + " is not an object");
      }
      String op = operation.get("op") instanceof JsonString name ? name.getString() : "";
      for (String member : op.equals("move") || op.equals("copy") ? List.of("op", "path", "from") : List.of("op", "path")) {
        if (!(operation.get(member) instanceof JsonString)) {
          throw ApiException.badRequest("the patch could not be applied: operation " + i + " has no string '" + member + "'");
        }
      }
    }
  }

  /** A strategic merge patch, with the merge keys of the object's type, as kubectl sends for apply and edit. */
  private static String strategic(String body, Object current, Class<?> type) {
    if (body == null || body.isBlank()) {
      throw ApiException.badRequest("the request body is empty");
    }
    JsonNode patch;
    try {
      patch = KubeJson.JSON.readTree(body);
    } catch (JsonProcessingException e) {
      throw ApiException.badRequest("the patch is not valid JSON: " + e.getOriginalMessage());
    }
    try {
      return StrategicMergePatch.apply(KubeJson.JSON.valueToTree(current), patch, type).toString();
    } catch (IllegalArgumentException e) {
      throw ApiException.badRequest("the patch could not be applied: " + e.getMessage());
    }
  }

  private static JsonValue parse(String text) {
    if (text == null || text.isBlank()) {
      throw ApiException.badRequest("the request body is empty");
    }
    try (JsonReader reader = Json.createReader(new StringReader(text))) {
      return reader.readValue();
    } catch (JsonException e) {
      throw ApiException.badRequest("the patch is not valid JSON: " + e.getMessage());
    }
  }
}
