package io.ordinal.apimachinery;

import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.introspect.BeanPropertyDefinition;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.FieldsV1;
import io.ordinal.store.KubeJson;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Fields a request body has that the API type does not, found by walking the body along the
 * type's Jackson properties. Kubernetes drops them (and warns, or refuses under
 * {@code fieldValidation=Strict}); fabric8's model would otherwise keep them as additional properties.
 */
public final class UnknownFields {
  /** Fields Ordinal adds to the upstream types (the OpenAPI documents describe them too). */
  public static final Set<String> EXTENSIONS = Set.of("spec.updateStrategy.rollingUpdate.paused");
  private static final String MODEL_PACKAGE = "io.fabric8.kubernetes.api.model";

  private UnknownFields() {}

  /** Removes the unknown fields from {@code body} and returns their paths ({@code spec.template.spec.containers[0].foo}). */
  public static List<String> strip(JsonNode body, Class<?> type) {
    List<String> unknown = new ArrayList<>();
    walk(body, KubeJson.JSON.constructType(type), "", unknown);
    unknown.sort(null);
    return unknown;
  }

  private static void walk(JsonNode node, JavaType type, String path, List<String> unknown) {
    if (node == null || node.isNull()) {
      return;
    }
    if (type.isMapLikeType()) {
      node.properties().forEach(e -> walk(e.getValue(), type.getContentType(), path + "[" + e.getKey() + "]", unknown));
      return;
    }
    if (type.isCollectionLikeType() || type.isArrayType()) {
      for (int i = 0; i < node.size(); i++) {
        walk(node.get(i), type.getContentType(), path + "[" + i + "]", unknown);
      }
      return;
    }
    if (!node.isObject() || !type.getRawClass().getName().startsWith(MODEL_PACKAGE)
        || type.getRawClass() == FieldsV1.class) {
      return; // scalars, IntOrString and Quantity as strings, free-form objects (managedFields' fieldsV1)
    }
    Map<String, JavaType> properties = properties(type);
    Iterator<Map.Entry<String, JsonNode>> fields = ((ObjectNode) node).fields();
    while (fields.hasNext()) {
      Map.Entry<String, JsonNode> field = fields.next();
      String child = path.isEmpty() ? field.getKey() : path + "." + field.getKey();
      JavaType fieldType = properties.get(field.getKey());
      if (fieldType != null) {
        walk(field.getValue(), fieldType, child, unknown);
      } else if (!EXTENSIONS.contains(child)) {
        unknown.add(child);
        fields.remove();
      }
    }
  }

  /** Introspection is the costly part of a write's body check; the model's types do not change. */
  private static final Map<JavaType, Map<String, JavaType>> PROPERTIES = new java.util.concurrent.ConcurrentHashMap<>();

  private static Map<String, JavaType> properties(JavaType type) {
    return PROPERTIES.computeIfAbsent(type, UnknownFields::introspect);
  }

  private static Map<String, JavaType> introspect(JavaType type) {
    BeanDescription bean = KubeJson.JSON.getDeserializationConfig().introspect(type);
    Map<String, JavaType> byName = new HashMap<>();
    for (BeanPropertyDefinition property : bean.findProperties()) {
      byName.put(property.getName(), property.getPrimaryType());
    }
    return Map.copyOf(byName);
  }
}
