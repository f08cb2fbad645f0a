package io.ordinal.apimachinery;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.ordinal.kube.GoTypes;
import io.ordinal.store.KubeJson;

/**
 * The fields upstream's Go types always serialize (no {@code omitempty}, or a struct value), filled
 * into a response that lacks them with their zero value: a created set's {@code status.replicas}
 * 0, a container status's {@code imageID} "", a container's {@code resources} {}, a set's
 * {@code serviceName} "". Clients generated from upstream's types and OpenAPI (the official Python
 * client's models) require them. Which fields, and their zeros, come from upstream's Go types
 * themselves ({@link GoTypes}); zeros that are JSON null (nil pointers, slices, maps) add nothing and
 * are left out, as is everything the model keeps already. A PUT of what a GET gave is no change:
 * specs, templates and immutable fields are compared as Go reads them.
 */
public final class GoFields {

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
      GoTypes.ofKind(object.path("apiVersion").asText(), object.path("kind").asText())
          .ifPresent(type -> fill(object, type));
    }
  }

  private static void fill(ObjectNode node, String type) {
    for (GoTypes.Field field : GoTypes.fields(type)) {
      JsonNode value = node.get(field.name());
      if (value == null && field.always() && field.zero() != null && !field.zero().isNull()) {
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
