package io.ordinal.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.ordinal.store.NamespaceContents;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * Deleting a namespace deletes everything in it, as upstream: it is Terminating while its content
 * goes, nothing new can be created in it meanwhile, and once it is gone a namespace of the same name
 * starts empty. Above all, no RoleBinding of the old one grants anything in the new one.
 */
@E2eTest
class NamespaceDeletionIT {
  static final Duration TIMEOUT = Duration.ofSeconds(120);
  static OrdinalService service;
  static Api api;

  @Test
  void aDeletedNamespaceTakesEverythingWithItAndItsNameStartsEmptyAgain(@Namespace String ns) throws Exception {
    assertEquals(201, api.post("/api/v1/namespaces", "application/json",
        "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"" + ns + "\"}}").code());
    String user = "alice-" + ns;
    Api alice = api.as(token(user));
    Api.Reply role = api.post(rbac(ns, "roles"), "application/json", """
        {"metadata":{"name":"set-editor"},
         "rules":[{"apiGroups":["apps"],"resources":["statefulsets"],"verbs":["get","list","create","delete"]}]}""");
    assertEquals(201, role.code(), role.body());
    Api.Reply binding = api.post(rbac(ns, "rolebindings"), "application/json", """
        {"metadata":{"name":"alice-sets"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"Role","name":"set-editor"},
         "subjects":[{"apiGroup":"rbac.authorization.k8s.io","kind":"User","name":"%s"}]}""".formatted(user));
    assertEquals(201, binding.code(), binding.body());
    assertEquals(200, alice.get(Paths.sets(ns)).code());
    // Pods that take 3 s to stop keep the namespace Terminating long enough to be seen so.
    api.createSet(ns, Manifests.web("web", 2, 0, Map.of("SIM_TERMINATION_DELAY_MS", "3000")));
    api.awaitConverged(ns, "web", 2, TIMEOUT);
    assertFalse(api.events(ns).isEmpty());
    String uid = api.get("/api/v1/namespaces/" + ns).json().at("/metadata/uid").asText();

    Api.Reply deleted = api.delete("/api/v1/namespaces/" + ns);
    assertEquals(200, deleted.code(), deleted.body());
    assertEquals("Terminating", deleted.json().at("/status/phase").asText(), deleted.body());
    assertFalse(deleted.json().at("/metadata/deletionTimestamp").asText().isEmpty());
    assertEquals("kubernetes", deleted.json().at("/spec/finalizers/0").asText());

    // While it is Terminating: nothing new in it (upstream's NamespaceLifecycle), and a second DELETE is a conflict.
    Api.Reply set = api.post(Paths.sets(ns), "application/json", Manifests.json(Manifests.web("late", 1, 0, Map.of())));
    assertEquals(403, set.code(), set.body());
    assertEquals("statefulsets.apps \"late\" is forbidden: unable to create new content in namespace " + ns
        + " because it is being terminated", set.json().path("message").asText());
    assertEquals("NamespaceTerminating", set.json().at("/details/causes/0/reason").asText(), set.body());
    assertEquals("metadata.namespace", set.json().at("/details/causes/0/field").asText());
    Api.Reply lateBinding = api.post(rbac(ns, "rolebindings"), "application/json", """
        {"metadata":{"name":"late"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"admin"},
         "subjects":[{"apiGroup":"rbac.authorization.k8s.io","kind":"User","name":"%s"}]}""".formatted(user));
    assertEquals(403, lateBinding.code(), lateBinding.body());
    Api.Reply again = api.delete("/api/v1/namespaces/" + ns);
    assertEquals(409, again.code(), again.body());
    assertTrue(again.json().path("message").asText().contains("The system is ensuring all content is removed from this namespace"));
    assertEquals(409, api.post("/api/v1/namespaces", "application/json", "{\"metadata\":{\"name\":\"" + ns + "\"}}").code());

    // Gone: what is read under the name is the implicit namespace of every valid name, with no uid.
    api.await("/api/v1/namespaces/" + ns, TIMEOUT, r -> r.json().at("/metadata/uid").isMissingNode()
        && r.json().at("/status/phase").asText().equals("Active"));
    assertFalse(api.get("/api/v1/namespaces").body().contains("\"" + ns + "\""));

    Api.Reply recreated = api.post("/api/v1/namespaces", "application/json", "{\"metadata\":{\"name\":\"" + ns + "\"}}");
    assertEquals(201, recreated.code(), recreated.body());
    assertNotEquals(uid, recreated.json().at("/metadata/uid").asText());
    for (String path : List.of(rbac(ns, "rolebindings"), rbac(ns, "roles"), Paths.core(ns, "events"), Paths.sets(ns),
        Paths.core(ns, "pods"), Paths.core(ns, "persistentvolumeclaims"), Paths.apps(ns, "controllerrevisions"))) {
      JsonNode items = api.get(path).json().path("items");
      assertEquals(0, items.size(), path + ": " + items);
    }
    assertEquals(403, alice.get(Paths.sets(ns)).code(), "the binding of the namespace before grants nothing now");
    Kubectl kubectl = new Kubectl(api.base(), api.caCertificate(), alice.token(), ns);
    Kubectl.Result canI = kubectl.run("auth", "can-i", "create", "statefulsets");
    assertEquals("no", canI.out().trim(), canI.toString());

    // And nothing is left of it in the database.
    try (Connection c = DriverManager.getConnection(service.jdbcUrl("ordinal"), "ordinal", service.databasePassword("ordinal"));
        Statement s = c.createStatement()) {
      for (String table : NamespaceContents.TABLES) {
        try (ResultSet rows = s.executeQuery("SELECT count(*) FROM " + table + " WHERE namespace = '" + ns + "'")) {
          rows.next();
          assertEquals(0, rows.getInt(1), table);
        }
      }
    }
  }

  /** Every table that keeps objects by namespace is one the namespace controller empties. */
  @Test
  void theNamespaceControllerKnowsEveryTableOfNamespacedObjects() throws Exception {
    Set<String> tables = new TreeSet<>();
    try (Connection c = DriverManager.getConnection(service.jdbcUrl("ordinal"), "ordinal", service.databasePassword("ordinal"));
        Statement s = c.createStatement();
        ResultSet rows = s.executeQuery("SELECT table_name FROM information_schema.columns"
            + " WHERE table_schema = 'public' AND column_name = 'namespace'")) {
      while (rows.next()) {
        tables.add(rows.getString(1));
      }
    }
    // The watch log is history (deletions are written to it); cluster-scoped RBAC objects have namespace ''.
    tables.removeAll(Set.of("watch_log", "cluster_roles", "cluster_role_bindings"));
    assertEquals(tables, new TreeSet<>(NamespaceContents.TABLES));
  }

  /** An empty namespace goes at once; one that was never created and holds nothing is not found. */
  @Test
  void anEmptyNamespaceIsGoneWhenTheDeleteReturns(@Namespace String ns) {
    assertEquals(404, api.delete("/api/v1/namespaces/" + ns).code());
    assertEquals(201, api.post("/api/v1/namespaces", "application/json", "{\"metadata\":{\"name\":\"" + ns
        + "\",\"labels\":{\"pod-security.kubernetes.io/enforce\":\"restricted\"}}}").code());
    Api.Reply deleted = api.delete("/api/v1/namespaces/" + ns);
    assertEquals("Terminating", deleted.json().at("/status/phase").asText(), deleted.body());
    JsonNode after = api.get("/api/v1/namespaces/" + ns).json();
    assertTrue(after.at("/metadata/uid").isMissingNode(), after.toString());
    assertTrue(after.at("/metadata/labels/pod-security.kubernetes.io~1enforce").isMissingNode(), after.toString());
    assertEquals(403, api.delete("/api/v1/namespaces/default").code());
  }

  private static String rbac(String ns, String resource) {
    return "/apis/rbac.authorization.k8s.io/v1/namespaces/" + ns + "/" + resource;
  }

  private static String token(String user) {
    Api.Reply token = api.post("/apis/auth.ordinal.io/v1/tokens", "application/json",
        "{\"spec\":{\"user\":\"" + user + "\"}}");
    assertEquals(201, token.code(), token.body());
    return token.json().at("/status/token").asText();
  }
}
