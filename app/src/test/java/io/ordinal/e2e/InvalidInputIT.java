package io.ordinal.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.ordinal.store.KubeJson;
import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonStructure;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The catalogue of invalid manifests (src/test/resources/invalid/catalogue.yaml), over HTTP. */
@E2eTest
class InvalidInputIT {
  static final String NS = "invalid";
  static Api api;

  static Stream<Arguments> catalogue() throws Exception {
    JsonNode cases = KubeJson.YAML.readTree(InvalidInputIT.class.getResourceAsStream("/invalid/catalogue.yaml"));
    List<Arguments> out = new ArrayList<>();
    cases.forEach(c -> out.add(Arguments.of(c.get("case").asText(), c.path("update").asBoolean(false),
        c.path("code").asInt(422), c.get("field").asText(), expand(c.get("patch")))));
    assertTrue(out.size() >= 50, "the catalogue shrank to " + out.size() + " cases");
    return out.stream();
  }

  @ParameterizedTest(name = "{0}: {2} at {3}")
  @MethodSource("catalogue")
  void invalidManifestIsRefusedAtItsFieldPathAndNothingIsStored(String name, boolean update, int code, String field,
      JsonNode patch) {
    ObjectNode valid = Manifests.web("web", 1, 0, Map.of());
    if (update) {
      String setName = "upd-" + Integer.toHexString(name.hashCode());
      ((ObjectNode) valid.get("metadata")).put("name", setName);
      api.createSet(NS, valid);
      long generation = api.set(NS, setName).at("/metadata/generation").asLong();
      Api.Reply reply = api.put(Paths.set(NS, setName), "application/json", apply(valid, patch));
      assertRefused(reply, code, field);
      assertEquals(generation, api.set(NS, setName).at("/metadata/generation").asLong(), "the stored set changed");
    } else {
      Api.Reply reply = api.post(Paths.sets(NS), "application/json", apply(valid, patch));
      assertRefused(reply, code, field);
      assertEquals(404, api.get(Paths.set(NS, "web")).code(), "an invalid set was stored");
    }
  }

  static Stream<Arguments> rbacCatalogue() throws Exception {
    JsonNode cases = KubeJson.YAML.readTree(InvalidInputIT.class.getResourceAsStream("/invalid/rbac.yaml"));
    List<Arguments> out = new ArrayList<>();
    cases.forEach(c -> out.add(Arguments.of(c.get("case").asText(), c.get("resource").asText(), c.path("code").asInt(422),
        c.get("field").asText(), c.get("object"))));
    return out.stream();
  }

  /** Invalid RBAC objects (src/test/resources/invalid/rbac.yaml): refused at upstream's field path, never stored. */
  @ParameterizedTest(name = "{0}: {2} at {3}")
  @MethodSource("rbacCatalogue")
  void invalidRbacObjectIsRefusedAtItsFieldPathAndNothingIsStored(String name, String resource, int code, String field,
      JsonNode object) {
    boolean cluster = resource.startsWith("cluster");
    String collection = "/apis/rbac.authorization.k8s.io/v1/" + (cluster ? "" : "namespaces/" + NS + "/") + resource;
    assertRefused(api.post(collection, "application/json", KubeJson.write(object)), code, field);
    String stored = object.at("/metadata/name").asText();
    if (!stored.contains("/")) {
      assertEquals(404, api.get(collection + "/" + stored).code(), "an invalid object was stored");
    }
  }

  /** The catalogue for server-side apply: all but "missing name" (an apply's URL names the set it creates). */
  static Stream<Arguments> catalogueForApply() throws Exception {
    return catalogue().filter(arguments -> !arguments.get()[0].equals("missing name"));
  }

  /**
   * The same manifests through server-side apply: refused alike, whether the apply creates or
   * updates, except that a keyed list whose items lack or repeat their key is refused before
   * validation, with 400 naming the list, as upstream's apply does.
   */
  @ParameterizedTest(name = "{0}: {2} at {3}")
  @MethodSource("catalogueForApply")
  void invalidManifestIsRefusedByServerSideApplyAndNothingIsStored(String name, boolean update, int code, String field,
      JsonNode patch) {
    String setName = "ssa-" + Integer.toHexString(name.hashCode());
    ObjectNode valid = Manifests.web(setName, 1, 0, Map.of());
    String path = Paths.set(NS, setName) + "?fieldManager=invalid-input";
    if (update) {
      assertTrue(api.patch(path, "application/apply-patch+yaml", KubeJson.write(valid)).code() == 201);
    }
    ObjectNode invalid = (ObjectNode) KubeJson.read(apply(valid, patch), JsonNode.class);
    if (!(invalid.at("/metadata/name") instanceof TextNode)) {
      ((ObjectNode) invalid.get("metadata")).put("name", setName); // the URL names the set to apply
    }
    Api.Reply reply = api.patch(Paths.set(NS, invalid.at("/metadata/name").asText()) + "?fieldManager=invalid-input",
        "application/apply-patch+yaml", KubeJson.write(invalid));
    if (name.equals("duplicate container name") || name.equals("container without a name")) {
      assertRefused(reply, 400, ".spec.template.spec.containers");
    } else if (name.equals("volumeMount without mountPath") || name.equals("mountPath twice")) {
      assertRefused(reply, 400, ".volumeMounts"); // a container's volumeMounts are keyed by mountPath
    } else {
      assertRefused(reply, code, field);
    }
    if (update) {
      assertEquals(1, api.set(NS, setName).at("/metadata/generation").asLong(), "the stored set changed");
      api.delete(Paths.set(NS, setName));
    } else {
      assertEquals(404, api.get(Paths.set(NS, setName)).code(), "an invalid set was stored");
    }
  }

  @Test
  void serverSideApplyRefusesWhatIsNotAnApplyAndNothingIsStored() {
    String set = Paths.set(NS, "ssa-refused");
    String manifest = KubeJson.write(Manifests.web("ssa-refused", 1, 0, Map.of()));
    assertRefused(api.patch(set, "application/apply-patch+yaml", manifest), 422, "fieldManager");
    assertRefused(api.patch(set + "?fieldManager=a&force=true", "application/merge-patch+json", "{}"), 422, "force");
    ObjectNode owned = Manifests.web("ssa-refused", 1, 0, Map.of());
    ((ObjectNode) owned.get("metadata")).putArray("managedFields").addObject().put("manager", "me");
    assertRefused(api.patch(set + "?fieldManager=a", "application/apply-patch+yaml", KubeJson.write(owned)), 400,
        "metadata.managedFields must be nil");
    ObjectNode nameless = Manifests.web("ssa-refused", 1, 0, Map.of());
    ((ObjectNode) nameless.at("/spec/template/spec/containers/0")).remove("name");
    assertRefused(api.patch(set + "?fieldManager=a", "application/apply-patch+yaml", KubeJson.write(nameless)), 400,
        "name");
    assertRefused(api.patch(set + "?fieldManager=a", "application/apply-patch+yaml", "kind: [unclosed"), 400, "");
    assertEquals(404, api.get(set).code(), "a refused apply stored a set");
  }

  /** JSON patch operations without op, path or (for a move) from: 400 naming the member, not 500. */
  @Test
  void malformedJsonPatchOperationsAreRefusedNamingWhatIsMissing() {
    String namespace = "/api/v1/namespaces/" + NS;
    assertRefused(api.patch(namespace, "application/json-patch+json", "[{}, {}]"), 400, "operation 0 has no string 'op'");
    assertRefused(api.patch(namespace, "application/json-patch+json", "[{\"op\":\"add\"}]"), 400, "'path'");
    assertRefused(api.patch(namespace, "application/json-patch+json", "[{\"op\":\"move\",\"path\":\"/x\"}]"), 400,
        "'from'");
    assertRefused(api.patch(namespace, "application/json-patch+json", "[1]"), 400, "operation 0 is not an object");
  }

  /**
   * A pod's ordinal.io/default-user (the uid:gid its containers run as without runAsUser) is the
   * controller's: a user who may annotate pods cannot add, change or remove it (0:0 would be root).
   */
  @Test
  void aPodsDefaultUserCannotBeChangedThroughTheApi() {
    api.createSet(NS, Manifests.web("upd-pod", 1, 0, Map.of()));
    api.awaitConverged(NS, "upd-pod", 1, java.time.Duration.ofSeconds(90));
    String pod = Paths.pod(NS, "upd-pod-0");
    String before = api.pod(NS, "upd-pod-0").at("/metadata/annotations/ordinal.io~1default-user").asText();
    assertTrue(!before.isEmpty(), "the controller sets it: " + api.pod(NS, "upd-pod-0"));
    String field = "metadata.annotations[ordinal.io/default-user]";
    assertRefused(api.patch(pod, "application/merge-patch+json",
        "{\"metadata\":{\"annotations\":{\"ordinal.io/default-user\":\"0:0\"}}}"), 422, field);
    assertRefused(api.patch(pod, "application/json-patch+json",
        "[{\"op\":\"remove\",\"path\":\"/metadata/annotations/ordinal.io~1default-user\"}]"), 422, field);
    assertEquals(before, api.pod(NS, "upd-pod-0").at("/metadata/annotations/ordinal.io~1default-user").asText());
    Api.Reply labelled = api.patch(pod, "application/merge-patch+json", "{\"metadata\":{\"labels\":{\"tier\":\"db\"}}}");
    assertEquals(200, labelled.code(), labelled.body());
  }

  static void assertRefused(Api.Reply reply, int code, String field) {
    assertEquals(code, reply.code(), reply.body());
    JsonNode status = reply.json();
    assertEquals("Status", status.path("kind").asText(), reply.body());
    if (code == 422) {
      List<String> fields = new ArrayList<>();
      status.at("/details/causes").forEach(c -> fields.add(c.path("field").asText()));
      assertTrue(fields.contains(field), "expected " + field + " among " + fields);
      assertEquals("Invalid", status.path("reason").asText());
    } else {
      assertTrue(status.path("message").asText().contains(field), "the message should name " + field + ": " + reply.body());
    }
  }

  @AfterAll
  static void onlyTheValidSetsOfTheUpdateCasesExist() {
    api.get(Paths.sets(NS)).json().path("items").forEach(set ->
        assertTrue(set.at("/metadata/name").asText().matches("(upd|ssa)-.*"), set.at("/metadata/name").asText()));
  }

  /** RFC 6902 patch of the manifest, through JSON-P (what the service uses for JSON patches). */
  static String apply(ObjectNode manifest, JsonNode patch) {
    JsonStructure document = Json.createReader(new StringReader(KubeJson.write(manifest))).read();
    JsonArray operations = Json.createReader(new StringReader(KubeJson.write(patch))).readArray();
    return Json.createPatch(operations).apply(document).toString();
  }

  /** "REPEAT:c:n" stands for the character c repeated n times (long values stay readable in the catalogue). */
  static JsonNode expand(JsonNode node) {
    if (node.isTextual() && node.asText().startsWith("REPEAT:")) {
      String[] parts = node.asText().split(":");
      return TextNode.valueOf(parts[1].repeat(Integer.parseInt(parts[2])));
    }
    if (node.isObject()) {
      ObjectNode copy = ((ObjectNode) node).deepCopy();
      node.fields().forEachRemaining(e -> copy.set(e.getKey(), expand(e.getValue())));
      return copy;
    }
    if (node.isArray()) {
      var copy = KubeJson.JSON.createArrayNode();
      node.forEach(n -> copy.add(expand(n)));
      return copy;
    }
    return node;
  }
}
