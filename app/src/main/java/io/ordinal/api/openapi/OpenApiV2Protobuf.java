package io.ordinal.api.openapi;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.protobuf.CodedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The Swagger 2.0 document in protobuf, as gnostic's {@code openapi_v2.Document}
 * (gnostic-models' openapiv2/OpenAPIv2.proto): what upstream's apiserver answers on
 * {@code /openapi/v2} to client-go's {@code DiscoveryClient.OpenAPISchema()}, which asks for
 * nothing else. The JSON maps to the messages as gnostic's {@code openapi_v2.NewDocument} maps it:
 * named maps become repeated {@code Named*} entries in document order, {@code $ref} is
 * {@code _ref}, {@code type} a {@code TypeItem}, {@code x-*} extensions {@code NamedAny} whose
 * {@code Any.yaml} holds the value as go-yaml v3 writes it, parameters are a body or a non-body
 * sub-schema by {@code in}, and so on; fields in field-number order and proto3 defaults left out,
 * as Go's proto.Marshal writes them, so the bytes are those upstream would send for this JSON.
 *
 * <p>Written by hand over {@link CodedOutputStream} rather than generated from the .proto: the
 * document uses a dozen of its messages, and generating would need protoc in the (offline) build.
 * Only what the service's document uses is encoded; any other key, or a value of another shape,
 * throws rather than being dropped, so a new construct in the document fails the build's tests.
 */
final class OpenApiV2Protobuf {
  private OpenApiV2Protobuf() {}

  /** Responses keys gnostic reads as status codes. */
  private static final Pattern RESPONSE_CODE = Pattern.compile("^([0-9]{3})$|^(default)$");

  /** The document as gnostic's openapi_v2.Document. */
  static byte[] encode(JsonNode document) {
    Obj doc = new Obj(document, "$root", Set.of("swagger", "info", "host", "basePath", "schemes", "consumes",
        "produces", "paths", "definitions"), "info", "paths", "swagger");
    Message m = new Message()
        .string(1, doc.string("swagger"))
        .message(2, info(doc.object("info")))
        .string(3, doc.string("host"))
        .string(4, doc.string("basePath"))
        .strings(5, doc.strings("schemes"))
        .strings(6, doc.strings("consumes"))
        .strings(7, doc.strings("produces"))
        .message(8, paths(doc.object("paths")))
        .message(9, definitions(doc.object("definitions")));
    return m.extensions(16, doc).toByteArray();
  }

  private static Message info(Obj info) {
    if (info == null) {
      return null;
    }
    info.require(Set.of("title", "version", "description", "termsOfService"), "title", "version");
    return new Message()
        .string(1, info.string("title"))
        .string(2, info.string("version"))
        .string(3, info.string("description"))
        .string(4, info.string("termsOfService"))
        .extensions(7, info);
  }

  /** Paths: the extensions (field 1) and the paths by their keys, which start with "/" (field 2). */
  private static Message paths(Obj paths) {
    if (paths == null) {
      return null;
    }
    Message m = new Message().extensions(1, paths);
    for (Map.Entry<String, JsonNode> path : paths.entries()) {
      if (path.getKey().startsWith("x-")) {
        continue;
      }
      if (!path.getKey().startsWith("/")) {
        throw unencoded(paths.where, path.getKey());
      }
      m.message(2, named(path.getKey(), pathItem(new Obj(path.getValue(), paths.where + "/" + path.getKey()))));
    }
    return m;
  }

  private static Message pathItem(Obj item) {
    item.require(Set.of("$ref", "get", "put", "post", "delete", "options", "head", "patch", "parameters"));
    Message m = new Message().string(1, item.string("$ref"));
    int field = 2;
    for (String method : List.of("get", "put", "post", "delete", "options", "head", "patch")) {
      m.message(field++, operation(item.object(method)));
    }
    for (Obj parameter : item.objects("parameters")) {
      m.message(9, parametersItem(parameter));
    }
    return m.extensions(10, item);
  }

  private static Message operation(Obj op) {
    if (op == null) {
      return null;
    }
    op.require(Set.of("tags", "summary", "description", "operationId", "produces", "consumes", "parameters",
        "responses", "schemes", "deprecated"), "responses");
    Message m = new Message()
        .strings(1, op.strings("tags"))
        .string(2, op.string("summary"))
        .string(3, op.string("description"))
        .string(5, op.string("operationId"))
        .strings(6, op.strings("produces"))
        .strings(7, op.strings("consumes"));
    for (Obj parameter : op.objects("parameters")) {
      m.message(8, parametersItem(parameter));
    }
    return m.message(9, responses(op.object("responses")))
        .strings(10, op.strings("schemes"))
        .bool(11, op.bool("deprecated"))
        .extensions(13, op);
  }

  /** ParametersItem: a JsonReference (field 2) if it has {@code $ref}, else a Parameter (field 1). */
  private static Message parametersItem(Obj parameter) {
    if (parameter.has("$ref")) {
      return new Message().oneof(2, jsonReference(parameter));
    }
    return new Message().oneof(1, parameter(parameter));
  }

  private static Message jsonReference(Obj reference) {
    reference.require(Set.of("$ref", "description"), "$ref");
    if (reference.hasExtensions()) {
      throw unencoded(reference.where, "an x- extension beside $ref");
    }
    return new Message().string(1, reference.string("$ref")).string(2, reference.string("description"));
  }

  /** Parameter: a BodyParameter (field 1) when {@code in} is body, else a NonBodyParameter (field 2). */
  private static Message parameter(Obj p) {
    String in = p.string("in");
    if ("body".equals(in)) {
      p.require(Set.of("description", "name", "in", "required", "schema"), "in", "name", "schema");
      Message body = new Message()
          .string(1, p.string("description"))
          .string(2, p.string("name"))
          .string(3, in)
          .bool(4, p.bool("required"))
          .message(5, schema(p.object("schema")))
          .extensions(6, p);
      return new Message().oneof(1, body);
    }
    // NonBodyParameter's oneof: header 1, formData 2, query 3, path 4. Their fields share one
    // numbering but for allowEmptyValue (query and formData only), which shifts the rest by one.
    int subSchema = switch (in == null ? "" : in) {
      case "header" -> 1;
      case "formData" -> 2;
      case "query" -> 3;
      case "path" -> 4;
      default -> throw unencoded(p.where, "a parameter in " + in);
    };
    boolean allowEmpty = subSchema == 2 || subSchema == 3;
    Set<String> keys = allowEmpty
        ? Set.of("required", "in", "description", "name", "allowEmptyValue", "type", "format", "collectionFormat")
        : Set.of("required", "in", "description", "name", "type", "format", "collectionFormat");
    if (subSchema == 4) {
      p.require(keys, "in", "name", "type", "required"); // gnostic's path sub-schema requires "required"
    } else {
      p.require(keys, "in", "name", "type");
    }
    int shift = allowEmpty ? 1 : 0;
    Message sub = new Message()
        .bool(1, p.bool("required"))
        .string(2, in)
        .string(3, p.string("description"))
        .string(4, p.string("name"));
    if (allowEmpty) {
      sub.bool(5, p.bool("allowEmptyValue"));
    }
    sub.string(5 + shift, p.string("type"))
        .string(6 + shift, p.string("format"))
        .string(8 + shift, p.string("collectionFormat"))
        .extensions(22 + shift, p);
    return new Message().oneof(2, new Message().oneof(subSchema, sub));
  }

  /** Responses: the status codes (field 1) and extensions (field 2). */
  private static Message responses(Obj responses) {
    if (responses == null) {
      return null;
    }
    Message m = new Message();
    for (Map.Entry<String, JsonNode> response : responses.entries()) {
      String code = response.getKey();
      if (code.startsWith("x-")) {
        continue;
      }
      if (!RESPONSE_CODE.matcher(code).matches()) {
        throw unencoded(responses.where, code);
      }
      Obj value = new Obj(response.getValue(), responses.where + "/" + code);
      // ResponseValue: a JsonReference (field 2) or a Response (field 1).
      Message responseValue = value.has("$ref")
          ? new Message().oneof(2, jsonReference(value))
          : new Message().oneof(1, response(value));
      m.message(1, named(code, responseValue));
    }
    return m.extensions(2, responses);
  }

  private static Message response(Obj response) {
    response.require(Set.of("description", "schema"), "description");
    Message m = new Message().string(1, response.string("description"));
    Obj schema = response.object("schema");
    if (schema != null) {
      if ("file".equals(schema.node.path("type").asText())) {
        throw unencoded(schema.where, "a file schema");
      }
      m.message(2, new Message().oneof(1, schema(schema))); // SchemaItem's schema
    }
    return m.extensions(5, response);
  }

  private static Message definitions(Obj definitions) {
    if (definitions == null) {
      return null;
    }
    Message m = new Message();
    for (Map.Entry<String, JsonNode> definition : definitions.entries()) {
      m.message(1, named(definition.getKey(),
          schema(new Obj(definition.getValue(), definitions.where + "/" + definition.getKey()))));
    }
    return m;
  }

  private static Message schema(Obj s) {
    if (s == null) {
      return null;
    }
    s.require(Set.of("$ref", "format", "title", "description", "required", "additionalProperties", "type", "items",
        "allOf", "properties", "readOnly"));
    Message m = new Message()
        .string(1, s.string("$ref"))
        .string(2, s.string("format"))
        .string(3, s.string("title"))
        .string(4, s.string("description"))
        .strings(19, s.strings("required"));
    JsonNode additional = s.node.get("additionalProperties");
    if (additional != null) {
      // AdditionalPropertiesItem: a schema (field 1) or a boolean (field 2, written even when false).
      Message item = new Message();
      if (additional.isObject()) {
        item.oneof(1, schema(new Obj(additional, s.where + "/additionalProperties")));
      } else if (additional.isBoolean()) {
        item.oneofBool(2, additional.booleanValue());
      } else {
        throw unencoded(s.where, "additionalProperties " + additional);
      }
      m.message(21, item);
    }
    JsonNode type = s.node.get("type");
    if (type != null) {
      // TypeItem: one type or several.
      m.message(22, new Message().strings(1, type.isArray() ? s.strings("type") : List.of(s.string("type"))));
    }
    JsonNode items = s.node.get("items");
    if (items != null) {
      // ItemsItem: one schema or a list of them.
      Message item = new Message();
      if (items.isArray()) {
        for (Obj each : s.objects("items")) {
          item.message(1, schema(each));
        }
      } else {
        item.message(1, schema(s.object("items")));
      }
      m.message(23, item);
    }
    for (Obj each : s.objects("allOf")) {
      m.message(24, schema(each));
    }
    Obj properties = s.object("properties");
    if (properties != null) {
      Message named = new Message();
      for (Map.Entry<String, JsonNode> property : properties.entries()) {
        named.message(1, named(property.getKey(),
            schema(new Obj(property.getValue(), properties.where + "/" + property.getKey()))));
      }
      m.message(25, named);
    }
    return m.bool(27, s.bool("readOnly")).extensions(31, s);
  }

  /** A Named* entry: the key (field 1) and the value (field 2). */
  private static Message named(String name, Message value) {
    return new Message().string(1, name).message(2, value);
  }

  private static IllegalArgumentException unencoded(String where, String what) {
    return new IllegalArgumentException(where + ": " + what + " is not encoded in openapi_v2 protobuf");
  }

  /** A JSON object being read, with where it is (for errors). */
  private static final class Obj {
    final JsonNode node;
    final String where;

    Obj(JsonNode node, String where) {
      if (node == null || !node.isObject()) {
        throw unencoded(where, "a value that is not an object (" + node + ")");
      }
      this.node = node;
      this.where = where;
    }

    /** Checked as {@link #require}. */
    Obj(JsonNode node, String where, Set<String> keys, String... required) {
      this(node, where);
      require(keys, required);
    }

    /** Throws on a key but {@code x-} extensions not among {@code keys}, or a missing required key. */
    void require(Set<String> keys, String... required) {
      for (Iterator<String> names = node.fieldNames(); names.hasNext(); ) {
        String name = names.next();
        if (!keys.contains(name) && !name.startsWith("x-")) {
          throw unencoded(where, name);
        }
      }
      for (String name : required) {
        if (!node.has(name)) {
          throw new IllegalArgumentException(where + " lacks " + name + ", which gnostic requires");
        }
      }
    }

    boolean has(String key) {
      return node.has(key);
    }

    boolean hasExtensions() {
      for (Iterator<String> names = node.fieldNames(); names.hasNext(); ) {
        if (names.next().startsWith("x-")) {
          return true;
        }
      }
      return false;
    }

    List<Map.Entry<String, JsonNode>> entries() {
      List<Map.Entry<String, JsonNode>> entries = new ArrayList<>();
      node.fields().forEachRemaining(entries::add);
      return entries;
    }

    String string(String key) {
      JsonNode value = node.get(key);
      if (value == null) {
        return null;
      }
      if (!value.isTextual()) {
        throw unencoded(where, key + " that is not a string (" + value + ")");
      }
      return value.textValue();
    }

    boolean bool(String key) {
      JsonNode value = node.get(key);
      if (value == null) {
        return false;
      }
      if (!value.isBoolean()) {
        throw unencoded(where, key + " that is not a boolean (" + value + ")");
      }
      return value.booleanValue();
    }

    List<String> strings(String key) {
      JsonNode value = node.get(key);
      if (value == null) {
        return List.of();
      }
      if (!value.isArray()) {
        throw unencoded(where, key + " that is not a list (" + value + ")");
      }
      List<String> strings = new ArrayList<>();
      for (JsonNode each : value) {
        if (!each.isTextual()) {
          throw unencoded(where, key + " with an item that is not a string (" + each + ")");
        }
        strings.add(each.textValue());
      }
      return strings;
    }

    Obj object(String key) {
      JsonNode value = node.get(key);
      return value == null ? null : new Obj(value, where + "/" + key);
    }

    List<Obj> objects(String key) {
      JsonNode value = node.get(key);
      if (value == null) {
        return List.of();
      }
      if (!value.isArray()) {
        throw unencoded(where, key + " that is not a list (" + value + ")");
      }
      List<Obj> objects = new ArrayList<>();
      for (int i = 0; i < value.size(); i++) {
        objects.add(new Obj(value.get(i), where + "/" + key + "/" + i));
      }
      return objects;
    }
  }

  /**
   * A message being written. Scalars at their proto3 default (empty, false) are left out, as Go
   * writes them; a sub-message is written whenever it is there, even empty.
   */
  private static final class Message {
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final CodedOutputStream out = CodedOutputStream.newInstance(bytes);

    Message string(int field, String value) {
      if (value != null && !value.isEmpty()) {
        write(() -> out.writeString(field, value));
      }
      return this;
    }

    /** A repeated string: every item, empty or not. */
    Message strings(int field, List<String> values) {
      for (String value : values) {
        write(() -> out.writeString(field, value));
      }
      return this;
    }

    Message bool(int field, boolean value) {
      if (value) {
        write(() -> out.writeBool(field, true));
      }
      return this;
    }

    /** A oneof's bool: written when chosen, even false. */
    Message oneofBool(int field, boolean value) {
      write(() -> out.writeBool(field, value));
      return this;
    }

    Message message(int field, Message value) {
      if (value != null) {
        byte[] encoded = value.toByteArray();
        write(() -> out.writeByteArray(field, encoded));
      }
      return this;
    }

    Message oneof(int field, Message value) {
      return message(field, value);
    }

    /** The object's {@code x-} keys, in document order, as NamedAny with the value as YAML. */
    Message extensions(int field, Obj object) {
      for (Map.Entry<String, JsonNode> entry : object.entries()) {
        if (entry.getKey().startsWith("x-")) {
          Message any = new Message().string(2, GoYaml.write(entry.getValue()));
          message(field, new Message().string(1, entry.getKey()).message(2, any));
        }
      }
      return this;
    }

    byte[] toByteArray() {
      write(out::flush);
      return bytes.toByteArray();
    }

    private interface Write {
      void run() throws IOException;
    }

    private static void write(Write write) {
      try {
        write.run();
      } catch (IOException e) {
        throw new UncheckedIOException(e); // a ByteArrayOutputStream does not fail
      }
    }
  }
}
