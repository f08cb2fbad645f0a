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
 * the model keeps already. Only an object's own scalars and what is below its status (the server's)
 * are filled: in a spec, a filled field would come back in a PUT of what a GET gave, and a pod
 * template, a claim template or an immutable field compared as written would then differ from
 * the stored one (a new revision, a refused update) though nothing changed.
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
        fillRoot(object, type);
      }
    }
  }

  /**
   * An API object (or a list of them, whose items are objects in turn): its own scalar fields, and
   * everything below its status, which the server owns; nothing inside what a client writes back.
   */
  private static void fillRoot(ObjectNode node, String type) {
    for (Field field : TYPES.getOrDefault(type, List.of())) {
      if (field.name().equals("items") && type.endsWith("List")) {
        fillField(node, field, false, true);
      } else if (field.name().equals("status")) {
        fillField(node, field, true, false);
      } else if (field.zero() != null && field.zero().isValueNode() && !node.has(field.name())) {
        node.set(field.name(), field.zero().deepCopy());
      }
    }
  }

  private static void fill(ObjectNode node, String type, boolean structs) {
    for (Field field : TYPES.getOrDefault(type, List.of())) {
      fillField(node, field, structs, false);
    }
  }

  private static void fillField(ObjectNode node, Field field, boolean structs, boolean roots) {
    JsonNode value = node.get(field.name());
    if (value == null && field.zero() != null && (structs || field.zero().isValueNode())) {
      value = field.zero().deepCopy();
      node.set(field.name(), value);
    }
    if (value == null || field.type() == null) {
      return;
    }
    switch (field.shape()) {
      case "list" -> value.forEach(element -> fillObject(element, field.type(), structs, roots));
      case "map" -> value.properties().forEach(entry -> fillObject(entry.getValue(), field.type(), structs, false));
      default -> fillObject(value, field.type(), structs, false);
    }
  }

  private static void fillObject(JsonNode node, String type, boolean structs, boolean root) {
    if (node instanceof ObjectNode object) {
      if (root) {
        fillRoot(object, type);
      } else {
        fill(object, type, structs);
      }
    }
  }
}
