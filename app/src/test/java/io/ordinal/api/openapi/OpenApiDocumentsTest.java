package io.ordinal.api.openapi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Delete;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.Patch;
import io.micronaut.http.annotation.Post;
import io.micronaut.http.annotation.Put;
import io.micronaut.websocket.annotation.ServerWebSocket;
import io.ordinal.api.PodLogApi;
import io.ordinal.api.StatefulSetApi;
import io.ordinal.api.discovery.ApiResources.Group;
import io.ordinal.api.discovery.ApiResources.Resource;
import io.ordinal.api.discovery.ApiResources;
import io.ordinal.api.exec.ExecApi;
import io.ordinal.api.exec.ExecSocket;
import io.ordinal.api.openapi.OpenApiDocuments.Documents;
import io.ordinal.apimachinery.KubeCodec;
import io.ordinal.apimachinery.UnknownFields;
import io.ordinal.store.KubeJson;
import java.io.IOException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

class OpenApiDocumentsTest {
  static final Documents DOCUMENTS = OpenApiDocuments.generate("v1.32.0+test");
  static final JsonNode APPS = json(DOCUMENTS.v3().get("apis/apps/v1").json());
  static final JsonNode CORE = json(DOCUMENTS.v3().get("api/v1").json());
  static final JsonNode V2 = json(DOCUMENTS.v2().json());
  static final String REF = "#/components/schemas/";

  @Test
  void theIndexListsExactlyTheGroupVersionsDiscoveryLists() {
    List<String> discovery = new ArrayList<>();
    discovery.add("api/" + ApiResources.CORE.version());
    ApiResources.GROUPS.forEach(g -> discovery.add("apis/" + g.groupVersion()));

    JsonNode paths = json(DOCUMENTS.v3Index().json()).get("paths");
    assertEquals(new TreeSet<>(discovery), names(paths));
    for (String gv : discovery) {
      // The URL names the document by its hash, so that clients may cache it for good.
      assertEquals("/openapi/v3/" + gv + "?hash=" + DOCUMENTS.v3().get(gv).hash(),
          paths.get(gv).get("serverRelativeURL").asText());
    }
  }

  @Test
  void theDocumentsAreTheSameBytesEveryTime() {
    Documents again = OpenApiDocuments.generate("v1.32.0+test");
    assertEquals(DOCUMENTS.v3Index(), again.v3Index());
    assertEquals(DOCUMENTS.v2(), again.v2());
  }

  @Test
  void aStatefulSetIsDescribedWithUpstreamsNamesAndTypes() {
    JsonNode set = schema(APPS, "io.k8s.api.apps.v1.StatefulSet");
    assertEquals(REF + "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta", set.at("/properties/metadata/$ref").asText());
    JsonNode spec = resolve(APPS, set.at("/properties/spec"));
    assertEquals(REF + "io.k8s.api.core.v1.PodTemplateSpec", spec.at("/properties/template/$ref").asText());
    assertEquals("int32", spec.at("/properties/replicas/format").asText());
    assertEquals("array", spec.at("/properties/volumeClaimTemplates/type").asText());
    assertEquals(REF + "io.k8s.api.core.v1.PersistentVolumeClaim", spec.at("/properties/volumeClaimTemplates/items/$ref").asText());
    assertEquals("int64", schema(APPS, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta").at("/properties/generation/format").asText());
    assertEquals("string", schema(APPS, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta")
        .at("/properties/labels/additionalProperties/type").asText());
    JsonNode limits = schema(APPS, "io.k8s.api.core.v1.ResourceRequirements").at("/properties/limits/additionalProperties");
    assertEquals(REF + "io.k8s.apimachinery.pkg.api.resource.Quantity", limits.get("$ref").asText());

    JsonNode intOrString = schema(APPS, "io.k8s.apimachinery.pkg.util.intstr.IntOrString");
    assertEquals("int-or-string", intOrString.get("format").asText());
    assertTrue(intOrString.get("x-kubernetes-int-or-string").asBoolean());
    assertEquals("[{\"type\":\"string\"},{\"type\":\"number\"}]",
        schema(APPS, "io.k8s.apimachinery.pkg.api.resource.Quantity").get("oneOf").toString());
    assertEquals("{\"type\":\"string\",\"format\":\"int-or-string\",\"x-kubernetes-int-or-string\":true}",
        V2.at("/definitions/io.k8s.apimachinery.pkg.util.intstr.IntOrString").toString());
    assertEquals("date-time", schema(CORE, "io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime").get("format").asText());
  }

  @Test
  void patchStrategiesAndMergeKeysAreUpstreams() {
    // Walked as kubectl's PatchMetaFromOpenAPIV3 walks it when it computes an apply patch.
    JsonNode containers = property(APPS, "io.k8s.api.apps.v1.StatefulSet", "spec", "template", "spec", "containers");
    assertEquals("name", containers.get("x-kubernetes-patch-merge-key").asText());
    assertEquals("merge", containers.get("x-kubernetes-patch-strategy").asText());
    JsonNode ports = resolve(APPS, containers.get("items")).at("/properties/ports");
    assertEquals("containerPort", ports.get("x-kubernetes-patch-merge-key").asText());
    assertEquals("map", ports.get("x-kubernetes-list-type").asText());
    assertEquals("[\"containerPort\",\"protocol\"]", ports.get("x-kubernetes-list-map-keys").toString());
    JsonNode volumes = property(APPS, "io.k8s.api.apps.v1.StatefulSet", "spec", "template", "spec", "volumes");
    assertEquals("merge,retainKeys", volumes.get("x-kubernetes-patch-strategy").asText());
    JsonNode finalizers = property(APPS, "io.k8s.api.apps.v1.StatefulSet", "metadata", "finalizers");
    assertEquals("set", finalizers.get("x-kubernetes-list-type").asText());
    // Upstream's list, map and struct types, the ones server-side apply merges by.
    assertEquals("map", containers.get("x-kubernetes-list-type").asText());
    assertEquals("[\"name\"]", containers.get("x-kubernetes-list-map-keys").toString());
    assertEquals("atomic", resolve(APPS, containers.get("items")).at("/properties/args/x-kubernetes-list-type").asText());
    assertEquals("atomic", property(APPS, "io.k8s.api.apps.v1.StatefulSet", "spec", "template", "spec", "nodeSelector")
        .get("x-kubernetes-map-type").asText());
    assertEquals("atomic", schema(APPS, "io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector").get("x-kubernetes-map-type").asText());
    // Atomic lists carry no patch metadata.
    assertFalse(property(APPS, "io.k8s.api.apps.v1.StatefulSet", "spec", "template", "spec", "tolerations")
        .has("x-kubernetes-patch-strategy"));
  }

  @Test
  void ordinalsOwnFieldsAreDescribed() {
    for (String path : UnknownFields.EXTENSIONS) {
      List<String> steps = List.of(path.split("\\."));
      JsonNode field = property(APPS, "io.k8s.api.apps.v1.StatefulSet", steps.toArray(String[]::new));
      assertNotNull(field.get("type"), path);
    }
  }

  @Test
  void everyOperationsKindHasASchemaThatNamesIt() {
    for (JsonNode document : List.of(APPS, CORE, V2)) {
      JsonNode schemas = document.has("definitions") ? document.get("definitions") : document.at("/components/schemas");
      List<JsonNode> kinds = new ArrayList<>();
      schemas.forEach(s -> s.path("x-kubernetes-group-version-kind").forEach(kinds::add));
      operations(document).forEach((where, op) -> {
        JsonNode gvk = op.get("x-kubernetes-group-version-kind");
        assertNotNull(gvk, where);
        assertTrue(kinds.contains(gvk), where + ": no schema has " + gvk);
        assertNotNull(op.get("x-kubernetes-action"), where);
      });
    }
  }

  @Test
  void everyReferenceResolves() {
    for (JsonNode document : List.of(APPS, CORE, V2, json(DOCUMENTS.v3().get("apis/autoscaling/v1").json()))) {
      List<String> refs = new ArrayList<>();
      collectRefs(document, refs);
      assertFalse(refs.isEmpty());
      for (String ref : refs) {
        assertFalse(document.at(ref.substring(1)).isMissingNode(), ref);
      }
    }
  }

  @Test
  void patchesListTheParametersKubectlLooksForAndThePatchTypesTheServerTakes() {
    operations(APPS).forEach((where, op) -> {
      if (where.startsWith("patch ")) {
        Set<String> parameters = new TreeSet<>();
        op.get("parameters").forEach(p -> parameters.add(p.get("name").asText()));
        // kubectl leaves field validation to the server when the kind's PATCH lists fieldValidation,
        // and trusts a server-side dry run only where dryRun is listed.
        assertEquals(Set.of("dryRun", "fieldManager", "fieldValidation", "force"), parameters, where);
        // Server-side apply on the objects themselves; their scale and status take the other three.
        boolean subresource = where.endsWith("/scale") || where.endsWith("/status");
        assertEquals(new TreeSet<>(subresource ? KubeCodec.SUBRESOURCE_PATCH_TYPES : KubeCodec.PATCH_TYPES),
            names(op.at("/requestBody/content")), where);
        // kubectl apply computes a strategic merge patch from the document only when this is listed.
        assertTrue(names(op.at("/requestBody/content")).contains(KubeCodec.STRATEGIC_MERGE_PATCH), where);
      }
    });
    JsonNode patch = APPS.at("/paths/~1apis~1apps~1v1~1namespaces~1{namespace}~1statefulsets~1{name}/patch");
    assertEquals("{\"group\":\"apps\",\"kind\":\"StatefulSet\",\"version\":\"v1\"}",
        patch.get("x-kubernetes-group-version-kind").toString());
  }

  @Test
  void explainFindsAKindFromItsListPath() {
    // kubectl explain looks for the GVR's list path, then the schema whose GVK list holds that GVK.
    JsonNode gvk = CORE.at("/paths/~1api~1v1~1namespaces~1{namespace}~1pods/get/x-kubernetes-group-version-kind");
    assertEquals("{\"group\":\"\",\"kind\":\"Pod\",\"version\":\"v1\"}", gvk.toString());
    assertTrue(schema(CORE, "io.k8s.api.core.v1.Pod").get("x-kubernetes-group-version-kind").toString().contains(gvk.toString()));
  }

  @Test
  void everyDiscoveredVerbHasAnOperation() {
    for (Group group : OpenApiDocuments.GROUP_VERSIONS) {
      JsonNode document = json(DOCUMENTS.v3().get(OpenApiDocuments.indexPath(group)).json());
      Set<String> actions = new TreeSet<>();
      operations(document).forEach((where, op) -> actions.add(
          op.at("/x-kubernetes-group-version-kind/kind").asText() + " " + op.get("x-kubernetes-action").asText()));
      for (Resource r : group.resources()) {
        for (String verb : r.verbs()) {
          String action = switch (verb) {
            case "create" -> "post";
            case "update" -> "put";
            case "watch" -> "list"; // a list with ?watch=true
            default -> verb;
          };
          assertTrue(actions.contains(r.kind() + " " + action), r.plural() + " " + verb);
        }
      }
    }
  }

  /**
   * The subresources the documents describe (scale, status, log, exec, rollout) have routes of their
   * own: each described operation has one. The resources themselves are served by ResourceApi from
   * the same descriptions the documents are made from.
   */
  @Test
  void everySubresourceOperationTheDocumentsPromiseHasARoute() {
    Set<String> served = new TreeSet<>();
    for (Class<?> controller : List.of(StatefulSetApi.class, PodLogApi.class, ExecApi.class)) {
      String base = controller.getAnnotation(Controller.class).value();
      for (Method m : controller.getDeclaredMethods()) {
        Map<String, String> routes = new LinkedHashMap<>();
        if (m.getAnnotation(Get.class) != null) {
          routes.put("get", m.getAnnotation(Get.class).value());
        }
        if (m.getAnnotation(Post.class) != null) {
          routes.put("post", m.getAnnotation(Post.class).value());
        }
        if (m.getAnnotation(Put.class) != null) {
          routes.put("put", m.getAnnotation(Put.class).value());
        }
        if (m.getAnnotation(Patch.class) != null) {
          routes.put("patch", m.getAnnotation(Patch.class).value());
        }
        if (m.getAnnotation(Delete.class) != null) {
          routes.put("delete", m.getAnnotation(Delete.class).value());
        }
        routes.forEach((method, path) -> served.add(method + " " + (base.equals("/") ? "" : base) + path));
      }
    }
    // The WebSocket of exec is its GET route (the upgrade request).
    served.add("get " + ExecSocket.class.getAnnotation(ServerWebSocket.class).value());
    Set<String> unserved = new TreeSet<>();
    int subresources = 0;
    for (JsonNode document : List.of(APPS, CORE)) {
      for (String op : operations(document).keySet()) {
        if (op.contains("{name}/")) {
          subresources++;
          if (!served.contains(op)) {
            unserved.add(op);
          }
        }
      }
    }
    assertTrue(subresources >= 9, "the documents describe the subresources: " + subresources);
    assertEquals(Set.of(), unserved);
  }

  /** Every operation of a document by "method path". */
  static Map<String, JsonNode> operations(JsonNode document) {
    Map<String, JsonNode> operations = new LinkedHashMap<>();
    document.get("paths").properties().forEach(path -> path.getValue().properties().forEach(op -> {
      if (!op.getKey().equals("parameters")) {
        operations.put(op.getKey() + " " + path.getKey(), op.getValue());
      }
    }));
    return operations;
  }

  static JsonNode schema(JsonNode document, String name) {
    JsonNode schema = document.at("/components/schemas").get(name);
    assertNotNull(schema, name);
    return schema;
  }

  /** A property's schema, walked from a schema through properties, list items and references. */
  static JsonNode property(JsonNode document, String schema, String... path) {
    JsonNode current = schema(document, schema);
    JsonNode field = null;
    for (String step : path) {
      JsonNode resolved = resolve(document, current);
      field = resolved.at("/properties/" + step);
      assertFalse(field.isMissingNode(), step + " in " + resolved);
      current = field.has("items") ? field.get("items") : field;
    }
    return field;
  }

  /** As kubectl resolves: the first of an allOf, then a $ref. */
  static JsonNode resolve(JsonNode document, JsonNode schema) {
    JsonNode s = schema.has("allOf") ? schema.get("allOf").get(0) : schema;
    return s.has("$ref") ? document.at(s.get("$ref").asText().substring(1)) : s;
  }

  static void collectRefs(JsonNode node, List<String> refs) {
    if (node.has("$ref")) {
      refs.add(node.get("$ref").asText());
    }
    node.forEach(child -> collectRefs(child, refs));
  }

  static Set<String> names(JsonNode object) {
    Set<String> names = new TreeSet<>();
    object.fieldNames().forEachRemaining(names::add);
    return names;
  }

  static JsonNode json(String text) {
    try {
      return KubeJson.JSON.readTree(text);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }
}
