package io.ordinal.api.openapi;

import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.introspect.BeanPropertyDefinition;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.ser.std.BeanSerializerBase;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.MicroTime;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.RollingUpdateStatefulSetStrategy;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * JSON schemas of fabric8 model classes, read through Jackson (the properties, names and types the
 * API really reads and writes) and named as upstream names the Go types
 * ({@code io.k8s.api.apps.v1.StatefulSet}), so clients that know upstream's documents find their way.
 * One instance collects the schemas of one document: {@link #ref} defines a class and everything
 * it reaches. The model carries no descriptions, so the schemas have none (but for Ordinal's own fields).
 */
final class ModelSchemas {
  /** Where references point and how the two scalar unions are spelled. */
  enum Dialect {
    SWAGGER_2("#/definitions/"),
    OPENAPI_3("#/components/schemas/");

    final String refPrefix;

    Dialect(String refPrefix) {
      this.refPrefix = refPrefix;
    }
  }

  static final String CORE_PACKAGE = "io.fabric8.kubernetes.api.model";

  /** fabric8 packages and the upstream group version of their types. */
  private record ModelPackage(String javaPackage, String group, String version, String schemaPrefix) {}

  private static final Set<ModelPackage> PACKAGES = Set.of(
      new ModelPackage(CORE_PACKAGE, "", "v1", "io.k8s.api.core.v1."),
      new ModelPackage(CORE_PACKAGE + ".apps", "apps", "v1", "io.k8s.api.apps.v1."),
      new ModelPackage(CORE_PACKAGE + ".autoscaling.v1", "autoscaling", "v1", "io.k8s.api.autoscaling.v1."),
      new ModelPackage(CORE_PACKAGE + ".rbac", "rbac.authorization.k8s.io", "v1", "io.k8s.api.rbac.v1."),
      new ModelPackage(CORE_PACKAGE + ".discovery.v1", "discovery.k8s.io", "v1", "io.k8s.api.discovery.v1."));

  /** fabric8 keeps apimachinery's meta/v1 types in its core package; upstream names them apart. */
  private static final Set<String> META_V1 = Set.of("Condition", "DeleteOptions", "FieldsV1", "LabelSelector",
      "LabelSelectorRequirement", "ListMeta", "ManagedFieldsEntry", "MicroTime", "ObjectMeta", "OwnerReference",
      "Preconditions", "Status", "StatusCause", "StatusDetails", "Time", "WatchEvent");
  private static final String META_V1_PREFIX = "io.k8s.apimachinery.pkg.apis.meta.v1.";

  /**
   * Fields Ordinal adds to the upstream types (kept by fabric8 as additional properties, so
   * reflection cannot see them); the same fields {@code UnknownFields.EXTENSIONS} lets through.
   */
  private static final Map<Class<?>, Map<String, ObjectNode>> EXTRA_PROPERTIES = Map.of(
      RollingUpdateStatefulSetStrategy.class, Map.of("paused", JsonNodeFactory.instance.objectNode()
          .put("type", "boolean")
          .put("description", "Ordinal's own field: while true, the rollout replaces no further pod"
              + " (set by POST .../rollout/pause).")));

  /** Stands for upstream's {@code io.k8s.apimachinery.pkg.apis.meta.v1.Patch}, the body of a PATCH: any object. */
  static final class Patch {
    private Patch() {}
  }

  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  private final ObjectMapper mapper;
  private final Dialect dialect;
  private final PatchMetadata patches;
  private final Map<String, ObjectNode> schemas = new TreeMap<>();
  private final Map<String, Class<?>> classes = new LinkedHashMap<>();

  ModelSchemas(ObjectMapper mapper, Dialect dialect, PatchMetadata patches) {
    this.mapper = mapper;
    this.dialect = dialect;
    this.patches = patches;
  }

  /** The schemas defined so far, by name, sorted. */
  Map<String, ObjectNode> schemas() {
    return schemas;
  }

  /** The defined schema of {@code type}, or null. */
  ObjectNode schema(Class<?> type) {
    return schemas.get(name(type));
  }

  /** {@code {"$ref": ...}} to the schema of a model class, defining it and all it reaches first. */
  ObjectNode ref(Class<?> type) {
    String name = name(type);
    Class<?> known = classes.putIfAbsent(name, type);
    if (known == null) {
      schemas.put(name, JSON.objectNode()); // placeholder: a type may reach itself
      schemas.put(name, define(type));
    } else if (known != type) {
      throw new IllegalStateException(type + " and " + known + " would share the schema name " + name);
    }
    return JSON.objectNode().put("$ref", dialect.refPrefix + name);
  }

  /** Upstream's name of the type a fabric8 class stands for. */
  static String name(Class<?> type) {
    if (type == Quantity.class) {
      return "io.k8s.apimachinery.pkg.api.resource.Quantity";
    }
    if (type == IntOrString.class) {
      return "io.k8s.apimachinery.pkg.util.intstr.IntOrString";
    }
    if (type == Patch.class) {
      return META_V1_PREFIX + "Patch";
    }
    if (type.getEnclosingClass() == null) {
      for (ModelPackage p : PACKAGES) {
        if (p.javaPackage().equals(type.getPackageName())) {
          boolean meta = p.javaPackage().equals(CORE_PACKAGE) && META_V1.contains(type.getSimpleName());
          return (meta ? META_V1_PREFIX : p.schemaPrefix()) + type.getSimpleName();
        }
      }
    }
    throw new IllegalArgumentException("no upstream name for " + type.getName());
  }

  /** The fabric8 class of a kind ({@code apps}, {@code v1}, {@code StatefulSet}). */
  static Class<?> modelClass(String group, String version, String kind) {
    for (ModelPackage p : PACKAGES) {
      if (p.group().equals(group) && p.version().equals(version)) {
        try {
          return Class.forName(p.javaPackage() + "." + kind);
        } catch (ClassNotFoundException e) {
          throw new IllegalArgumentException("fabric8 has no class for " + group + "/" + version + " " + kind, e);
        }
      }
    }
    throw new IllegalArgumentException("no fabric8 package for " + group + "/" + version);
  }

  private ObjectNode define(Class<?> type) {
    // The scalars with their own serializers: upstream's shapes for them.
    if (type == Quantity.class) {
      return dialect == Dialect.OPENAPI_3
          ? oneOf("string", "number")
          : JSON.objectNode().put("type", "string");
    }
    if (type == IntOrString.class) {
      ObjectNode schema = dialect == Dialect.OPENAPI_3
          ? oneOf("integer", "string")
          : JSON.objectNode().put("type", "string");
      return schema.put("format", "int-or-string").put("x-kubernetes-int-or-string", true);
    }
    if (type == Patch.class) {
      return JSON.objectNode().put("type", "object");
    }
    if (type == MicroTime.class) {
      return JSON.objectNode().put("type", "string").put("format", "date-time");
    }
    JavaType javaType = mapper.constructType(type);
    try {
      // Anything else written by its own serializer would need a shape of its own here.
      if (!(mapper.getSerializerProviderInstance().findValueSerializer(javaType) instanceof BeanSerializerBase)) {
        throw new IllegalStateException(type.getName() + " is not written as an object; give it a schema here");
      }
    } catch (JsonMappingException e) {
      throw new IllegalStateException(e);
    }
    BeanDescription bean = mapper.getSerializationConfig().introspect(javaType);
    Map<String, ObjectNode> properties = new TreeMap<>(); // sorted, as upstream's documents are
    for (BeanPropertyDefinition property : bean.findProperties()) {
      properties.put(property.getName(), property(type, property.getName(), property.getPrimaryType()));
    }
    EXTRA_PROPERTIES.getOrDefault(type, Map.of()).forEach((name, schema) -> properties.put(name, schema.deepCopy()));
    ObjectNode schema = JSON.objectNode().put("type", "object");
    if (!properties.isEmpty()) {
      schema.putObject("properties").setAll(properties);
    }
    patches.typeExtensions(type).forEach((name, value) -> schema.set(name, mapper.valueToTree(value)));
    return schema;
  }

  /** A property's schema with its patch and list extensions. */
  private ObjectNode property(Class<?> owner, String name, JavaType type) {
    ObjectNode schema = schemaOf(type);
    Map<String, Object> extensions = patches.extensions(owner, name);
    if (extensions.isEmpty()) {
      return schema;
    }
    ObjectNode annotated = schema;
    if (schema.has("$ref") && dialect == Dialect.OPENAPI_3) {
      // OpenAPI 3.0 ignores whatever stands beside a $ref; upstream wraps it the same way.
      annotated = JSON.objectNode();
      annotated.putArray("allOf").add(schema);
    }
    for (Map.Entry<String, Object> extension : extensions.entrySet()) {
      annotated.set(extension.getKey(), mapper.valueToTree(extension.getValue()));
    }
    return annotated;
  }

  private ObjectNode schemaOf(JavaType type) {
    Class<?> raw = type.getRawClass();
    if (type.isCollectionLikeType() || type.isArrayType()) {
      ObjectNode array = JSON.objectNode().put("type", "array");
      array.set("items", schemaOf(type.getContentType()));
      return array;
    }
    if (type.isMapLikeType()) {
      ObjectNode map = JSON.objectNode().put("type", "object");
      map.set("additionalProperties", schemaOf(type.getContentType()));
      return map;
    }
    if (raw == String.class) {
      return JSON.objectNode().put("type", "string");
    }
    if (raw == Integer.class || raw == int.class) {
      return JSON.objectNode().put("type", "integer").put("format", "int32");
    }
    if (raw == Long.class || raw == long.class) {
      return JSON.objectNode().put("type", "integer").put("format", "int64");
    }
    if (raw == Boolean.class || raw == boolean.class) {
      return JSON.objectNode().put("type", "boolean");
    }
    if (raw == Double.class || raw == double.class) {
      return JSON.objectNode().put("type", "number").put("format", "double");
    }
    if (raw == Object.class || JsonNode.class.isAssignableFrom(raw)) {
      // Free-form: ControllerRevision.data, a RawExtension upstream, which is this shape.
      return JSON.objectNode().put("type", "object");
    }
    return ref(raw);
  }

  private static ObjectNode oneOf(String... types) {
    ObjectNode schema = JSON.objectNode();
    ArrayNode alternatives = schema.putArray("oneOf");
    for (String type : types) {
      alternatives.addObject().put("type", type);
    }
    return schema;
  }
}
