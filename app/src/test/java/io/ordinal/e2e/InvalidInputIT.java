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
        assertTrue(set.at("/metadata/name").asText().startsWith("upd-"), set.at("/metadata/name").asText()));
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
