package io.ordinal.apimachinery;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.protobuf.CodedInputStream;
import com.google.protobuf.WireFormat;
import io.micronaut.http.HttpRequest;
import io.ordinal.store.KubeJson;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;

/**
 * Request bodies in Kubernetes' protobuf encoding ({@code application/vnd.kubernetes.protobuf}),
 * turned into the JSON the rest of the API reads. kubectl's typed clients (kubectl create rolebinding,
 * kubectl auth can-i and whoami) send their objects so. Only the kinds those commands write are
 * known, each with the fields of upstream's generated.proto that the API uses; other fields are
 * skipped. Answers stay JSON, which those clients accept as well.
 */
public final class KubeProtobuf {
  public static final String MEDIA_TYPE = "application/vnd.kubernetes.protobuf";
  private static final byte[] MAGIC = {'k', '8', 's', 0};
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  private KubeProtobuf() {}

  /** A field: its JSON name, and its message schema (null for a string; MAP for map<string,string>). */
  private record Field(String name, Map<Integer, Field> message, boolean repeated) {
    static Field string(String name) {
      return new Field(name, null, false);
    }

    static Field strings(String name) {
      return new Field(name, null, true);
    }

    static Field message(String name, Map<Integer, Field> schema) {
      return new Field(name, schema, false);
    }

    static Field messages(String name, Map<Integer, Field> schema) {
      return new Field(name, schema, true);
    }
  }

  private static final Map<Integer, Field> MAP = Map.of();
  private static final Map<Integer, Field> META = Map.of(1, Field.string("name"), 2, Field.string("generateName"),
      3, Field.string("namespace"), 6, Field.string("resourceVersion"), 11, Field.message("labels", MAP),
      12, Field.message("annotations", MAP), 14, Field.strings("finalizers"));
  private static final Map<Integer, Field> RULE = Map.of(1, Field.strings("verbs"), 2, Field.strings("apiGroups"),
      3, Field.strings("resources"), 4, Field.strings("resourceNames"), 5, Field.strings("nonResourceURLs"));
  private static final Map<Integer, Field> SELECTOR = Map.of(1, Field.message("matchLabels", MAP),
      2, Field.messages("matchExpressions", Map.of(1, Field.string("key"), 2, Field.string("operator"),
          3, Field.strings("values"))));
  private static final Map<Integer, Field> BINDING = Map.of(1, Field.message("metadata", META),
      2, Field.messages("subjects", Map.of(1, Field.string("kind"), 2, Field.string("apiGroup"), 3, Field.string("name"),
          4, Field.string("namespace"))),
      3, Field.message("roleRef", Map.of(1, Field.string("apiGroup"), 2, Field.string("kind"), 3, Field.string("name"))));

  private static final Map<String, Map<Integer, Field>> KINDS = Map.of(
      "Role", Map.of(1, Field.message("metadata", META), 2, Field.messages("rules", RULE)),
      "ClusterRole", Map.of(1, Field.message("metadata", META), 2, Field.messages("rules", RULE),
          3, Field.message("aggregationRule", Map.of(1, Field.messages("clusterRoleSelectors", SELECTOR)))),
      "RoleBinding", BINDING,
      "ClusterRoleBinding", BINDING,
      "SelfSubjectAccessReview", Map.of(1, Field.message("metadata", META), 2, Field.message("spec", Map.of(
          1, Field.message("resourceAttributes", Map.of(1, Field.string("namespace"), 2, Field.string("verb"),
              3, Field.string("group"), 4, Field.string("version"), 5, Field.string("resource"),
              6, Field.string("subresource"), 7, Field.string("name"))),
          2, Field.message("nonResourceAttributes", Map.of(1, Field.string("path"), 2, Field.string("verb")))))),
      "SelfSubjectRulesReview", Map.of(1, Field.message("metadata", META),
          2, Field.message("spec", Map.of(1, Field.string("namespace")))),
      "SelfSubjectReview", Map.of(1, Field.message("metadata", META)),
      // kubectl create namespace: the name and labels are all a namespace has here
      "Namespace", Map.of(1, Field.message("metadata", META)));

  /**
   * Decodes a protobuf body: the {@code k8s\0} magic, then a runtime.Unknown whose typeMeta names
   * the kind and whose raw bytes are the object.
   */
  public static ObjectNode decode(byte[] body) {
    if (body == null || body.length < MAGIC.length || !Arrays.equals(Arrays.copyOf(body, MAGIC.length), MAGIC)) {
      throw ApiException.badRequest("the protobuf body does not start with the Kubernetes magic number");
    }
    try {
      CodedInputStream unknown = CodedInputStream.newInstance(body, MAGIC.length, body.length - MAGIC.length);
      String apiVersion = "";
      String kind = "";
      byte[] raw = new byte[0];
      for (int tag = unknown.readTag(); tag != 0; tag = unknown.readTag()) {
        switch (WireFormat.getTagFieldNumber(tag)) {
          case 1 -> {
            CodedInputStream typeMeta = CodedInputStream.newInstance(unknown.readByteArray());
            for (int t = typeMeta.readTag(); t != 0; t = typeMeta.readTag()) {
              switch (WireFormat.getTagFieldNumber(t)) {
                case 1 -> apiVersion = typeMeta.readStringRequireUtf8();
                case 2 -> kind = typeMeta.readStringRequireUtf8();
                default -> typeMeta.skipField(t);
              }
            }
          }
          case 2 -> raw = unknown.readByteArray();
          default -> unknown.skipField(tag);
        }
      }
      Map<Integer, Field> schema = KINDS.get(kind);
      if (schema == null) {
        throw ApiException.of(415, "UnsupportedMediaType", "protobuf is not supported for " + kind
            + "; send application/json");
      }
      ObjectNode object = message(CodedInputStream.newInstance(raw), schema);
      ObjectNode result = JSON.objectNode().put("apiVersion", apiVersion).put("kind", kind);
      result.setAll(object);
      return result;
    } catch (IOException | RuntimeException e) {
      if (e instanceof ApiException api) {
        throw api;
      }
      throw ApiException.badRequest("the protobuf body could not be decoded: " + e.getMessage());
    }
  }

  private static ObjectNode message(CodedInputStream in, Map<Integer, Field> schema) throws IOException {
    ObjectNode node = JSON.objectNode();
    for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
      Field field = schema.get(WireFormat.getTagFieldNumber(tag));
      if (field == null || WireFormat.getTagWireType(tag) != WireFormat.WIRETYPE_LENGTH_DELIMITED) {
        in.skipField(tag);
        continue;
      }
      byte[] bytes = in.readByteArray();
      if (field.message() == MAP) {
        // A map entry: key 1, value 2.
        CodedInputStream entry = CodedInputStream.newInstance(bytes);
        String key = "";
        String value = "";
        for (int t = entry.readTag(); t != 0; t = entry.readTag()) {
          switch (WireFormat.getTagFieldNumber(t)) {
            case 1 -> key = entry.readStringRequireUtf8();
            case 2 -> value = entry.readStringRequireUtf8();
            default -> entry.skipField(t);
          }
        }
        ObjectNode map = node.has(field.name()) ? (ObjectNode) node.get(field.name()) : node.putObject(field.name());
        map.put(key, value);
      } else if (field.message() == null) {
        String value = new String(bytes, StandardCharsets.UTF_8);
        if (field.repeated()) {
          array(node, field.name()).add(value);
        } else {
          node.put(field.name(), value);
        }
      } else {
        ObjectNode child = message(CodedInputStream.newInstance(bytes), field.message());
        if (field.repeated()) {
          array(node, field.name()).add(child);
        } else {
          node.set(field.name(), child);
        }
      }
    }
    return node;
  }

  private static ArrayNode array(ObjectNode node, String name) {
    return node.has(name) ? (ArrayNode) node.get(name) : node.putArray(name);
  }

  /** Reads a request body sent as JSON, YAML or protobuf, as {@link KubeCodec#read} does the first two. */
  public static <T> T read(HttpRequest<?> request, byte[] body, Class<T> type) {
    String mediaType = KubeCodec.mediaType(request);
    if (MEDIA_TYPE.equals(mediaType)) {
      return KubeCodec.read(request, "application/json", KubeJson.write(decode(body)), type);
    }
    return KubeCodec.read(request, mediaType, body == null ? null : new String(body, StandardCharsets.UTF_8), type);
  }
}
