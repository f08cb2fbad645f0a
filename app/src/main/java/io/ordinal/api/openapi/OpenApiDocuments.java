package io.ordinal.api.openapi;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.Status;
import io.ordinal.api.discovery.ApiResources;
import io.ordinal.api.discovery.ApiResources.Group;
import io.ordinal.api.discovery.ApiResources.Resource;
import io.ordinal.api.discovery.ApiResources.Subresource;
import io.ordinal.api.openapi.ModelSchemas.Dialect;
import io.ordinal.api.openapi.Operations.Gvk;
import io.ordinal.api.openapi.Operations.Operation;
import io.ordinal.api.openapi.Operations.Param;
import io.ordinal.api.openapi.Operations.PathItem;
import io.ordinal.store.KubeJson;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The API server's OpenAPI documents for what Ordinal serves: the OpenAPI v3 index
 * ({@code /openapi/v3}), an OpenAPI 3.0 document per group version, and a Swagger 2.0 document of
 * all of them ({@code /openapi/v2}), in the shapes kubectl reads (kubectl explain, client-side
 * apply's patch computation, and the check that the server validates fields itself). Made from
 * {@link ApiResources} and the fabric8 model only: the same build always makes the same bytes.
 */
public final class OpenApiDocuments {
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  /** Every group version discovery lists, core first. */
  public static final List<Group> GROUP_VERSIONS = groupVersions();

  private static final Map<Class<?>, Gvk> KINDS = kinds();

  private OpenApiDocuments() {}

  /** A serialized document and its hash (upstream's: SHA-512 of the bytes, upper-case hex). */
  public record Document(String json, String hash) {
    static Document of(JsonNode document) {
      String json = KubeJson.write(document);
      return new Document(json, sha512(json.getBytes(StandardCharsets.UTF_8)));
    }
  }

  /** Upstream's hash of a document (and so its ETag): SHA-512, upper-case hex. */
  static String sha512(byte[] bytes) {
    try {
      return HexFormat.of().withUpperCase().formatHex(MessageDigest.getInstance("SHA-512").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** All documents: the v3 index, the v3 documents by index path ({@code apis/apps/v1}), the v2 document. */
  public record Documents(Document v3Index, Map<String, Document> v3, Document v2) {}

  /** @param version the server's version, for the documents' {@code info} */
  public static Documents generate(String version) {
    Map<String, Document> v3 = new LinkedHashMap<>();
    for (Group group : GROUP_VERSIONS) {
      v3.put(indexPath(group), Document.of(v3(group, version)));
    }
    Map<String, String> hashes = new LinkedHashMap<>();
    v3.forEach((path, document) -> hashes.put(path, document.hash()));
    return new Documents(Document.of(v3Index(hashes)), Map.copyOf(v3), Document.of(v2(version)));
  }

  /** Where the v3 index lists a group version: {@code api/v1}, {@code apis/apps/v1}. */
  public static String indexPath(Group group) {
    return group.name().isEmpty() ? "api/" + group.version() : "apis/" + group.groupVersion();
  }

  /** {@code {"paths": {"apis/apps/v1": {"serverRelativeURL": "/openapi/v3/apis/apps/v1?hash=..."}}}}. */
  static ObjectNode v3Index(Map<String, String> hashes) {
    ObjectNode index = JSON.objectNode();
    ObjectNode paths = index.putObject("paths");
    hashes.forEach((path, hash) ->
        paths.putObject(path).put("serverRelativeURL", "/openapi/v3/" + path + "?hash=" + hash));
    return index;
  }

  /** The OpenAPI 3.0 document of one group version. */
  static ObjectNode v3(Group group, String version) {
    ModelSchemas schemas = new ModelSchemas(KubeJson.JSON, Dialect.OPENAPI_3, KubePatchMetadata.INSTANCE);
    ObjectNode document = JSON.objectNode().put("openapi", "3.0.0");
    info(document, version);
    ObjectNode paths = document.putObject("paths");
    for (PathItem item : Operations.of(group)) {
      ObjectNode path = paths.putObject(item.path());
      for (Operation operation : item.operations()) {
        ObjectNode op = operation(path.putObject(operation.method()), operation, tag(group));
        ArrayNode parameters = JSON.arrayNode();
        operation.query().forEach(p -> v3Parameter(parameters, p.name(), "query", p.type()));
        if (!parameters.isEmpty()) {
          op.set("parameters", parameters);
        }
        if (operation.requestBody() != null) {
          ObjectNode body = op.putObject("requestBody").put("required", true);
          content(body.putObject("content"), operation.requestTypes(), schemas.ref(operation.requestBody()));
        }
        ObjectNode response = op.putObject("responses").putObject(Integer.toString(operation.status()))
            .put("description", description(operation.status()));
        content(response.putObject("content"), operation.responseTypes(), responseSchema(schemas, operation));
        extensions(op, operation);
      }
      if (!item.pathParams().isEmpty()) {
        ArrayNode pathParameters = path.putArray("parameters");
        item.pathParams().forEach(p -> v3Parameter(pathParameters, p, "path", "string"));
      }
    }
    kinds(group).forEach(schemas::ref);
    document.putObject("components").putObject("schemas").setAll(withKinds(schemas));
    return document;
  }

  /** The Swagger 2.0 document of every group version, for clients that still read it. */
  static ObjectNode v2(String version) {
    ModelSchemas schemas = new ModelSchemas(KubeJson.JSON, Dialect.SWAGGER_2, KubePatchMetadata.INSTANCE);
    ObjectNode document = JSON.objectNode().put("swagger", "2.0");
    info(document, version);
    ObjectNode paths = document.putObject("paths");
    for (Group group : GROUP_VERSIONS) {
      for (PathItem item : Operations.of(group)) {
        ObjectNode path = paths.putObject(item.path());
        for (Operation operation : item.operations()) {
          ObjectNode op = operation(path.putObject(operation.method()), operation, tag(group));
          if (operation.requestBody() != null) {
            op.set("consumes", strings(operation.requestTypes()));
          }
          op.set("produces", strings(operation.responseTypes()));
          ArrayNode parameters = JSON.arrayNode();
          for (Param p : operation.query()) {
            parameters.addObject().put("name", p.name()).put("in", "query").put("type", p.type());
          }
          if (operation.requestBody() != null) {
            parameters.addObject().put("name", "body").put("in", "body").put("required", true)
                .set("schema", schemas.ref(operation.requestBody()));
          }
          if (!parameters.isEmpty()) {
            op.set("parameters", parameters);
          }
          op.putObject("responses").putObject(Integer.toString(operation.status()))
              .put("description", description(operation.status()))
              .set("schema", responseSchema(schemas, operation));
          extensions(op, operation);
        }
        if (!item.pathParams().isEmpty()) {
          ArrayNode pathParameters = path.putArray("parameters");
          for (String p : item.pathParams()) {
            pathParameters.addObject().put("name", p).put("in", "path").put("required", true).put("type", "string");
          }
        }
      }
      kinds(group).forEach(schemas::ref);
    }
    document.putObject("definitions").setAll(withKinds(schemas));
    return document;
  }

  /**
   * The top-level kinds the registry knows, by model class: resources, their lists, subresource
   * kinds (Scale) and Status. Their schemas carry {@code x-kubernetes-group-version-kind}, by which
   * kubectl finds the schema of a kind.
   */
  private static Map<Class<?>, Gvk> kinds() {
    Map<Class<?>, Gvk> kinds = new LinkedHashMap<>();
    for (Group group : GROUP_VERSIONS) {
      for (Resource r : group.resources()) {
        kinds.put(ModelSchemas.modelClass(r.group(), r.version(), r.kind()), new Gvk(r.group(), r.version(), r.kind()));
        kinds.put(ModelSchemas.modelClass(r.group(), r.version(), r.kind() + "List"),
            new Gvk(r.group(), r.version(), r.kind() + "List"));
        for (Subresource s : r.subresources()) {
          kinds.put(ModelSchemas.modelClass(s.group(), s.version(), s.kind()), new Gvk(s.group(), s.version(), s.kind()));
        }
      }
    }
    kinds.put(Status.class, new Gvk("", "v1", "Status"));
    return kinds;
  }

  /** The kinds of one group version, whether or not one of its own paths uses them (Scale in autoscaling/v1). */
  private static Set<Class<?>> kinds(Group group) {
    Set<Class<?>> own = new LinkedHashSet<>();
    KINDS.forEach((type, gvk) -> {
      if (gvk.group().equals(group.name()) && gvk.version().equals(group.version()) && !gvk.kind().equals("Status")) {
        own.add(type);
      }
    });
    return own;
  }

  private static Map<String, ObjectNode> withKinds(ModelSchemas schemas) {
    KINDS.forEach((type, gvk) -> {
      ObjectNode schema = schemas.schema(type);
      if (schema != null) {
        schema.putArray("x-kubernetes-group-version-kind").add(gvk.extension());
      }
    });
    return schemas.schemas();
  }

  private static ObjectNode operation(ObjectNode op, Operation operation, String tag) {
    op.put("operationId", operation.id());
    op.putArray("tags").add(tag);
    return op;
  }

  private static void extensions(ObjectNode op, Operation operation) {
    op.put("x-kubernetes-action", operation.action());
    op.set("x-kubernetes-group-version-kind", operation.gvk().extension());
  }

  private static JsonNode responseSchema(ModelSchemas schemas, Operation operation) {
    return operation.responseBody() == null
        ? JSON.objectNode().put("type", "string")
        : schemas.ref(operation.responseBody());
  }

  private static void content(ObjectNode content, List<String> mediaTypes, JsonNode schema) {
    mediaTypes.forEach(type -> content.putObject(type).set("schema", schema));
  }

  private static void v3Parameter(ArrayNode parameters, String name, String in, String type) {
    ObjectNode parameter = parameters.addObject().put("name", name).put("in", in);
    if (in.equals("path")) {
      parameter.put("required", true);
    }
    parameter.putObject("schema").put("type", type);
  }

  private static void info(ObjectNode document, String version) {
    document.putObject("info").put("title", "Ordinal").put("version", version);
  }

  /** Upstream's tag: {@code core_v1}, {@code apps_v1}. */
  private static String tag(Group group) {
    return (group.name().isEmpty() ? "core" : group.name()) + "_" + group.version();
  }

  private static String description(int status) {
    return status == 201 ? "Created" : "OK";
  }

  private static ArrayNode strings(List<String> values) {
    ArrayNode array = JSON.arrayNode();
    values.forEach(array::add);
    return array;
  }

  private static List<Group> groupVersions() {
    List<Group> all = new ArrayList<>();
    all.add(ApiResources.CORE);
    all.addAll(ApiResources.GROUPS);
    return List.copyOf(all);
  }
}
