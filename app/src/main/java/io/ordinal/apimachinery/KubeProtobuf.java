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
import java.util.Base64;
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

  /** How a field is encoded, and so how it reads into JSON. */
  private enum Type { STRING, BOOL, INT, MESSAGE, MAP, BYTES_MAP, INT_OR_STRING }

  /** A field: its JSON name, its encoding, its message schema (for a MESSAGE), and whether it repeats. */
  private record Field(String name, Type type, Map<Integer, Field> message, boolean repeated) {
    static Field string(String name) {
      return new Field(name, Type.STRING, null, false);
    }

    static Field strings(String name) {
      return new Field(name, Type.STRING, null, true);
    }

    static Field message(String name, Map<Integer, Field> schema) {
      return schema == MAP ? new Field(name, Type.MAP, null, false) : new Field(name, Type.MESSAGE, schema, false);
    }

    static Field messages(String name, Map<Integer, Field> schema) {
      return new Field(name, Type.MESSAGE, schema, true);
    }

    /** map<string, bytes>: the values base64 in JSON, as Go's []byte. */
    static Field bytesMap(String name) {
      return new Field(name, Type.BYTES_MAP, null, false);
    }

    static Field bool(String name) {
      return new Field(name, Type.BOOL, null, false);
    }

    static Field integer(String name) {
      return new Field(name, Type.INT, null, false);
    }

    static Field intOrString(String name) {
      return new Field(name, Type.INT_OR_STRING, null, false);
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

  private static final Map<String, Map<Integer, Field>> KINDS = Map.ofEntries(
      Map.entry("Role", Map.of(1, Field.message("metadata", META), 2, Field.messages("rules", RULE))),
      Map.entry("ClusterRole", Map.of(1, Field.message("metadata", META), 2, Field.messages("rules", RULE),
          3, Field.message("aggregationRule", Map.of(1, Field.messages("clusterRoleSelectors", SELECTOR))))),
      Map.entry("RoleBinding", BINDING),
      Map.entry("ClusterRoleBinding", BINDING),
      Map.entry("SelfSubjectAccessReview", Map.of(1, Field.message("metadata", META), 2, Field.message("spec", Map.of(
          1, Field.message("resourceAttributes", Map.of(1, Field.string("namespace"), 2, Field.string("verb"),
              3, Field.string("group"), 4, Field.string("version"), 5, Field.string("resource"),
              6, Field.string("subresource"), 7, Field.string("name"))),
          2, Field.message("nonResourceAttributes", Map.of(1, Field.string("path"), 2, Field.string("verb"))))))),
      Map.entry("SelfSubjectRulesReview", Map.of(1, Field.message("metadata", META),
          2, Field.message("spec", Map.of(1, Field.string("namespace"))))),
      Map.entry("SelfSubjectReview", Map.of(1, Field.message("metadata", META))),
      // kubectl create namespace: the name and labels are all a namespace has here
      Map.entry("Namespace", Map.of(1, Field.message("metadata", META))),
      // Helm's release store deletes its Secrets through a typed client, which sends these as protobuf
      Map.entry("DeleteOptions", Map.of(1, Field.integer("gracePeriodSeconds"),
          2, Field.message("preconditions", Map.of(1, Field.string("uid"), 2, Field.string("resourceVersion"))),
          3, Field.bool("orphanDependents"), 4, Field.string("propagationPolicy"), 5, Field.strings("dryRun"))),
      Map.entry("ConfigMap", Map.of(1, Field.message("metadata", META), 2, Field.message("data", MAP),
          3, Field.bytesMap("binaryData"), 4, Field.bool("immutable"))),
      Map.entry("Secret", Map.of(1, Field.message("metadata", META), 2, Field.bytesMap("data"), 3, Field.string("type"),
          4, Field.message("stringData", MAP), 5, Field.bool("immutable"))),
      Map.entry("ServiceAccount", Map.of(1, Field.message("metadata", META),
          2, Field.messages("secrets", Map.of(2, Field.string("namespace"), 3, Field.string("name"))),
          3, Field.messages("imagePullSecrets", Map.of(1, Field.string("name"))),
          4, Field.bool("automountServiceAccountToken"))),
      Map.entry("Service", Map.of(1, Field.message("metadata", META), 2, Field.message("spec", Map.ofEntries(
          Map.entry(1, Field.messages("ports", Map.of(1, Field.string("name"), 2, Field.string("protocol"),
              3, Field.integer("port"), 4, Field.intOrString("targetPort"), 5, Field.integer("nodePort"),
              6, Field.string("appProtocol")))),
          Map.entry(2, Field.message("selector", MAP)), Map.entry(3, Field.string("clusterIP")),
          Map.entry(4, Field.string("type")), Map.entry(5, Field.strings("externalIPs")),
          Map.entry(7, Field.string("sessionAffinity")), Map.entry(10, Field.string("externalName")),
          Map.entry(13, Field.bool("publishNotReadyAddresses")), Map.entry(17, Field.string("ipFamilyPolicy")),
          Map.entry(18, Field.strings("clusterIPs")), Map.entry(19, Field.strings("ipFamilies")),
          Map.entry(22, Field.string("internalTrafficPolicy")))))));

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
      boolean varint = WireFormat.getTagWireType(tag) == WireFormat.WIRETYPE_VARINT;
      boolean delimited = WireFormat.getTagWireType(tag) == WireFormat.WIRETYPE_LENGTH_DELIMITED;
      if (field == null || (field.type() == Type.BOOL || field.type() == Type.INT ? !varint : !delimited)) {
        in.skipField(tag);
        continue;
      }
      switch (field.type()) {
        case BOOL -> node.put(field.name(), in.readBool());
        case INT -> node.put(field.name(), in.readInt64()); // int32 and int64 alike: a negative int32 is sign-extended
        case STRING -> {
          String value = in.readStringRequireUtf8();
          if (field.repeated()) {
            array(node, field.name()).add(value);
          } else {
            node.put(field.name(), value);
          }
        }
        case MAP, BYTES_MAP -> {
          // A map entry: key 1, value 2.
          CodedInputStream entry = CodedInputStream.newInstance(in.readByteArray());
          String key = "";
          byte[] value = new byte[0];
          for (int t = entry.readTag(); t != 0; t = entry.readTag()) {
            switch (WireFormat.getTagFieldNumber(t)) {
              case 1 -> key = entry.readStringRequireUtf8();
              case 2 -> value = entry.readByteArray();
              default -> entry.skipField(t);
            }
          }
          ObjectNode map = node.has(field.name()) ? (ObjectNode) node.get(field.name()) : node.putObject(field.name());
          map.put(key, field.type() == Type.MAP ? new String(value, StandardCharsets.UTF_8)
              : Base64.getEncoder().encodeToString(value));
        }
        case INT_OR_STRING -> {
          // intstr.IntOrString: type 1 (0 int, 1 string), intVal 2, strVal 3.
          CodedInputStream value = CodedInputStream.newInstance(in.readByteArray());
          long type = 0;
          int number = 0;
          String text = "";
          for (int t = value.readTag(); t != 0; t = value.readTag()) {
            switch (WireFormat.getTagFieldNumber(t)) {
              case 1 -> type = value.readInt64();
              case 2 -> number = value.readInt32();
              case 3 -> text = value.readStringRequireUtf8();
              default -> value.skipField(t);
            }
          }
          if (type == 1) {
            node.put(field.name(), text);
          } else {
            node.put(field.name(), number);
          }
        }
        case MESSAGE -> {
          ObjectNode child = message(CodedInputStream.newInstance(in.readByteArray()), field.message());
          if (field.repeated()) {
            array(node, field.name()).add(child);
          } else {
            node.set(field.name(), child);
          }
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
