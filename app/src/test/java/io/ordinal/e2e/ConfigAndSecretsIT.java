package io.ordinal.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.protobuf.Descriptors;
import io.ordinal.store.KubeJson;
import io.ordinal.workflow.LargePayloadCodec;
import io.temporal.api.common.v1.Payload;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * ConfigMaps, Secrets and ServiceAccounts as kubectl writes and reads them: upstream's validation,
 * tables, watches and RBAC (view reads ConfigMaps but not Secrets), and a Secret's value nowhere in
 * clear outside the API: not in its table, the watch log, the service's logs, the audit log or the
 * workflow histories of a set that uses it.
 */
@E2eTest
class ConfigAndSecretsIT {
  static OrdinalService service;
  static Api api;

  @Test
  void kubectlCreatesConfigMapsAndSecretsAndReadsThemBackAsUpstreamPrintsThem(@Namespace String ns) {
    Kubectl kubectl = kubectl(ns);
    assertEquals(0, kubectl.run("create", "configmap", "app", "--from-literal=mode=fast", "--from-literal=level=3").code());
    assertEquals(0, kubectl.run("create", "secret", "generic", "db", "--from-literal=user=admin").code());
    assertEquals(0, kubectl.run("create", "serviceaccount", "runner").code());

    JsonNode map = api.get("/api/v1/namespaces/" + ns + "/configmaps/app").json();
    assertEquals("fast", map.at("/data/mode").asText(), map.toString());
    JsonNode secret = api.get("/api/v1/namespaces/" + ns + "/secrets/db").json();
    assertEquals("Opaque", secret.path("type").asText(), secret.toString());
    assertEquals("admin", new String(Base64.getDecoder().decode(secret.at("/data/user").asText()), StandardCharsets.UTF_8));

    Kubectl.Result maps = kubectl.run("get", "configmaps", "app");
    assertTrue(maps.out().matches("(?s)NAME\\s+DATA\\s+AGE\\s+app\\s+2\\s+\\S+\\s*"), maps.toString());
    Kubectl.Result secrets = kubectl.run("get", "secrets", "db");
    assertTrue(secrets.out().matches("(?s)NAME\\s+TYPE\\s+DATA\\s+AGE\\s+db\\s+Opaque\\s+1\\s+\\S+\\s*"), secrets.toString());
    Kubectl.Result accounts = kubectl.run("get", "sa", "runner");
    assertTrue(accounts.out().matches("(?s)NAME\\s+SECRETS\\s+AGE\\s+runner\\s+0\\s+\\S+\\s*"), accounts.toString());

    // stringData is folded into data and never stored as such.
    Kubectl.Result applied = kubectl.run("""
        apiVersion: v1
        kind: Secret
        metadata:
          name: tls-like
        stringData:
          token: abc
        """, java.util.Map.of(), "apply", "--server-side", "-f", "-");
    assertEquals(0, applied.code(), applied.toString());
    JsonNode folded = api.get("/api/v1/namespaces/" + ns + "/secrets/tls-like").json();
    assertEquals("YWJj", folded.at("/data/token").asText(), folded.toString());
    assertTrue(folded.path("stringData").isMissingNode() || folded.path("stringData").isNull(), folded.toString());
  }

  /** Server-side apply records who owns what, and a server dry run stores nothing, on each new kind. */
  @Test
  void serverSideApplyAndServerDryRunWorkOnTheNewKinds(@Namespace String ns) {
    Kubectl kubectl = kubectl(ns);
    String manifests = """
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: conf}
        data: {mode: fast}
        ---
        apiVersion: v1
        kind: Secret
        metadata: {name: cred}
        stringData: {user: admin}
        ---
        apiVersion: v1
        kind: ServiceAccount
        metadata: {name: runner}
        ---
        apiVersion: v1
        kind: Service
        metadata: {name: db}
        spec:
          clusterIP: None
          selector: {app: db}
          ports: [{name: pg, port: 5432}]
        """;
    String applied = kubectl.run(manifests, java.util.Map.of(), "apply", "--server-side", "-f", "-").ok().out();
    for (String object : List.of("configmap/conf", "secret/cred", "serviceaccount/runner", "service/db")) {
      assertTrue(applied.contains(object + " serverside-applied"), applied);
    }
    JsonNode map = api.get("/api/v1/namespaces/" + ns + "/configmaps/conf").json();
    boolean owned = false;
    for (JsonNode entry : map.at("/metadata/managedFields")) {
      owned |= entry.path("manager").asText().equals("kubectl") && entry.at("/fieldsV1/f:data/f:mode").isObject();
    }
    assertTrue(owned, "kubectl owns data.mode: " + map);

    String changed = manifests.replace("mode: fast", "mode: slow").replace("port: 5432", "port: 5433");
    assertTrue(kubectl.run(changed, java.util.Map.of(), "apply", "--server-side", "--dry-run=server", "-f", "-").ok().out()
        .contains("(server dry run)"));
    kubectl.run("delete", "secret", "cred", "--dry-run=server").ok();
    assertEquals("fast", api.get("/api/v1/namespaces/" + ns + "/configmaps/conf").json().at("/data/mode").asText());
    assertEquals(5432, api.get("/api/v1/namespaces/" + ns + "/services/db").json().at("/spec/ports/0/port").asInt());
    assertEquals(200, api.get("/api/v1/namespaces/" + ns + "/secrets/cred").code(), "a dry-run delete deletes nothing");
  }

  /**
   * A local container's environment from a ConfigMap and a Secret (valueFrom and envFrom): while the
   * ConfigMap is missing the container waits in CreateContainerConfigError with the kubelet's words,
   * and starts with the values once it exists.
   */
  @Test
  void aLocalContainerTakesItsEnvironmentFromConfigMapsAndSecretsAndWaitsForAMissingOne(@Namespace String ns) {
    ObjectNode set = Manifests.commandSet("env", 1, "sh", "-c", "echo mode=$MODE user=$USER_NAME level=$cfg_level; sleep 3600");
    ObjectNode container = (ObjectNode) set.at("/spec/template/spec/containers/0");
    ArrayNode env = container.putArray("env");
    env.addObject().put("name", "MODE").putObject("valueFrom").putObject("configMapKeyRef").put("name", "app").put("key", "mode");
    env.addObject().put("name", "USER_NAME").putObject("valueFrom").putObject("secretKeyRef").put("name", "db").put("key", "user");
    env.addObject().put("name", "ABSENT").putObject("valueFrom").putObject("secretKeyRef").put("name", "none")
        .put("key", "k").put("optional", true);
    container.putArray("envFrom").addObject().put("prefix", "cfg_").putObject("configMapRef").put("name", "app");
    api.createSet(ns, set);
    String pod = "/api/v1/namespaces/" + ns + "/pods/env-0";
    JsonNode waiting = api.await(pod, java.time.Duration.ofSeconds(90), r -> r.code() == 200
        && "CreateContainerConfigError".equals(r.json().at("/status/containerStatuses/0/state/waiting/reason").asText()));
    assertEquals("configmap \"app\" not found", waiting.at("/status/containerStatuses/0/state/waiting/message").asText(),
        waiting.toString());

    assertEquals(0, kubectl(ns).run("create", "configmap", "app", "--from-literal=mode=fast", "--from-literal=level=3").code());
    assertEquals(0, kubectl(ns).run("create", "secret", "generic", "db", "--from-literal=user=admin").code());
    api.awaitConverged(ns, "env", 1, java.time.Duration.ofSeconds(120));
    String log = "";
    for (int attempt = 0; attempt < 60 && !log.contains("mode="); attempt++) {
      Api.sleep(500);
      log = api.get(pod + "/log").body();
    }
    assertTrue(log.contains("mode=fast user=admin level=3"), log);
  }

  @Test
  void invalidConfigMapsAndSecretsAreRefusedWithUpstreamsFieldPaths(@Namespace String ns) {
    String maps = "/api/v1/namespaces/" + ns + "/configmaps";
    InvalidInputIT.assertRefused(api.post(maps, "application/json",
        "{\"metadata\":{\"name\":\"bad\"},\"data\":{\"no spaces\":\"x\"}}"), 422, "data[no spaces]");
    InvalidInputIT.assertRefused(api.post(maps, "application/json",
        "{\"metadata\":{\"name\":\"dup\"},\"data\":{\"k\":\"x\"},\"binaryData\":{\"k\":\"eA==\"}}"), 422, "data[k]");
    InvalidInputIT.assertRefused(api.post(maps, "application/json",
        "{\"metadata\":{\"name\":\"big\"},\"data\":{\"k\":\"" + "x".repeat(1024 * 1024 + 1) + "\"}}"), 422, "");
    assertEquals(201, api.post(maps, "application/json",
        "{\"metadata\":{\"name\":\"frozen\"},\"immutable\":true,\"data\":{\"k\":\"v\"}}").code());
    InvalidInputIT.assertRefused(api.patch(maps + "/frozen", "application/merge-patch+json", "{\"data\":{\"k\":\"w\"}}"),
        422, "data");

    String secrets = "/api/v1/namespaces/" + ns + "/secrets";
    InvalidInputIT.assertRefused(api.post(secrets, "application/json",
        "{\"metadata\":{\"name\":\"tls\"},\"type\":\"kubernetes.io/tls\",\"data\":{\"tls.crt\":\"eA==\"}}"), 422, "data[tls.key]");
    Api.Reply notBase64 = api.post(secrets, "application/json", "{\"metadata\":{\"name\":\"b\"},\"data\":{\"k\":\"%%%\"}}");
    assertEquals(400, notBase64.code(), notBase64.body());
    assertEquals(201, api.post(secrets, "application/json", "{\"metadata\":{\"name\":\"typed\"},\"data\":{}}").code());
    InvalidInputIT.assertRefused(api.patch(secrets + "/typed", "application/merge-patch+json",
        "{\"type\":\"kubernetes.io/basic-auth\",\"data\":{\"username\":\"eA==\"}}"), 422, "type");
    assertEquals(404, api.get(maps + "/bad").code(), "a refused create stored nothing");
  }

  @Test
  void viewReadsConfigMapsButNotSecretsAndEditReadsBoth(@Namespace String ns) {
    assertEquals(0, kubectl(ns).run("create", "configmap", "c", "--from-literal=a=b").code());
    assertEquals(0, kubectl(ns).run("create", "secret", "generic", "s", "--from-literal=a=b").code());
    for (String role : List.of("view", "edit")) {
      String user = role + "-" + ns;
      Api.Reply token = api.post("/apis/auth.ordinal.io/v1/tokens", "application/json",
          "{\"spec\":{\"user\":\"" + user + "\",\"description\":\"config\"}}");
      assertEquals(201, token.code(), token.body());
      api.bind(user, role, ns);
      Api as = api.as(token.json().at("/status/token").asText());
      assertEquals(200, as.get("/api/v1/namespaces/" + ns + "/configmaps/c").code(), role);
      assertEquals(role.equals("edit") ? 200 : 403, as.get("/api/v1/namespaces/" + ns + "/secrets/s").code(), role);
      assertEquals(role.equals("edit") ? 200 : 403, as.get("/api/v1/namespaces/" + ns + "/secrets").code(), role);
    }
  }

  @Test
  void aWatchSeesConfigMapsAddedChangedAndDeleted(@Namespace String ns) {
    String maps = "/api/v1/namespaces/" + ns + "/configmaps";
    String from = api.get(maps).json().at("/metadata/resourceVersion").asText();
    assertEquals(201, api.post(maps, "application/json", "{\"metadata\":{\"name\":\"w\"},\"data\":{\"k\":\"1\"}}").code());
    assertEquals(200, api.patch(maps + "/w", "application/merge-patch+json", "{\"data\":{\"k\":\"2\"}}").code());
    assertEquals(200, api.delete(maps + "/w").code());
    String events = api.get(maps + "?watch=true&resourceVersion=" + from + "&timeoutSeconds=2").body();
    List<String> seen = new ArrayList<>();
    events.lines().filter(line -> !line.isBlank()).map(line -> KubeJson.read(line, JsonNode.class))
        .forEach(event -> seen.add(event.path("type").asText() + " " + event.at("/object/data/k").asText()));
    assertEquals(List.of("ADDED 1", "MODIFIED 2", "DELETED 2"), seen, events);
  }

  /** The value of a Secret (and its base64) is found nowhere on disk in clear: table, watch log, logs, audit. */
  @Test
  void aSecretsValueIsSealedAtRestAndNeverLogged(@Namespace String ns) throws Exception {
    String value = "hunter2-" + ns + "-Zq8";
    String encoded = Base64.getEncoder().encodeToString(value.getBytes(StandardCharsets.UTF_8));
    assertEquals(0, kubectl(ns).run("create", "secret", "generic", "pw", "--from-literal=password=" + value).code());
    assertEquals(200, api.patch("/api/v1/namespaces/" + ns + "/secrets/pw", "application/merge-patch+json",
        "{\"metadata\":{\"labels\":{\"touched\":\"yes\"}}}").code());
    assertEquals(encoded, api.get("/api/v1/namespaces/" + ns + "/secrets/pw").json().at("/data/password").asText());

    try (Connection c = DriverManager.getConnection(service.jdbcUrl("ordinal"), "ordinal", service.databasePassword("ordinal"))) {
      String stored = one(c, "SELECT object FROM secrets WHERE namespace = ? AND name = 'pw'", ns);
      assertTrue(stored.startsWith("k8s:enc:aesgcm:v1:"), "sealed: " + stored.substring(0, Math.min(40, stored.length())));
      assertClear(stored, value, encoded, "the secrets table");
      try (PreparedStatement q = c.prepareStatement("SELECT row::text FROM watch_log WHERE resource = 'secrets' AND namespace = ?")) {
        q.setString(1, ns);
        try (ResultSet rows = q.executeQuery()) {
          int entries = 0;
          while (rows.next()) {
            entries++;
            assertClear(rows.getString(1), value, encoded, "the watch log");
          }
          assertEquals(2, entries, "the create and the label change are in the watch log");
        }
      }
    }
    // A set whose pods take the Secret: its histories (every payload, decoded) name the Secret, never its value.
    ObjectNode set = Manifests.commandSet("uses-pw", 1, "sh", "-c", "sleep 3600");
    ((ObjectNode) set.at("/spec/template/spec/containers/0")).putArray("env").addObject().put("name", "PASSWORD")
        .putObject("valueFrom").putObject("secretKeyRef").put("name", "pw").put("key", "password");
    api.createSet(ns, set);
    api.awaitConverged(ns, "uses-pw", 1, java.time.Duration.ofSeconds(120));
    List<String> payloads = service.withTemporal(client -> {
      List<String> texts = new ArrayList<>();
      List<String> ids = new ArrayList<>(List.of("statefulset/" + ns + "/uses-pw"));
      client.listExecutions("OrdinalNamespace = '" + ns + "'").forEach(e -> ids.add(e.getExecution().getWorkflowId()));
      for (String id : ids) {
        client.fetchHistory(id).getEvents().forEach(event -> payloadTexts(event, texts));
      }
      return texts;
    });
    assertTrue(payloads.stream().anyMatch(text -> text.contains("uses-pw")), "the set's histories were read: " + payloads);
    for (String text : payloads) {
      assertClear(text, value, encoded, "a workflow history");
    }

    Path keys = service.dataDir.resolve("encryption").resolve("keys");
    assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(keys)));
    try (Stream<Path> files = Files.walk(service.dataDir)) {
      for (Path file : files.filter(f -> f.toString().endsWith(".log") && Files.isRegularFile(f)).toList()) {
        assertClear(Files.readString(file, StandardCharsets.ISO_8859_1), value, encoded, file.toString());
      }
    }
  }

  /** The text of every payload of a history event (its fields walked by reflection), decoded as the worker does. */
  private static void payloadTexts(com.google.protobuf.Message message, List<String> texts) {
    if (message instanceof Payload payload) {
      LargePayloadCodec.decode(List.of(payload), Integer.MAX_VALUE).forEach(p -> texts.add(p.getData().toStringUtf8()));
      return;
    }
    message.getAllFields().forEach((field, value) -> {
      if (field.getJavaType() == Descriptors.FieldDescriptor.JavaType.MESSAGE) {
        for (Object child : field.isRepeated() ? (List<?>) value : List.of(value)) {
          payloadTexts((com.google.protobuf.Message) child, texts);
        }
      }
    });
  }

  private static void assertClear(String text, String value, String encoded, String where) {
    assertFalse(text.contains(value), "the secret's value is in " + where);
    assertFalse(text.contains(encoded), "the secret's base64 is in " + where);
  }

  private static String one(Connection c, String sql, String parameter) throws Exception {
    try (PreparedStatement q = c.prepareStatement(sql)) {
      q.setString(1, parameter);
      try (ResultSet rows = q.executeQuery()) {
        assertTrue(rows.next(), sql);
        return rows.getString(1);
      }
    }
  }

  private static Kubectl kubectl(String ns) {
    return new Kubectl(api.base(), api.caCertificate(), api.token(), ns);
  }
}
