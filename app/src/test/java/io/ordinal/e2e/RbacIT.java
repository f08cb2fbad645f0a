package io.ordinal.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Kubernetes RBAC through the API and the real kubectl: the default roles bound per namespace,
 * upstream's 403 messages, escalation prevention, aggregation, validation and the self reviews.
 */
@E2eTest
class RbacIT {
  static final Duration TIMEOUT = Duration.ofSeconds(90);
  static final String JSON = "application/json";
  static final String MERGE = "application/merge-patch+json";
  static OrdinalService service;
  static Api api;

  @Test
  void aViewerReadsSetsPodsAndLogsButMayNotScalePauseExecOrCreate(@Namespace String ns) {
    runningSet(ns);
    String user = "viewer-" + ns;
    Api viewer = userBoundTo(ns, user, "view");
    assertEquals(200, viewer.get(Paths.sets(ns)).code());
    assertEquals(200, viewer.get(Paths.set(ns, "web")).code());
    assertEquals(200, viewer.get(Paths.sets(ns) + "?watch=true&timeoutSeconds=1").code());
    assertEquals(200, viewer.get(Paths.core(ns, "pods")).code());
    assertEquals(200, viewer.get(Paths.set(ns, "web") + "/scale").code());
    assertEquals(200, viewer.get(Paths.set(ns, "web") + "/rollout/status").code());
    Api.Reply log = viewer.get(Paths.pod(ns, "web-0") + "/log");
    assertFalse(log.code() == 403, log.body());

    assertForbidden(viewer.patch(Paths.set(ns, "web") + "/scale", MERGE, "{\"spec\":{\"replicas\":2}}"),
        "statefulsets.apps \"web\" is forbidden: User \"" + user + "\" cannot patch resource \"statefulsets/scale\""
            + " in API group \"apps\" in the namespace \"" + ns + "\"");
    assertForbidden(viewer.post(Paths.set(ns, "web") + "/rollout/pause", JSON, "{}"),
        "statefulsets.apps \"web\" is forbidden: User \"" + user + "\" cannot pause resource \"statefulsets/rollout\""
            + " in API group \"apps\" in the namespace \"" + ns + "\"");
    assertForbidden(viewer.post(Paths.pod(ns, "web-0") + "/exec?command=true&stdout=true", JSON, ""),
        "pods \"web-0\" is forbidden: User \"" + user + "\" cannot create resource \"pods/exec\""
            + " in API group \"\" in the namespace \"" + ns + "\"");
    assertForbidden(viewer.post(Paths.sets(ns), JSON, Manifests.web("other", 1, 0, Map.of()).toString()),
        "statefulsets.apps is forbidden: User \"" + user + "\" cannot create resource \"statefulsets\""
            + " in API group \"apps\" in the namespace \"" + ns + "\"");
    assertForbidden(viewer.get("/apis/auth.ordinal.io/v1/tokens"),
        "tokens.auth.ordinal.io is forbidden: User \"" + user + "\" cannot list resource \"tokens\""
            + " in API group \"auth.ordinal.io\" at the cluster scope");
  }

  @Test
  void anEditorScalesPausesAndExecsButMayNotCreateRoleBindings(@Namespace String ns) {
    runningSet(ns);
    String user = "editor-" + ns;
    Api editor = userBoundTo(ns, user, "edit");
    assertEquals(200, editor.patch(Paths.set(ns, "web") + "/scale", MERGE, "{\"spec\":{\"replicas\":1}}").code());
    assertEquals(200, editor.post(Paths.set(ns, "web") + "/rollout/pause", JSON, "").code());
    assertEquals(200, editor.post(Paths.set(ns, "web") + "/rollout/resume", JSON, "").code());
    Api.Reply exec = editor.post(Paths.pod(ns, "web-0") + "/exec?command=true&stdout=true", JSON, "");
    assertFalse(exec.code() == 403, "past authorization, the POST is told to use WebSockets: " + exec.body());
    assertForbidden(editor.post(rbac(ns, "rolebindings"), JSON, binding("b", "ClusterRole", "view", "someone")),
        "rolebindings.rbac.authorization.k8s.io is forbidden: User \"" + user + "\" cannot create resource"
            + " \"rolebindings\" in API group \"rbac.authorization.k8s.io\" in the namespace \"" + ns + "\"");
  }

  @Test
  void anAdminCreatesRoleBindingsInItsNamespaceOnly(@Namespace String ns) {
    String user = "admin-" + ns;
    Api admin = userBoundTo(ns, user, "admin");
    Api.Reply created = admin.post(rbac(ns, "rolebindings"), JSON, binding("readers", "ClusterRole", "view", "reader-" + ns));
    assertEquals(201, created.code(), created.body());
    String other = ns + "-other";
    assertForbidden(admin.post(rbac(other, "rolebindings"), JSON, binding("readers", "ClusterRole", "view", "x")),
        "rolebindings.rbac.authorization.k8s.io is forbidden: User \"" + user + "\" cannot create resource"
            + " \"rolebindings\" in API group \"rbac.authorization.k8s.io\" in the namespace \"" + other + "\"");
    // What it granted works at once.
    Api reader = api.as(token("reader-" + ns));
    assertEquals(200, reader.get(Paths.sets(ns)).code());
  }

  @Test
  void aBindingInOneNamespaceGrantsNothingInAnother(@Namespace String ns) {
    String user = "scoped-" + ns;
    Api scoped = userBoundTo(ns, user, "edit");
    assertEquals(200, scoped.get(Paths.sets(ns)).code());
    String other = ns + "-b";
    assertForbidden(scoped.get(Paths.sets(other)), "statefulsets.apps is forbidden: User \"" + user
        + "\" cannot list resource \"statefulsets\" in API group \"apps\" in the namespace \"" + other + "\"");
    assertForbidden(scoped.get("/apis/apps/v1/statefulsets"), "statefulsets.apps is forbidden: User \"" + user
        + "\" cannot list resource \"statefulsets\" in API group \"apps\" at the cluster scope");
  }

  @Test
  void anEditorCannotGrantItselfAdminNorWriteRolesBeyondItsOwnRules(@Namespace String ns) {
    String user = "climber-" + ns;
    Api climber = userBoundTo(ns, user, "edit");
    // It may write RBAC objects in its namespace, but only grant what it holds.
    assertEquals(201, api.post(rbac(ns, "roles"), JSON, """
        {"metadata":{"name":"rbac-writer"},"rules":[{"apiGroups":["rbac.authorization.k8s.io"],
          "resources":["roles","rolebindings"],"verbs":["create","get","list"]}]}""").code());
    assertEquals(201, api.post(rbac(ns, "rolebindings"), JSON, binding("climber-rbac", "Role", "rbac-writer", user)).code());

    Api.Reply toAdmin = climber.post(rbac(ns, "rolebindings"), JSON, binding("climb", "ClusterRole", "admin", user));
    assertEquals(403, toAdmin.code(), toAdmin.body());
    String message = toAdmin.json().path("message").asText();
    assertTrue(message.startsWith("rolebindings.rbac.authorization.k8s.io \"climb\" is forbidden: user \"" + user
        + "\" (groups=[\"system:authenticated\"]) is attempting to grant RBAC permissions not currently held:"), message);
    assertTrue(message.contains("Resources:[\"rolebindings\"]") && message.contains("Verbs:[\"delete\"]"), message);

    Api.Reply bigRole = climber.post(rbac(ns, "roles"), JSON, """
        {"metadata":{"name":"everything"},"rules":[{"apiGroups":["*"],"resources":["*"],"verbs":["*"]}]}""");
    assertEquals(403, bigRole.code(), bigRole.body());
    assertTrue(bigRole.json().path("message").asText().contains("is attempting to grant RBAC permissions not currently held"));

    Api.Reply toView = climber.post(rbac(ns, "rolebindings"), JSON, binding("friend", "ClusterRole", "view", "friend-" + ns));
    assertEquals(201, toView.code(), "view is within edit: " + toView.body());
    Api.Reply smallRole = climber.post(rbac(ns, "roles"), JSON, """
        {"metadata":{"name":"pod-reader"},"rules":[{"apiGroups":[""],"resources":["pods"],"verbs":["get","list"]}]}""");
    assertEquals(201, smallRole.code(), smallRole.body());
  }

  @Test
  void aClusterRoleLabelledAggregateToViewExtendsViewEditAndAdmin(@Namespace String ns) {
    String user = "aggregated-" + ns;
    Api viewer = userBoundTo(ns, user, "view");
    String review = """
        {"spec":{"resourceAttributes":{"namespace":"%s","verb":"get","group":"example.io","resource":"widgets"}}}"""
        .formatted(ns);
    assertFalse(viewer.post("/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", JSON, review).json()
        .at("/status/allowed").asBoolean());
    String name = "widgets-" + ns;
    Api.Reply created = api.post("/apis/rbac.authorization.k8s.io/v1/clusterroles", JSON, """
        {"metadata":{"name":"%s","labels":{"rbac.authorization.k8s.io/aggregate-to-view":"true"}},
         "rules":[{"apiGroups":["example.io"],"resources":["widgets"],"verbs":["get"]}]}""".formatted(name));
    assertEquals(201, created.code(), created.body());
    for (String role : new String[] {"view", "edit", "admin"}) {
      String rules = api.get("/apis/rbac.authorization.k8s.io/v1/clusterroles/" + role).json().path("rules").toString();
      assertTrue(rules.contains("widgets"), role + ": " + rules);
    }
    JsonNode allowed = viewer.post("/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", JSON, review).json();
    assertTrue(allowed.at("/status/allowed").asBoolean(), allowed.toString());
    assertEquals("RBAC: allowed by RoleBinding \"" + user + "/" + ns + "\" of ClusterRole \"view\" to User \"" + user + "\"",
        allowed.at("/status/reason").asText());

    assertEquals(200, api.delete("/apis/rbac.authorization.k8s.io/v1/clusterroles/" + name).code());
    assertFalse(api.get("/apis/rbac.authorization.k8s.io/v1/clusterroles/view").json().path("rules").toString()
        .contains("widgets"), "the rules go with the role that brought them");
  }

  @Test
  void invalidRbacObjectsAreRefusedWithFieldPaths(@Namespace String ns) {
    assertInvalid(api.post(rbac(ns, "rolebindings"), JSON, "{\"metadata\":{\"name\":\"x\"}}"),
        "roleRef.kind", "roleRef.name");
    assertInvalid(api.post("/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", JSON, """
        {"metadata":{"name":"crb-%s"},"roleRef":{"kind":"Role","name":"r"}}""".formatted(ns)), "roleRef.kind");
    assertInvalid(api.post(rbac(ns, "rolebindings"), JSON, """
        {"metadata":{"name":"x"},"roleRef":{"kind":"ClusterRole","name":"view"},"subjects":[{"kind":"Robot","name":"r2"}]}"""),
        "subjects[0].kind");
    assertInvalid(api.post(rbac(ns, "roles"), JSON, """
        {"metadata":{"name":"x"},"rules":[{"apiGroups":[""],"resources":["pods"]},{"verbs":["get"],"nonResourceURLs":["/x"]}]}"""),
        "rules[0].verbs", "rules[1].nonResourceURLs");
    assertEquals(201, api.post(rbac(ns, "rolebindings"), JSON, binding("fixed", "ClusterRole", "view", "u")).code());
    Api.Reply changed = api.patch(rbac(ns, "rolebindings") + "/fixed", MERGE, "{\"roleRef\":{\"name\":\"edit\"}}");
    assertInvalid(changed, "roleRef");
    assertTrue(changed.json().path("message").asText().endsWith("cannot change roleRef"), changed.body());
  }

  @Test
  void rbacObjectsAreReadPatchedWithResourceVersionsAndDeleted(@Namespace String ns) {
    Api.Reply created = api.post(rbac(ns, "roles"), JSON, """
        {"metadata":{"name":"r","labels":{"team":"a"}},"rules":[{"apiGroups":[""],"resources":["pods"],"verbs":["get"]}]}""");
    assertEquals(201, created.code(), created.body());
    String version = created.json().at("/metadata/resourceVersion").asText();
    assertFalse(created.json().at("/metadata/uid").asText().isEmpty());
    assertEquals(1, api.get(rbac(ns, "roles") + "?labelSelector=team%3Da").json().path("items").size());
    assertEquals(0, api.get(rbac(ns, "roles") + "?labelSelector=team%3Db").json().path("items").size());
    String watched = api.get(rbac(ns, "roles") + "?watch=true&resourceVersion=0&timeoutSeconds=1").body();
    assertTrue(watched.contains("\"type\":\"ADDED\"") && watched.contains("\"name\":\"r\""), watched);
    Api.Reply patched = api.patch(rbac(ns, "roles") + "/r", "application/strategic-merge-patch+json",
        "{\"rules\":[{\"apiGroups\":[\"\"],\"resources\":[\"pods\"],\"verbs\":[\"list\"]}]}");
    assertEquals(200, patched.code(), patched.body());
    assertEquals("[\"list\"]", patched.json().at("/rules").toString().replaceAll(".*\"verbs\":(\\[[^]]*]).*", "$1"),
        "a strategic patch replaces RBAC lists: " + patched.body());
    JsonNode stale = created.json();
    Api.Reply conflict = api.put(rbac(ns, "roles") + "/r", JSON, stale.toString());
    assertEquals(409, conflict.code(), "resourceVersion " + version + " is stale: " + conflict.body());
    assertEquals(200, api.send("DELETE", rbac(ns, "roles") + "/r?dryRun=All", null, null, null).code());
    assertEquals(200, api.get(rbac(ns, "roles") + "/r").code(), "a dry run deletes nothing");
    assertEquals(200, api.delete(rbac(ns, "roles") + "/r").code());
    assertEquals(404, api.get(rbac(ns, "roles") + "/r").code());
  }

  @Test
  void selfReviewsAnswerForTheCallerAndTheAnonymousUserMayNotAsk(@Namespace String ns) {
    String user = "reviewer-" + ns;
    Api viewer = userBoundTo(ns, user, "view");
    JsonNode whoami = viewer.post("/apis/authentication.k8s.io/v1/selfsubjectreviews", JSON, "{}").json();
    assertEquals(user, whoami.at("/status/userInfo/username").asText(), whoami.toString());
    JsonNode rules = viewer.post("/apis/authorization.k8s.io/v1/selfsubjectrulesreviews", JSON,
        "{\"spec\":{\"namespace\":\"" + ns + "\"}}").json();
    assertTrue(rules.at("/status/resourceRules").toString().contains("statefulsets"), rules.toString());
    assertTrue(rules.at("/status/nonResourceRules").toString().contains("/apis/*"), rules.toString());
    assertEquals(422, viewer.post("/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", JSON, "{\"spec\":{}}").code());
    assertForbidden(api.as(null).post("/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", JSON, "{}"),
        "selfsubjectaccessreviews.authorization.k8s.io is forbidden: User \"system:anonymous\" cannot create resource"
            + " \"selfsubjectaccessreviews\" in API group \"authorization.k8s.io\" at the cluster scope");
  }

  @Test
  void kubectlAuthCanIAnswersForEachDefaultRole(@Namespace String ns) {
    Kubectl view = kubectlBoundTo(ns, "kview-" + ns, "view");
    Kubectl edit = kubectlBoundTo(ns, "kedit-" + ns, "edit");
    Kubectl admin = kubectlBoundTo(ns, "kadmin-" + ns, "admin");
    Kubectl clusterAdmin = new Kubectl(api.base(), api.caCertificate(), api.token(), ns);
    record Case(String[] args, boolean view, boolean edit, boolean admin) {}
    Case[] cases = {
        new Case(new String[] {"get", "statefulsets"}, true, true, true),
        new Case(new String[] {"watch", "pods"}, true, true, true),
        new Case(new String[] {"get", "pods", "--subresource=log"}, true, true, true),
        new Case(new String[] {"create", "pods", "--subresource=exec"}, false, true, true),
        new Case(new String[] {"create", "pods/exec"}, false, true, true),
        new Case(new String[] {"patch", "statefulsets", "--subresource=scale"}, false, true, true),
        new Case(new String[] {"pause", "statefulsets/rollout"}, false, true, true),
        new Case(new String[] {"undo", "statefulsets", "--subresource=rollout"}, false, true, true),
        new Case(new String[] {"get", "statefulsets", "--subresource=rollout"}, true, true, true),
        new Case(new String[] {"create", "rolebindings"}, false, false, true),
        new Case(new String[] {"create", "clusterroles"}, false, false, false),
        new Case(new String[] {"list", "statefulsets", "-A"}, false, false, false),
        new Case(new String[] {"get", "/apis"}, true, true, true),
        new Case(new String[] {"get", "/metrics"}, false, false, false),
    };
    for (Case c : cases) {
      assertCanI(view, c.view(), c.args());
      assertCanI(edit, c.edit(), c.args());
      assertCanI(admin, c.admin(), c.args());
      assertCanI(clusterAdmin, true, c.args());
    }
    String list = view.run("auth", "can-i", "--list").ok().out();
    assertTrue(list.contains("statefulsets.apps") && list.contains("[get list watch]")
        && list.contains("selfsubjectaccessreviews.authorization.k8s.io"), list);
    String whoami = view.run("auth", "whoami").ok().out();
    assertTrue(whoami.contains("kview-" + ns) && whoami.contains("system:authenticated"), whoami);
  }

  @Test
  void kubectlCreatesGetsDescribesAppliesAndDeletesRbacObjects(@Namespace String ns) throws Exception {
    Kubectl kubectl = new Kubectl(api.base(), api.caCertificate(), api.token(), ns);
    kubectl.run("create", "rolebinding", "viewers", "--clusterrole=view", "--user=kuser-" + ns).ok();
    kubectl.run("create", "role", "pod-reader", "--verb=get,list", "--resource=pods").ok();
    kubectl.run("create", "clusterrolebinding", "crb-" + ns, "--clusterrole=view", "--group=g-" + ns).ok();
    String bindings = kubectl.run("get", "rolebindings", "-o", "wide").ok().out();
    assertTrue(bindings.lines().anyMatch(l -> l.matches("viewers\\s+ClusterRole/view\\s+\\S+\\s+kuser-" + ns + ".*")), bindings);
    String roles = kubectl.run("get", "clusterroles").ok().out();
    assertTrue(roles.startsWith("NAME") && roles.contains("CREATED AT") && roles.contains("cluster-admin")
        && roles.contains("system:basic-user"), roles);
    String described = kubectl.run("describe", "role", "pod-reader").ok().out();
    assertTrue(described.contains("pods") && described.contains("[get list]"), described);
    Path manifest = Files.createTempFile("role", ".yaml");
    Files.writeString(manifest, """
        apiVersion: rbac.authorization.k8s.io/v1
        kind: Role
        metadata: {name: applied}
        rules:
        - {apiGroups: [apps], resources: [statefulsets], verbs: [get]}
        """);
    kubectl.run("apply", "-f", manifest.toString()).ok();
    Files.writeString(manifest, Files.readString(manifest).replace("verbs: [get]", "verbs: [get, list]"));
    kubectl.run("apply", "-f", manifest.toString()).ok();
    assertEquals("[\"get\",\"list\"]", api.get(rbac(ns, "roles") + "/applied").json().at("/rules/0/verbs").toString());
    kubectl.run("delete", "role", "applied", "pod-reader").ok();
    kubectl.run("delete", "clusterrolebinding", "crb-" + ns).ok();
    assertEquals(404, api.get(rbac(ns, "roles") + "/applied").code());

    Kubectl reader = new Kubectl(api.base(), api.caCertificate(), token("kuser-" + ns), ns);
    assertEquals(0, reader.run("get", "sts").code(), "the binding kubectl made works");
  }

  @Test
  void aViewerCannotScalePauseOrExecWithKubectl(@Namespace String ns) {
    runningSet(ns);
    Kubectl viewer = kubectlBoundTo(ns, "kviewer-" + ns, "view");
    Map<String, String> withPlugin = Map.of("PATH",
        Path.of("..", "deploy", "kubectl").toAbsolutePath().normalize() + ":" + System.getenv("PATH"));
    Kubectl.Result scale = viewer.run("scale", "sts/web", "--replicas=2");
    assertTrue(scale.code() != 0 && scale.err().contains("Forbidden") && scale.err().contains("statefulsets/scale"), scale.err());
    Kubectl.Result pause = viewer.run(null, withPlugin, "ordinal", "pause", "statefulset/web");
    assertTrue(pause.code() != 0 && pause.err().contains("cannot pause resource \"statefulsets/rollout\""),
        pause.out() + pause.err());
    Kubectl.Result exec = viewer.run("exec", "web-0", "--", "true");
    assertTrue(exec.code() != 0 && exec.err().contains("pods/exec"), exec.err());
    assertEquals(1, api.set(ns, "web").at("/spec/replicas").asInt(), "nothing changed");
  }

  // --- helpers

  private static void runningSet(String ns) {
    assertEquals(201, api.createSet(ns, Manifests.web("web", 1, 0, Map.of())).code());
    api.awaitConverged(ns, "web", 1, TIMEOUT);
  }

  /** A token for {@code user} (no groups but system:authenticated) and a RoleBinding of it to {@code clusterRole} in ns. */
  private static Api userBoundTo(String ns, String user, String clusterRole) {
    Api.Reply bound = api.post(rbac(ns, "rolebindings"), JSON, binding(user, "ClusterRole", clusterRole, user));
    assertEquals(201, bound.code(), bound.body());
    return api.as(token(user));
  }

  private static Kubectl kubectlBoundTo(String ns, String user, String clusterRole) {
    userBoundTo(ns, user, clusterRole);
    return new Kubectl(api.base(), api.caCertificate(), token(user), ns);
  }

  private static String token(String user) {
    Api.Reply issued = api.post("/apis/auth.ordinal.io/v1/tokens", JSON, "{\"spec\":{\"user\":\"" + user + "\"}}");
    assertEquals(201, issued.code(), issued.body());
    return issued.json().at("/status/token").asText();
  }

  private static String rbac(String ns, String resource) {
    return "/apis/rbac.authorization.k8s.io/v1/namespaces/" + ns + "/" + resource;
  }

  private static String binding(String name, String kind, String role, String user) {
    return """
        {"apiVersion":"rbac.authorization.k8s.io/v1","kind":"RoleBinding","metadata":{"name":"%s"},
         "roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"%s","name":"%s"},
         "subjects":[{"apiGroup":"rbac.authorization.k8s.io","kind":"User","name":"%s"}]}"""
        .formatted(name, kind, role, user);
  }

  private static void assertForbidden(Api.Reply reply, String message) {
    assertEquals(403, reply.code(), reply.body());
    assertEquals("Forbidden", reply.json().path("reason").asText());
    assertEquals(message, reply.json().path("message").asText());
  }

  private static void assertInvalid(Api.Reply reply, String... fields) {
    assertEquals(422, reply.code(), reply.body());
    String causes = reply.json().at("/details/causes").toString();
    for (String field : fields) {
      assertTrue(causes.contains("\"field\":\"" + field + "\""), field + " in " + causes);
    }
  }

  private static void assertCanI(Kubectl kubectl, boolean expected, String... args) {
    String[] command = new String[args.length + 2];
    command[0] = "auth";
    command[1] = "can-i";
    System.arraycopy(args, 0, command, 2, args.length);
    Kubectl.Result result = kubectl.run(command);
    assertEquals(expected ? "yes" : "no", result.out().trim(), String.join(" ", args) + ": " + result.err());
    assertEquals(expected ? 0 : 1, result.code());
  }
}
