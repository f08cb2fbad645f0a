package io.ordinal.apimachinery;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.ordinal.store.KubeJson;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The fields upstream's Go types always serialize (no {@code omitempty}, or a struct value), filled
 * into a response that lacks them with their zero value: a created set's {@code status.replicas}
 * 0, a container status's {@code imageID} "". Clients generated from upstream's types and OpenAPI
 * (the official Python client's models) require them. Which fields, and their zeros, come from
 * upstream's Go types themselves ({@code go-fields.json}, written by deploy/kube/go-fields); zeros
 * that are JSON null (nil pointers, slices, maps) add nothing and are left out, as is everything
 * the model keeps already.
 */
public final class GoFields {
  private record Field(String name, JsonNode zero, String type, String shape) {}

  private static final Map<String, String> KINDS = new HashMap<>();
  private static final Map<String, List<Field>> TYPES = new HashMap<>();

  static {
    try (InputStream in = GoFields.class.getResourceAsStream("go-fields.json")) {
      JsonNode root = KubeJson.JSON.readTree(in);
      root.path("kinds").properties().forEach(e -> KINDS.put(e.getKey(), e.getValue().asText()));
      root.path("types").properties().forEach(type -> {
        List<Field> fields = new ArrayList<>();
        for (JsonNode f : type.getValue()) {
          JsonNode zero = f.path("always").asBoolean() && f.has("zero") && !f.get("zero").isNull() ? f.get("zero") : null;
          String below = f.path("type").asText("");
          if (zero != null || !below.isEmpty()) {
            fields.add(new Field(f.path("name").asText(), zero, below.isEmpty() ? null : below, f.path("shape").asText("")));
          }
        }
        TYPES.put(type.getKey(), fields);
      });
    } catch (IOException e) {
      throw new UncheckedIOException("go-fields.json is not readable", e);
    }
  }

  private GoFields() {}

  /** The JSON of {@code object} (an API object, list or Status) with the fields Go always writes. */
  public static JsonNode tree(Object object) {
    JsonNode tree = KubeJson.JSON.valueToTree(object);
    fill(tree);
    return tree;
  }

  /** Fills what {@code tree} lacks, if its apiVersion and kind are of a served kind; else leaves it. */
  public static void fill(JsonNode tree) {
    if (tree instanceof ObjectNode object) {
      String type = KINDS.get(object.path("apiVersion").asText() + "/" + object.path("kind").asText());
      if (type != null) {
        fill(object, type);
      }
    }
  }

  private static void fill(ObjectNode node, String type) {
    for (Field field : TYPES.getOrDefault(type, List.of())) {
      JsonNode value = node.get(field.name());
      if (value == null && field.zero() != null) {
        value = field.zero().deepCopy();
        node.set(field.name(), value);
      }
      if (value == null || field.type() == null) {
        continue;
      }
      switch (field.shape()) {
        case "list" -> value.forEach(element -> fillObject(element, field.type()));
        case "map" -> value.properties().forEach(entry -> fillObject(entry.getValue(), field.type()));
        default -> fillObject(value, field.type());
      }
    }
  }

  private static void fillObject(JsonNode node, String type) {
    if (node instanceof ObjectNode object) {
      fill(object, type);
    }
  }
}
