package io.ordinal.api.openapi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.UnknownFieldSet;
import io.ordinal.store.KubeJson;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The encoder read back field by field with protobuf-java's UnknownFieldSet, by the field numbers
 * of gnostic's OpenAPIv2.proto. (That the bytes are gnostic's own encoding of the same JSON is
 * checked against gnostic itself: deploy/kube/openapi-v2-proto, run by ApiIT.)
 */
class OpenApiV2ProtobufTest {
  private static final JsonNode SERVED = KubeJson.read(OpenApiDocuments.generate("v1.32.0").v2().json(), JsonNode.class);

  /** A decoded message: its fields by number. */
  private record Msg(UnknownFieldSet fields) {
    static Msg of(byte[] bytes) {
      try {
        return new Msg(UnknownFieldSet.parseFrom(bytes));
      } catch (InvalidProtocolBufferException e) {
        throw new AssertionError(e);
      }
    }

    List<Msg> all(int field) {
      List<Msg> messages = new ArrayList<>();
      for (ByteString bytes : fields.getField(field).getLengthDelimitedList()) {
        messages.add(of(bytes.toByteArray()));
      }
      return messages;
    }

    Msg get(int field) {
      List<Msg> messages = all(field);
      assertEquals(1, messages.size(), "field " + field + " of " + fields);
      return messages.get(0);
    }

    boolean has(int field) {
      return fields.hasField(field);
    }

    String string(int field) {
      List<ByteString> values = fields.getField(field).getLengthDelimitedList();
      return values.isEmpty() ? "" : values.get(0).toStringUtf8();
    }

    List<String> strings(int field) {
      return fields.getField(field).getLengthDelimitedList().stream().map(ByteString::toStringUtf8).toList();
    }

    List<Long> varints(int field) {
      return fields.getField(field).getVarintList();
    }

    /** The value of the Named* entry called {@code name} among the repeated {@code field}. */
    Msg named(int field, String name) {
      for (Msg entry : all(field)) {
        if (entry.string(1).equals(name)) {
          return entry.get(2);
        }
      }
      throw new AssertionError("no " + name + " in field " + field);
    }

    /** A vendor extension's Any.yaml. */
    String extension(int field, String name) {
      return named(field, name).string(2);
    }
  }

  private static Msg encode(String json) {
    return Msg.of(OpenApiV2Protobuf.encode(KubeJson.read(json, JsonNode.class)));
  }

  private static void assertUnencoded(String json, String what) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> OpenApiV2Protobuf.encode(KubeJson.read(json, JsonNode.class)));
    assertTrue(e.getMessage().contains(what), e.getMessage());
  }

  private static String doc(String definitions) {
    return "{\"swagger\":\"2.0\",\"info\":{\"title\":\"t\",\"version\":\"v\"},\"paths\":{},\"definitions\":{" + definitions + "}}";
  }

  @Test
  void theServedDocumentIsEncodedWhole() {
    Msg document = Msg.of(OpenApiV2Protobuf.encode(SERVED));
    assertEquals("2.0", document.string(1));
    assertEquals(List.of("Ordinal", "v1.32.0"), List.of(document.get(2).string(1), document.get(2).string(2)));

    // Paths and definitions in document order, all of them.
    List<String> paths = document.get(8).all(2).stream().map(p -> p.string(1)).toList();
    List<String> jsonPaths = new ArrayList<>();
    SERVED.get("paths").fieldNames().forEachRemaining(jsonPaths::add);
    assertEquals(jsonPaths, paths);
    List<String> definitions = document.get(9).all(1).stream().map(d -> d.string(1)).toList();
    List<String> jsonDefinitions = new ArrayList<>();
    SERVED.get("definitions").fieldNames().forEachRemaining(jsonDefinitions::add);
    assertEquals(jsonDefinitions, definitions);

    // A kind's schema: type object, properties, its group-version-kind as YAML.
    Msg set = document.get(9).named(1, "io.k8s.api.apps.v1.StatefulSet");
    assertEquals(List.of("object"), set.get(22).strings(1));
    assertEquals("#/definitions/io.k8s.api.apps.v1.StatefulSetSpec", set.get(25).named(1, "spec").string(1));
    assertEquals("- group: apps\n  kind: StatefulSet\n  version: v1\n",
        set.extension(31, "x-kubernetes-group-version-kind"));
    assertEquals("- group: \"\"\n  kind: Pod\n  version: v1\n",
        document.get(9).named(1, "io.k8s.api.core.v1.Pod").extension(31, "x-kubernetes-group-version-kind"));

    // Patch metadata on a property, items of an array, a map's additionalProperties, a format.
    Msg podSpec = document.get(9).named(1, "io.k8s.api.core.v1.PodSpec");
    Msg containers = podSpec.get(25).named(1, "containers");
    assertEquals(List.of("array"), containers.get(22).strings(1));
    assertEquals("#/definitions/io.k8s.api.core.v1.Container", containers.get(23).get(1).string(1));
    assertEquals("merge\n", containers.extension(31, "x-kubernetes-patch-strategy"));
    assertEquals("name\n", containers.extension(31, "x-kubernetes-patch-merge-key"));
    Msg nodeSelector = podSpec.get(25).named(1, "nodeSelector");
    assertEquals(List.of("string"), nodeSelector.get(21).get(1).get(22).strings(1));
    assertEquals("int64", podSpec.get(25).named(1, "activeDeadlineSeconds").string(2));
    Msg ports = document.get(9).named(1, "io.k8s.api.core.v1.Container").get(25).named(1, "ports");
    assertEquals("- containerPort\n- protocol\n", ports.extension(31, "x-kubernetes-list-map-keys"));
    Msg intOrString = document.get(9).named(1, "io.k8s.apimachinery.pkg.util.intstr.IntOrString");
    assertEquals("int-or-string", intOrString.string(2));
    assertEquals("true\n", intOrString.extension(31, "x-kubernetes-int-or-string"));

    // An operation: its parameters (query, body; the path's own on the path item), responses, extensions.
    Msg item = document.get(8).named(2, "/apis/apps/v1/namespaces/{namespace}/statefulsets/{name}");
    Msg put = item.get(3);
    assertEquals("replaceAppsV1NamespacedStatefulSet", put.string(5));
    assertEquals(List.of("apps_v1"), put.strings(1));
    assertEquals(List.of("application/json", "application/yaml"), put.strings(7));
    List<Msg> parameters = put.all(8);
    Msg dryRun = parameters.get(0).get(1).get(2).get(3); // Parameter > NonBodyParameter > query
    assertEquals(List.of("dryRun", "query", "string"), List.of(dryRun.string(4), dryRun.string(2), dryRun.string(6)));
    Msg body = parameters.get(parameters.size() - 1).get(1).get(1); // Parameter > BodyParameter
    assertEquals(List.of("body", "body"), List.of(body.string(2), body.string(3)));
    assertEquals(List.of(1L), body.varints(4));
    assertEquals("#/definitions/io.k8s.api.apps.v1.StatefulSet", body.get(5).string(1));
    Msg ok = put.get(9).named(1, "200").get(1); // ResponseValue > Response
    assertEquals("OK", ok.string(1));
    assertEquals("#/definitions/io.k8s.api.apps.v1.StatefulSet", ok.get(2).get(1).string(1)); // SchemaItem > Schema
    assertEquals("put\n", put.extension(13, "x-kubernetes-action"));
    assertEquals("group: apps\nkind: StatefulSet\nversion: v1\n", put.extension(13, "x-kubernetes-group-version-kind"));
    Msg name = item.all(9).get(0).get(1).get(2).get(4); // Parameter > NonBodyParameter > path
    assertEquals(List.of("name", "path", "string"), List.of(name.string(4), name.string(2), name.string(5)));
    assertEquals(List.of(1L), name.varints(1));
    // The log answers text: a schema of type string.
    Msg log = document.get(8).named(2, "/api/v1/namespaces/{namespace}/pods/{name}/log").get(2);
    assertEquals(List.of("string"), log.get(9).named(1, "200").get(1).get(2).get(1).get(22).strings(1));
  }

  @Test
  void everyShapeOfTheMessagesIsWrittenAsGnosticReadsIt() {
    Msg document = encode(doc("""
        "a": {"type": ["string", "null"], "additionalProperties": false, "items": [{"type": "string"}, {"$ref": "#/x"}],
              "allOf": [{"$ref": "#/y"}], "properties": {}, "required": ["p", ""], "readOnly": true, "title": "T",
              "description": "", "x-e": {}},
        "b": {"additionalProperties": true}"""));
    Msg a = document.get(9).named(1, "a");
    assertEquals(List.of("string", "null"), a.get(22).strings(1));
    assertEquals(List.of(0L), a.get(21).varints(2)); // a oneof's false is written
    assertEquals(List.of(1L), document.get(9).named(1, "b").get(21).varints(2));
    assertEquals(List.of("#/x"), a.get(23).all(1).get(1).strings(1));
    assertEquals("#/y", a.get(24).string(1));
    assertTrue(a.has(25) && a.get(25).fields().asMap().isEmpty(), "an empty properties is there, empty");
    assertEquals(List.of("p", ""), a.strings(19));
    assertEquals(List.of(1L), a.varints(27));
    assertEquals("T", a.string(3));
    assertTrue(!a.has(4), "an empty string is proto3's default: left out");
    assertEquals("{}\n", a.extension(31, "x-e"));

    Msg paths = encode("""
        {"swagger": "2.0", "info": {"title": "t", "version": "v", "x-i": 1}, "x-d": [],
         "paths": {"x-p": "v", "/p": {"parameters": [{"$ref": "#/parameters/q"}],
           "get": {"responses": {"default": {"$ref": "#/responses/r"}, "x-r": null},
             "parameters": [
               {"name": "h", "in": "header", "type": "string", "required": true, "x-h": true},
               {"name": "f", "in": "formData", "type": "string", "allowEmptyValue": true, "collectionFormat": "csv"},
               {"name": "q", "in": "query", "type": "array", "format": "f"}]}}}}""");
    assertEquals("1\n", paths.get(2).extension(7, "x-i"));
    assertEquals("[]\n", paths.extension(16, "x-d"));
    assertEquals("v\n", paths.get(8).extension(1, "x-p"));
    Msg p = paths.get(8).named(2, "/p");
    assertEquals("#/parameters/q", p.get(9).get(2).string(1)); // ParametersItem > JsonReference
    Msg get = p.get(2);
    assertEquals("#/responses/r", get.get(9).named(1, "default").get(2).string(1)); // ResponseValue > JsonReference
    assertEquals("null\n", get.get(9).extension(2, "x-r"));
    Msg header = get.all(8).get(0).get(1).get(2).get(1);
    assertEquals(List.of("h", "header", "string"), List.of(header.string(4), header.string(2), header.string(5)));
    assertEquals("true\n", header.extension(22, "x-h"));
    Msg form = get.all(8).get(1).get(1).get(2).get(2);
    assertEquals(List.of("f", "formData", "string", "csv"),
        List.of(form.string(4), form.string(2), form.string(6), form.string(9)));
    assertEquals(List.of(1L), form.varints(5));
    Msg query = get.all(8).get(2).get(1).get(2).get(3);
    assertEquals(List.of("array", "f"), List.of(query.string(6), query.string(7)));
  }

  @Test
  void whatIsNotEncodedFailsRatherThanBeingDropped() {
    assertUnencoded(doc("\"a\": {\"enum\": [\"x\"]}"), "enum is not encoded");
    assertUnencoded(doc("\"a\": {\"default\": 1}"), "default is not encoded");
    assertUnencoded(doc("\"a\": {\"type\": 1}"), "type that is not a string");
    assertUnencoded(doc("\"a\": {\"additionalProperties\": \"x\"}"), "additionalProperties \"x\" is not encoded");
    assertUnencoded(doc("\"a\": {\"x-k\": [[\"nested\"]]}"), "a sequence in a sequence");
    assertUnencoded(doc("\"a\": {\"x-k\": [{\"m\": {\"n\": 1}}]}"), "a collection in a mapping in a sequence");
    assertUnencoded(doc("\"a\": {\"x-k\": \"two\\nlines\"}"), "control characters");
    assertUnencoded(doc("").replace("\"definitions\"", "\"tags\":[],\"definitions\""), "tags is not encoded");
    assertUnencoded(doc("").replace("\"title\"", "\"license\":{},\"title\""), "license is not encoded");
    assertUnencoded(doc("").replace("\"paths\":{}", "\"paths\":{\"p\":{}}"), "paths: p is not encoded");
    String op = "{\"swagger\":\"2.0\",\"info\":{\"title\":\"t\",\"version\":\"v\"},\"paths\":{\"/p\":{\"get\":%s}}}";
    assertUnencoded(op.formatted("{\"responses\":{},\"externalDocs\":{}}"), "externalDocs is not encoded");
    assertUnencoded(op.formatted("{\"responses\":{\"200\":{\"description\":\"d\",\"headers\":{}}}}"), "headers is not encoded");
    assertUnencoded(op.formatted("{\"responses\":{\"200\":{\"description\":\"d\",\"schema\":{\"type\":\"file\"}}}}"),
        "a file schema");
    assertUnencoded(op.formatted("{\"responses\":{\"ok\":{}}}"), "responses: ok is not encoded");
    assertUnencoded(op.formatted("{\"responses\":{},\"parameters\":[{\"name\":\"c\",\"in\":\"cookie\",\"type\":\"string\"}]}"),
        "a parameter in cookie");
    assertUnencoded(op.formatted("{\"responses\":{},\"parameters\":[{\"name\":\"q\",\"in\":\"query\",\"type\":\"array\","
        + "\"items\":{\"type\":\"string\"}}]}"), "items is not encoded");
    // What gnostic requires (or it fails to read the document, and upstream to serve it).
    assertUnencoded(op.formatted("{}"), "lacks responses");
    assertUnencoded(op.formatted("{\"responses\":{},\"parameters\":[{\"name\":\"n\",\"in\":\"path\",\"type\":\"string\"}]}"),
        "lacks required");
    assertUnencoded(op.formatted("{\"responses\":{},\"parameters\":[{\"name\":\"b\",\"in\":\"body\"}]}"), "lacks schema");
  }

  /** What gnostic's compiler.Marshal (go-yaml v3) writes for the same values, as go-yaml printed it. */
  @Test
  void extensionsAreWrittenAsGoYamlWritesThem() {
    assertEquals("- group: \"\"\n  kind: Pod\n  version: v1\n",
        yaml("[{\"group\":\"\",\"kind\":\"Pod\",\"version\":\"v1\"}]"));
    assertEquals("group: \"\"\nkind: Pod\nversion: v1\n", yaml("{\"group\":\"\",\"kind\":\"Pod\",\"version\":\"v1\"}"));
    assertEquals("- a\n- b\n", yaml("[\"a\",\"b\"]"));
    assertEquals("merge,retainKeys\n", yaml("\"merge,retainKeys\""));
    assertEquals("true\n", yaml("true"));
    assertEquals("a:\n    b: c\nl:\n    - x\ne: {}\nf: []\nn: null\nd: \"2001-12-14\"\nm: 'a: b'\nnum: 1.5\n",
        yaml("{\"a\":{\"b\":\"c\"},\"l\":[\"x\"],\"e\":{},\"f\":[],\"n\":null,\"d\":\"2001-12-14\",\"m\":\"a: b\",\"num\":1.5}"));
    // Strings: plain, double-quoted where plain would read as another type, single-quoted where
    // plain would not read back.
    String[][] strings = {{"true", "\"true\""}, {"1", "\"1\""}, {"0x1F", "\"0x1F\""}, {"1_000", "\"1_000\""},
        {"1.5e3", "\"1.5e3\""}, {"2001-1-2", "\"2001-1-2\""}, {"it's", "it's"}, {"a b", "a b"}, {"-x", "-x"},
        {"yes", "yes"}, {"1abc", "1abc"}, {"a,b", "a,b"}, {"?x", "?x"}, {"a #b", "'a #b'"}, {"x:", "'x:'"},
        {"-", "'-'"}, {"@a", "'@a'"}, {" a", "' a'"}};
    for (String[] string : strings) {
      assertEquals(string[1] + "\n", GoYaml.write(KubeJson.JSON.getNodeFactory().textNode(string[0])), string[0]);
    }
  }

  private static String yaml(String json) {
    return GoYaml.write(KubeJson.read(json, JsonNode.class));
  }
}
