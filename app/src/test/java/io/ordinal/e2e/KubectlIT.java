package io.ordinal.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.ordinal.store.KubeJson;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The real kubectl binary drives Ordinal: every verb a StatefulSet user types, against the packaged service. */
@E2eTest
class KubectlIT {
  static final Duration TIMEOUT = Duration.ofSeconds(90);
  static Api api;

  @Test
  void discoveryListsTheResourcesWithTheirShortNames(@Namespace String ns) {
    Kubectl kubectl = kubectl(ns);
    String resources = kubectl.run("api-resources").ok().out();
    assertTrue(resources.matches("(?s).*namespaces\\s+ns\\s+v1\\s+false\\s+Namespace.*"), resources);
    assertTrue(resources.matches("(?s).*statefulsets\\s+sts\\s+apps/v1\\s+true\\s+StatefulSet.*"), resources);
    assertTrue(resources.matches("(?s).*pods\\s+po\\s+v1\\s+true\\s+Pod.*"), resources);
    assertTrue(resources.matches("(?s).*persistentvolumeclaims\\s+pvc\\s+v1.*"), resources);
    assertTrue(resources.matches("(?s).*events\\s+ev\\s+v1.*"), resources);
    assertTrue(kubectl.run("version").ok().out().contains("Server Version: v1.32"));
  }

  @Test
  void applyCreatesThenUpdatesAndRemovesWhatTheManifestNoLongerHas(@Namespace String ns) throws IOException {
    Kubectl kubectl = kubectl(ns);
    ObjectNode set = Manifests.web("web", 1, 0, Map.of("A", "1", "B", "2"));
    ((ObjectNode) set.get("metadata")).putObject("labels").put("app", "web").put("tier", "front");
    assertTrue(kubectl.run(yaml(set), Map.of(), "apply", "-f", "-").ok().out().contains("statefulset.apps/web created"));
    api.awaitConverged(ns, "web", 1, TIMEOUT);

    ((ObjectNode) set.at("/spec/template/spec/containers/0")).put("image", "nginx:1.26").putArray("env")
        .addObject().put("name", "A").put("value", "1");
    ((ObjectNode) set.at("/metadata/labels")).remove("tier");
    assertTrue(kubectl.run(yaml(set), Map.of(), "apply", "-f", "-").ok().out().contains("statefulset.apps/web configured"));

    JsonNode stored = api.get(Paths.set(ns, "web")).json();
    assertEquals("nginx:1.26", stored.at("/spec/template/spec/containers/0/image").asText());
    assertEquals(1, stored.at("/spec/template/spec/containers/0/env").size(), stored.toString());
    assertTrue(stored.at("/metadata/labels/tier").isMissingNode(), "the label removed from the manifest is gone");
    assertTrue(stored.at("/metadata/annotations").has("kubectl.kubernetes.io/last-applied-configuration"));
    // Applying the same manifest again changes nothing. (kubectl may still say "configured": its patch
    // re-sends volumeClaimTemplates, an atomic list the server defaults, as upstream's server does.)
    long generation = stored.at("/metadata/generation").asLong();
    kubectl.run(yaml(set), Map.of(), "apply", "-f", "-").ok();
    assertEquals(generation, api.get(Paths.set(ns, "web")).json().at("/metadata/generation").asLong());
  }

  /**
   * With OpenAPI v3 turned off for apply's patch, kubectl computes the patch from /openapi/v2,
   * which client-go's OpenAPISchema() downloads in protobuf (before, the server refused it).
   */
  @Test
  void applyComputesItsPatchFromOpenApiV2WhenV3IsTurnedOff(@Namespace String ns) throws IOException {
    Kubectl kubectl = kubectl(ns);
    ObjectNode set = Manifests.web("web", 1, 0, Map.of("A", "1", "B", "2"));
    kubectl.run(yaml(set), Map.of(), "apply", "-f", "-").ok();
    ((ObjectNode) set.at("/spec/template/spec/containers/0")).put("image", "nginx:1.26").putArray("env")
        .addObject().put("name", "A").put("value", "1");
    Kubectl.Result applied = kubectl.run(yaml(set), Map.of("KUBECTL_OPENAPIV3_PATCH", "false"), "apply", "-f", "-", "-v=6")
        .ok();
    assertTrue(applied.out().contains("statefulset.apps/web configured"), applied.out());
    assertTrue(applied.err().matches("(?s).*GET \\S+/openapi/v2\\S* 200 OK.*"), applied.err());
    assertFalse(applied.err().contains("warning"), applied.err());
    JsonNode stored = api.get(Paths.set(ns, "web")).json();
    assertEquals("nginx:1.26", stored.at("/spec/template/spec/containers/0/image").asText());
    assertEquals(1, stored.at("/spec/template/spec/containers/0/env").size(), stored.toString());
  }

  @Test
  void serverSideApplyOwnsItsFieldsConflictsWithOtherManagersAndForceTakesThem(@Namespace String ns) throws IOException {
    Kubectl kubectl = kubectl(ns);
    ObjectNode set = Manifests.web("web", 1, 0, Map.of("A", "1", "B", "2"));
    ((ObjectNode) set.get("metadata")).putObject("labels").put("app", "web").put("tier", "front");
    assertTrue(kubectl.run(yaml(set), Map.of(), "apply", "--server-side", "-f", "-").ok().out()
        .contains("statefulset.apps/web serverside-applied"));
    api.awaitConverged(ns, "web", 1, TIMEOUT);
    JsonNode applier = managedFieldsEntry(api.get(Paths.set(ns, "web")).json(), "kubectl", "Apply");
    assertTrue(applier.at("/fieldsV1/f:spec/f:replicas").isObject(), applier.toString());
    assertTrue(applier.at("/fieldsV1/f:metadata/f:labels/f:tier").isObject(), applier.toString());
    // Defaults the server filled in belong to nobody.
    assertTrue(applier.at("/fieldsV1/f:spec/f:podManagementPolicy").isMissingNode(), applier.toString());

    // Someone else takes the replicas and adds a label of their own.
    kubectl.run("scale", "sts/web", "--replicas=2").ok();
    kubectl.run("label", "sts/web", "owner=ops").ok();
    Kubectl.Result conflict = kubectl.run(yaml(set), Map.of(), "apply", "--server-side", "-f", "-");
    assertFalse(conflict.code() == 0, "applying replicas another manager owns is a conflict");
    assertTrue(conflict.err().contains("Apply failed with 1 conflict") && conflict.err().contains(".spec.replicas"),
        conflict.err());
    assertEquals(2, api.get(Paths.set(ns, "web")).json().at("/spec/replicas").asInt(), "a conflict changes nothing");

    // Forced, the applier takes the field back; the fields it stops applying go, others' stay.
    ((ObjectNode) set.at("/metadata/labels")).remove("tier");
    ((ArrayNode) set.at("/spec/template/spec/containers/0/env")).remove(1);
    kubectl.run(yaml(set), Map.of(), "apply", "--server-side", "--force-conflicts", "-f", "-").ok();
    JsonNode stored = api.get(Paths.set(ns, "web")).json();
    assertEquals(1, stored.at("/spec/replicas").asInt());
    assertTrue(stored.at("/metadata/labels/tier").isMissingNode(), "the label the applier dropped is gone");
    assertEquals("ops", stored.at("/metadata/labels/owner").asText(), "another manager's label stays");
    assertEquals(1, stored.at("/spec/template/spec/containers/0/env").size(), stored.toString());
    for (JsonNode entry : stored.at("/metadata/managedFields")) {
      if (!entry.path("manager").asText().equals("kubectl") || !entry.path("operation").asText().equals("Apply")) {
        assertTrue(entry.at("/fieldsV1/f:spec/f:replicas").isMissingNode(), "nobody else owns replicas: " + entry);
      }
    }
    assertTrue(kubectl.run(yaml(set), Map.of(), "apply", "--server-side", "--dry-run=server", "-f", "-").ok().out()
        .contains("serverside-applied (server dry run)"));
  }

  @Test
  void serverSideApplyTakesOverWhatClientSideApplyManaged(@Namespace String ns) throws IOException {
    Kubectl kubectl = kubectl(ns);
    ObjectNode set = Manifests.web("web", 1, 0, Map.of("A", "1"));
    ((ObjectNode) set.get("metadata")).putObject("labels").put("app", "web").put("tier", "front");
    // Without claim templates: the server defaults volumeMode inside them, so the client-side
    // applied templates no longer equal the live ones and stay a conflict to force, as upstream.
    ((ObjectNode) set.get("spec")).remove("volumeClaimTemplates");
    ((ObjectNode) set.at("/spec/template/spec/containers/0")).remove("volumeMounts");
    kubectl.run(yaml(set), Map.of(), "apply", "-f", "-").ok();
    assertEquals("Update", managedFieldsEntry(api.get(Paths.set(ns, "web")).json(), "kubectl-client-side-apply", "Update")
        .path("operation").asText());
    // kubectl migrates the client-side applier's fields to its server-side apply manager, so a
    // field removed from the manifest is removed from the set.
    ((ObjectNode) set.at("/metadata/labels")).remove("tier");
    kubectl.run(yaml(set), Map.of(), "apply", "--server-side", "-f", "-").ok();
    JsonNode stored = api.get(Paths.set(ns, "web")).json();
    assertTrue(stored.at("/metadata/labels/tier").isMissingNode(), stored.at("/metadata").toString());
    assertEquals("web", stored.at("/metadata/labels/app").asText());
  }

  /**
   * Every kind a user writes goes through the one generic store: server-side apply (managedFields,
   * owned fields) and server dry-run work on namespaces, RBAC objects and pods as on sets.
   */
  @Test
  void serverSideApplyAndServerDryRunWorkOnEveryWritableKind(@Namespace String ns) throws IOException {
    Kubectl kubectl = kubectl(ns);
    String team = ns + "-team";
    String manifests = """
        apiVersion: v1
        kind: Namespace
        metadata:
          name: %1$s
          labels: {team: a}
        ---
        apiVersion: rbac.authorization.k8s.io/v1
        kind: Role
        metadata:
          name: reader
          namespace: %2$s
        rules:
        - {apiGroups: [""], resources: [pods], verbs: [get]}
        ---
        apiVersion: rbac.authorization.k8s.io/v1
        kind: ClusterRole
        metadata:
          name: %1$s-viewer
        rules:
        - {apiGroups: [apps], resources: [statefulsets], verbs: [list]}
        """.formatted(team, ns);
    String applied = kubectl.run(manifests, Map.of(), "apply", "--server-side", "-f", "-").ok().out();
    assertTrue(applied.contains("namespace/" + team + " serverside-applied"), applied);
    assertTrue(applied.contains("role.rbac.authorization.k8s.io/reader serverside-applied"), applied);
    assertTrue(applied.contains("clusterrole.rbac.authorization.k8s.io/" + team + "-viewer serverside-applied"), applied);
    JsonNode namespace = api.get("/api/v1/namespaces/" + team).json();
    assertTrue(managedFieldsEntry(namespace, "kubectl", "Apply").at("/fieldsV1/f:metadata/f:labels/f:team").isObject(), namespace.toString());
    String rolePath = "/apis/rbac.authorization.k8s.io/v1/namespaces/" + ns + "/roles/reader";
    JsonNode role = api.get(rolePath).json();
    assertTrue(managedFieldsEntry(role, "kubectl", "Apply").at("/fieldsV1/f:rules").isObject(), role.toString());

    // A server dry run of each changes nothing.
    String changed = manifests.replace("team: a", "team: b").replace("verbs: [get]", "verbs: [get, list]");
    assertTrue(kubectl.run(changed, Map.of(), "apply", "--server-side", "--dry-run=server", "-f", "-").ok().out()
        .contains("(server dry run)"));
    kubectl.run("label", "namespace", team, "extra=x", "--dry-run=server").ok();
    kubectl.run("delete", "role", "reader", "--dry-run=server").ok();
    assertEquals("a", api.get("/api/v1/namespaces/" + team).json().at("/metadata/labels/team").asText());
    assertEquals(role.at("/metadata/resourceVersion"), api.get(rolePath).json().at("/metadata/resourceVersion"));

    // A pod's labels, applied by a manager of their own; its spec stays its set's.
    api.createSet(ns, Manifests.web("web", 1, 0, Map.of()));
    api.awaitConverged(ns, "web", 1, TIMEOUT);
    String podLabel = """
        apiVersion: v1
        kind: Pod
        metadata:
          name: web-0
          labels: {on-call: alice}
        """;
    kubectl.run(podLabel, Map.of(), "apply", "--server-side", "--field-manager=pager", "-f", "-").ok();
    JsonNode pod = api.pod(ns, "web-0");
    assertEquals("alice", pod.at("/metadata/labels/on-call").asText());
    assertTrue(managedFieldsEntry(pod, "pager", "Apply").at("/fieldsV1/f:metadata/f:labels/f:on-call").isObject(), pod.toString());
    assertEquals("web", pod.at("/metadata/labels/app").asText(), "the set's labels stay");
    kubectl.run("label", "pod", "web-0", "on-call=bob", "--overwrite", "--dry-run=server").ok();
    assertEquals("alice", api.pod(ns, "web-0").at("/metadata/labels/on-call").asText());

    kubectl.run("delete", "clusterrole", team + "-viewer").ok();
    kubectl.run("delete", "namespace", team).ok();
  }

  private static JsonNode managedFieldsEntry(JsonNode object, String manager, String operation) {
    for (JsonNode entry : object.at("/metadata/managedFields")) {
      if (entry.path("manager").asText().equals(manager) && entry.path("operation").asText().equals(operation)) {
        return entry;
      }
    }
    throw new AssertionError("no " + operation + " entry of " + manager + " in " + object.at("/metadata/managedFields"));
  }

  @Test
  void getPrintsUpstreamColumnsAndEveryOutputFormat(@Namespace String ns) throws IOException {
    Kubectl kubectl = kubectl(ns);
    api.createSet(ns, Manifests.web("web", 2, 0, Map.of()));
    api.awaitConverged(ns, "web", 2, TIMEOUT);
    assertTrue(kubectl.run("get", "sts").ok().out().matches("(?s)NAME\\s+READY\\s+AGE\\s*\nweb\\s+2/2\\s+\\S+\\s*\n"));
    assertTrue(kubectl.run("get", "sts", "-o", "wide").ok().out()
        .matches("(?s)NAME\\s+READY\\s+AGE\\s+CONTAINERS\\s+IMAGES\\s*\nweb\\s+2/2\\s+\\S+\\s+nginx\\s+\\S+\\s*\n"));
    String pods = kubectl.run("get", "pods").ok().out();
    assertTrue(pods.matches("(?s)NAME\\s+READY\\s+STATUS\\s+RESTARTS\\s+AGE\\s*\nweb-0\\s+1/1\\s+Running\\s+0\\s+\\S+\\s*\nweb-1\\s+1/1\\s+Running.*"), pods);
    assertTrue(kubectl.run("get", "pods", "-o", "wide").ok().out().contains("IP"));
    assertEquals("web-0 web-1", kubectl.run("get", "pods", "-o", "jsonpath={.items[*].metadata.name}").ok().out());
    assertEquals("StatefulSet", json(kubectl.run("get", "sts", "web", "-o", "json").ok().out()).path("kind").asText());
    assertTrue(kubectl.run("get", "sts", "web", "-o", "yaml").ok().out().contains("kind: StatefulSet"));
    assertTrue(kubectl.run("get", "pvc,controllerrevisions,events").ok().out().contains("www-web-0"));
    String all = kubectl.run("get", "pods", "-A").ok().out();
    assertTrue(all.startsWith("NAMESPACE") && all.contains(ns), all);
  }

  @Test
  void labelSelectorOnEveryVerbTouchesOnlyTheMatchingSets(@Namespace String ns) {
    Kubectl kubectl = kubectl(ns);
    api.createSet(ns, Manifests.web("alpha", 1, 0, Map.of()));
    api.createSet(ns, Manifests.web("beta", 1, 0, Map.of()));
    // Each set's metadata carries its app label through the manifest's selector labels.
    kubectl.run("label", "sts", "alpha", "team=a").ok();
    kubectl.run("label", "sts", "beta", "team=b").ok();
    assertEquals("alpha", kubectl.run("get", "sts", "-l", "team=a", "-o", "name").ok().out().trim().replace("statefulset.apps/", ""));
    kubectl.run("scale", "sts", "-l", "team=a", "--replicas=2").ok();
    assertEquals(2, api.get(Paths.set(ns, "alpha")).json().at("/spec/replicas").asInt());
    assertEquals(1, api.get(Paths.set(ns, "beta")).json().at("/spec/replicas").asInt());
    kubectl.run("delete", "sts", "-l", "team=a", "--wait=true").ok();
    assertEquals(404, api.get(Paths.set(ns, "alpha")).code());
    assertEquals(200, api.get(Paths.set(ns, "beta")).code());
    Kubectl.Result bad = kubectl.run("get", "sts", "-l", "a in (x,,");
    assertFalse(bad.code() == 0, "a broken selector is an error, not a match");
  }

  @Test
  void serverSideDryRunChangesNothing(@Namespace String ns) throws IOException {
    Kubectl kubectl = kubectl(ns);
    ObjectNode set = Manifests.web("web", 1, 0, Map.of());
    assertTrue(kubectl.run(yaml(set), Map.of(), "apply", "--dry-run=server", "-f", "-").ok().out().contains("(server dry run)"));
    assertEquals(404, api.get(Paths.set(ns, "web")).code());
    api.createSet(ns, set);
    api.awaitConverged(ns, "web", 1, TIMEOUT);
    JsonNode before = api.get(Paths.set(ns, "web")).json();
    ((ObjectNode) set.at("/spec/template/spec/containers/0")).put("image", "nginx:dry");
    kubectl.run(yaml(set), Map.of(), "apply", "--dry-run=server", "-f", "-").ok();
    kubectl.run("scale", "sts", "web", "--replicas=4", "--dry-run=server").ok();
    kubectl.run("patch", "sts", "web", "--dry-run=server", "-p", "{\"spec\":{\"replicas\":3}}").ok();
    kubectl.run("delete", "sts", "web", "--dry-run=server").ok();
    kubectl.run("delete", "pod", "web-0", "--dry-run=server").ok();
    JsonNode after = api.get(Paths.set(ns, "web")).json();
    assertEquals(before.at("/metadata/resourceVersion"), after.at("/metadata/resourceVersion"));
    assertEquals(before.at("/metadata/generation"), after.at("/metadata/generation"));
    assertEquals(before.at("/metadata/uid"), after.at("/metadata/uid"));
    assertTrue(api.get(Paths.core(ns, "pods/web-0")).json().at("/metadata/deletionTimestamp").isMissingNode());
  }

  @Test
  void scaleRolloutStatusHistoryRestartAndUndo(@Namespace String ns) {
    Kubectl kubectl = kubectl(ns);
    api.createSet(ns, Manifests.web("web", 1, 0, Map.of()));
    kubectl.run("scale", "sts/web", "--replicas=3").ok();
    assertTrue(kubectl.run("rollout", "status", "sts/web", "--timeout=90s").ok().out().contains("roll out complete"));
    api.awaitConverged(ns, "web", 3, TIMEOUT);
    String oldImage = api.get(Paths.set(ns, "web")).json().at("/spec/template/spec/containers/0/image").asText();

    kubectl.run("set", "image", "sts/web", "nginx=nginx:1.26").ok();
    kubectl.run("rollout", "status", "sts/web", "--timeout=90s").ok();
    api.awaitConverged(ns, "web", 3, TIMEOUT);
    String history = kubectl.run("rollout", "history", "sts/web").ok().out();
    assertTrue(history.matches("(?s).*REVISION\\s+CHANGE-CAUSE\\s*\n1\\s+<none>\\s*\n2\\s+<none>.*"), history);
    assertTrue(kubectl.run("rollout", "history", "sts/web", "--revision=1").ok().out().contains(oldImage));

    kubectl.run("rollout", "undo", "sts/web", "--to-revision=1").ok();
    kubectl.run("rollout", "status", "sts/web", "--timeout=90s").ok();
    assertEquals(oldImage, api.get(Paths.set(ns, "web")).json().at("/spec/template/spec/containers/0/image").asText());

    kubectl.run("rollout", "restart", "sts/web").ok();
    assertTrue(api.get(Paths.set(ns, "web")).json().at("/spec/template/metadata/annotations")
        .has("kubectl.kubernetes.io/restartedAt"));
    kubectl.run("rollout", "status", "sts/web", "--timeout=90s").ok();
  }

  @Test
  void editAndPatchOfEveryType(@Namespace String ns) {
    Kubectl kubectl = kubectl(ns);
    api.createSet(ns, Manifests.web("web", 1, 0, Map.of("KEEP", "yes")));
    // A non-interactive editor: kubectl writes the object to a file and sends what the editor left.
    kubectl.run(null, Map.of("KUBE_EDITOR", "sed -i -e s/replicas:\\ 1/replicas:\\ 2/"), "edit", "sts/web").ok();
    assertEquals(2, api.get(Paths.set(ns, "web")).json().at("/spec/replicas").asInt());
    // Strategic: the container is found by its name; its env stays.
    kubectl.run("patch", "sts", "web", "-p",
        "{\"spec\":{\"template\":{\"spec\":{\"containers\":[{\"name\":\"nginx\",\"image\":\"nginx:strategic\"}]}}}}").ok();
    JsonNode container = api.get(Paths.set(ns, "web")).json().at("/spec/template/spec/containers/0");
    assertEquals("nginx:strategic", container.path("image").asText());
    assertEquals("KEEP", container.at("/env/0/name").asText());
    kubectl.run("patch", "sts", "web", "--type=merge", "-p", "{\"spec\":{\"replicas\":3}}").ok();
    kubectl.run("patch", "sts", "web", "--type=json", "-p", "[{\"op\":\"replace\",\"path\":\"/spec/replicas\",\"value\":1}]").ok();
    assertEquals(1, api.get(Paths.set(ns, "web")).json().at("/spec/replicas").asInt());
    kubectl.run("patch", "sts", "web", "-p", "{\"spec\":{\"updateStrategy\":{\"rollingUpdate\":{\"paused\":true}}}}").ok();
  }

  @Test
  void deleteWithCascadeOrphanLeavesThePodsRunning(@Namespace String ns) {
    Kubectl kubectl = kubectl(ns);
    api.createSet(ns, Manifests.web("web", 2, 0, Map.of()));
    api.awaitConverged(ns, "web", 2, TIMEOUT);
    kubectl.run("delete", "sts", "web", "--cascade=orphan").ok();
    api.await(Paths.set(ns, "web"), TIMEOUT, reply -> reply.code() == 404);
    JsonNode pods = api.get(Paths.core(ns, "pods")).json().path("items");
    assertEquals(2, pods.size());
    pods.forEach(pod -> assertTrue(pod.at("/metadata/deletionTimestamp").isMissingNode()));
    pods.forEach(pod -> assertTrue(pod.at("/metadata/ownerReferences").isMissingNode(), pod.toString()));
    // A set created again under the name takes its pods back, as upstream adopts orphans.
    api.createSet(ns, Manifests.web("web", 2, 0, Map.of()));
    api.awaitConverged(ns, "web", 2, TIMEOUT);
    JsonNode adopted = api.get(Paths.core(ns, "pods/web-0")).json();
    assertEquals(pods.get(0).at("/metadata/uid"), adopted.at("/metadata/uid"));
    assertEquals(api.get(Paths.set(ns, "web")).json().at("/metadata/uid"), adopted.at("/metadata/ownerReferences/0/uid"),
        "the adopted pod names its new controller");
    // A pod whose labels stop matching is released, and a deleting set leaves it running.
    kubectl.run("label", "pod", "web-1", "app-").ok();
    api.await(Paths.core(ns, "pods/web-1"), TIMEOUT, r -> r.json().at("/metadata/ownerReferences").isMissingNode());
    // Foreground: kubectl waits until the set is gone, which is after its pods are.
    kubectl.run("delete", "sts", "web", "--cascade=foreground", "--wait=true").ok();
    JsonNode left = api.get(Paths.core(ns, "pods")).json().path("items");
    assertEquals(1, left.size(), left.toString());
    assertEquals("web-1", left.get(0).at("/metadata/name").asText());
    assertTrue(left.get(0).at("/metadata/deletionTimestamp").isMissingNode());
    kubectl.run("delete", "pod", "web-1", "--wait=true").ok();
  }

  @Test
  void getWatchPrintsEachChangeAsItHappens(@Namespace String ns) throws Exception {
    Kubectl kubectl = kubectl(ns);
    api.createSet(ns, Manifests.web("web", 1, 0, Map.of()));
    api.awaitConverged(ns, "web", 1, TIMEOUT);
    Path output = Files.createTempFile("watch", ".txt");
    Process watch = kubectl.start(output, "get", "pods", "-w");
    try {
      awaitText(output, "web-0");
      api.patchSet(ns, "web", "{\"spec\":{\"replicas\":2}}");
      awaitText(output, "web-1");
      kubectl.run("delete", "pod", "web-0", "--wait=false").ok();
      awaitText(output, "Terminating");
    } finally {
      watch.destroy();
    }
  }

  @Test
  void waitDescribeAndEventsWithFieldSelectors(@Namespace String ns) {
    Kubectl kubectl = kubectl(ns);
    api.createSet(ns, Manifests.web("web", 2, 0, Map.of()));
    kubectl.run("wait", "--for=create", "pod/web-1", "--timeout=90s").ok();
    kubectl.run("wait", "--for=condition=Ready", "pod/web-1", "--timeout=90s").ok();
    kubectl.run("wait", "--for=jsonpath={.status.readyReplicas}=2", "sts/web", "--timeout=90s").ok();
    String described = kubectl.run("describe", "sts", "web").ok().out();
    assertTrue(described.contains("create Pod web-1 in StatefulSet web successful"), described);
    String events = kubectl.run("get", "events", "--field-selector", "involvedObject.kind=StatefulSet,reason=SuccessfulCreate",
        "-o", "jsonpath={.items[*].reason}").ok().out();
    assertFalse(events.isBlank());
    assertTrue(List.of(events.split(" ")).stream().allMatch("SuccessfulCreate"::equals), events);
    assertEquals("web-0", kubectl.run("get", "pods", "--field-selector", "metadata.name=web-0", "-o", "name").ok().out()
        .trim().replace("pod/", ""));
  }

  @Test
  void explainReadsTheGeneratedOpenApi(@Namespace String ns) {
    Kubectl kubectl = kubectl(ns);
    String spec = kubectl.run("explain", "statefulset.spec").ok().out();
    assertTrue(spec.contains("template\t<PodTemplateSpec>") || spec.matches("(?s).*template\\s+<PodTemplateSpec>.*"), spec);
    assertTrue(spec.contains("volumeClaimTemplates"), spec);
    assertTrue(kubectl.run("explain", "sts.spec.template.spec.containers").ok().out().contains("<[]Container>"));
    assertFalse(kubectl.run("explain", "statefulset.spec.nope").code() == 0);
    // The v2 renderer reads /openapi/v2 through client-go's OpenAPISchema(), which asks for
    // protobuf only (answered 406 before, and kubectl failed).
    String v2 = kubectl.run("explain", "statefulset.spec", "--output=plaintext-openapiv2").ok().out();
    assertTrue(v2.matches("(?s).*template\\s+<Object>.*") && v2.contains("volumeClaimTemplates"), v2);
  }

  @Test
  void logsOfALocalPod(@Namespace String ns) throws InterruptedException {
    Kubectl kubectl = kubectl(ns);
    Instant created = Instant.now().truncatedTo(ChronoUnit.SECONDS);
    api.createSet(ns, Manifests.commandSet("echo", 1, "sh", "-c", "echo one; echo two from $POD_NAME; exec sleep 3600"));
    api.awaitConverged(ns, "echo", 1, TIMEOUT);
    Instant deadline = Instant.now().plus(TIMEOUT);
    while (!api.get(Paths.core(ns, "pods/echo-0/log")).body().contains("two") && Instant.now().isBefore(deadline)) {
      Thread.sleep(100);
    }
    assertEquals("one\ntwo from echo-0\n", kubectl.run("logs", "echo-0").ok().out());
    assertEquals("two from echo-0\n", kubectl.run("logs", "echo-0", "--tail=1").ok().out());
    assertEquals("two from echo-0\n", kubectl.run("logs", "pod/echo-0", "-c", "nginx", "--tail=1").ok().out());

    // Each line carries the time it was written.
    String stamped = kubectl.run("logs", "echo-0", "--timestamps").ok().out();
    Matcher lines = Pattern.compile("(\\S+) (one|two from echo-0)\n").matcher(stamped);
    List<String> texts = new ArrayList<>();
    while (lines.find()) {
      Instant time = Instant.parse(lines.group(1));
      assertTrue(!time.isBefore(created) && !time.isAfter(Instant.now()), time + " is not between " + created + " and now");
      assertTrue(lines.group(1).matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{9}Z"), lines.group(1));
      texts.add(lines.group(2));
    }
    assertEquals(List.of("one", "two from echo-0"), texts, stamped);
    String last = kubectl.run("logs", "echo-0", "--tail=1", "--timestamps").ok().out();
    assertTrue(last.matches("\\S+Z two from echo-0\n"), last);

    assertEquals("one\ntwo from echo-0\n", kubectl.run("logs", "echo-0", "--since=1h").ok().out());
    assertEquals("two from echo-0\n", kubectl.run("logs", "echo-0", "--since=1h", "--tail=1").ok().out());
    String past = created.minusSeconds(60).toString();
    String future = Instant.now().plusSeconds(3600).truncatedTo(ChronoUnit.SECONDS).toString();
    assertEquals("one\ntwo from echo-0\n", kubectl.run("logs", "echo-0", "--since-time=" + past).ok().out());
    assertEquals("", kubectl.run("logs", "echo-0", "--since-time=" + future).ok().out());
    assertEquals("one\ntw", kubectl.run("logs", "echo-0", "--limit-bytes=6").ok().out());
    assertEquals(stamped.substring(0, 20), kubectl.run("logs", "echo-0", "--timestamps", "--limit-bytes=20").ok().out());

    // kubectl checks these itself; the API answers other clients as upstream does.
    Api.Reply both = api.get(Paths.core(ns, "pods/echo-0/log?sinceSeconds=5&sinceTime=" + future));
    assertEquals(422, both.code(), both.body());
    assertTrue(both.body().contains("at most one of `sinceTime` or `sinceSeconds` may be specified"), both.body());
    assertEquals(422, api.get(Paths.core(ns, "pods/echo-0/log?limitBytes=0")).code());
    assertEquals(400, api.get(Paths.core(ns, "pods/echo-0/log?sinceTime=yesterday")).code());
    kubectl.run("delete", "sts", "echo").ok();
  }

  @Test
  void execRunsInsideThePodsMountNamespaceWithTheContainersEnv(@Namespace String ns) {
    Kubectl kubectl = kubectl(ns);
    startExecSet(ns);
    // /data is the pod's volume, mounted only in its own mount namespace: not on this host.
    assertEquals("written by exec-0\n", kubectl.run("exec", "exec-0", "--", "cat", "/data/x").ok().out());
    assertFalse(Files.exists(Path.of("/data/x")), "the volume is mounted at /data outside the pod");
    // The container's env, $(VAR) references expanded, as the container itself got it.
    assertEquals("hello exec-0\n", kubectl.run("exec", "exec-0", "-c", "main", "--", "printenv", "GREETING").ok().out());
    Kubectl.Result both = kubectl.run("exec", "exec-0", "-c", "main", "--", "sh", "-c", "echo out; echo err >&2");
    assertEquals("out\n", both.ok().out());
    assertTrue(both.err().contains("err"), both.err());
  }

  @Test
  void execChoosesTheContainerWithDashCAndItsWorkingDir(@Namespace String ns) {
    Kubectl kubectl = kubectl(ns);
    startExecSet(ns);
    assertEquals("/data\n", kubectl.run("exec", "exec-0", "-c", "side", "--", "pwd").ok().out());
    assertEquals("", kubectl.run("exec", "exec-0", "-c", "side", "--", "printenv", "GREETING").out());
    // Without -c kubectl picks the first container, and says so.
    Kubectl.Result defaulted = kubectl.run("exec", "exec-0", "--", "printenv", "GREETING");
    assertEquals("hello exec-0\n", defaulted.ok().out());
    assertTrue(defaulted.err().contains("Defaulted container \"main\""), defaulted.err());
    Kubectl.Result unknown = kubectl.run("exec", "exec-0", "-c", "nope", "--", "true");
    assertEquals(1, unknown.code());
    assertTrue(unknown.err().contains("BadRequest") && unknown.err().contains("container nope is not valid for pod exec-0"),
        unknown.err());
  }

  @Test
  void execPropagatesTheCommandsExitCode(@Namespace String ns) {
    Kubectl kubectl = kubectl(ns);
    startExecSet(ns);
    Kubectl.Result failed = kubectl.run("exec", "exec-0", "-c", "main", "--", "sh", "-c", "exit 3");
    assertEquals(3, failed.code(), failed.err());
    assertTrue(failed.err().contains("command terminated with exit code 3"), failed.err());
    assertEquals(127, kubectl.run("exec", "exec-0", "-c", "main", "--", "no-such-command").code());
    assertEquals(0, kubectl.run("exec", "exec-0", "-c", "main", "--", "true").code());
  }

  @Test
  void execPipesStdinWithDashIUntilItsEnd(@Namespace String ns) {
    Kubectl kubectl = kubectl(ns);
    startExecSet(ns);
    assertEquals("hi\nthere\n", kubectl.run("hi\nthere\n", Map.of(), "exec", "-i", "exec-0", "-c", "main", "--", "cat")
        .ok().out());
    // More than one frame and more than a pipe holds, in order: stdin is fed as the command reads it.
    StringBuilder lines = new StringBuilder();
    for (int i = 1; i <= 100_000; i++) {
      lines.append(i).append('\n');
    }
    String counted = kubectl.run(lines.toString(), Map.of(), "exec", "-i", "exec-0", "-c", "main", "--",
        "awk", "NR != $1 { exit 1 } END { print NR }").ok().out();
    assertEquals("100000", counted.trim());
  }

  @Test
  void execWithDashItRunsOnATerminalOfTheClientsSize(@Namespace String ns) {
    Kubectl kubectl = kubectl(ns);
    startExecSet(ns);
    // The terminal is resized to kubectl's as its first resize message arrives; the sleep lets it.
    Kubectl.Result terminal = kubectl.runOnTerminal(123, 45, "exec", "-it", "exec-0", "-c", "main", "--",
        "sh", "-c", "sleep 1; tty; stty size; echo $TERM; exit 4");
    assertEquals(4, terminal.code(), terminal.out() + terminal.err());
    assertTrue(terminal.out().contains("/dev/pts/"), terminal.out());
    assertTrue(terminal.out().contains("45 123"), terminal.out());
    assertTrue(terminal.out().contains("xterm"), terminal.out());
  }

  @Test
  void execIsRefusedWithAStatusForSimulatedPodsAndOverSpdy(@Namespace String ns) {
    Kubectl kubectl = kubectl(ns);
    api.createSet(ns, Manifests.web("sim", 1, 0, Map.of()));
    api.awaitConverged(ns, "sim", 1, TIMEOUT);
    Kubectl.Result simulated = kubectl.run("exec", "sim-0", "--", "true");
    assertEquals(1, simulated.code());
    assertTrue(simulated.err().contains("exec is not supported for simulated pods"), simulated.err());
    startExecSet(ns);
    // kubectl speaks SPDY when told not to use WebSockets: a clear refusal, not a 404 or 500.
    Kubectl.Result spdy = kubectl.run(null, Map.of("KUBECTL_REMOTE_COMMAND_WEBSOCKETS", "false"),
        "exec", "exec-0", "-c", "main", "--", "true");
    assertEquals(1, spdy.code());
    assertTrue(spdy.err().contains("(BadRequest): exec needs the WebSocket protocol"), spdy.err());
  }

  /**
   * A local set {@code exec} of one pod: container main writes into its volume (at /data) and has
   * an env var; container side only sleeps, in /data.
   */
  private static void startExecSet(String ns) {
    ObjectNode set = Manifests.commandSet("exec", 1, "sh", "-c", "echo written by $POD_NAME > /data/x; exec sleep 3600");
    ArrayNode containers = (ArrayNode) set.at("/spec/template/spec/containers");
    ObjectNode main = ((ObjectNode) containers.get(0)).put("name", "main");
    main.putArray("env").addObject().put("name", "GREETING").put("value", "hello $(POD_NAME)");
    ((ObjectNode) main.at("/volumeMounts/0")).put("mountPath", "/data");
    ObjectNode side = containers.addObject().put("name", "side").put("image", "busybox").put("workingDir", "/data");
    side.putArray("command").add("sleep").add("3600");
    side.putArray("volumeMounts").addObject().put("name", "www").put("mountPath", "/data");
    api.createSet(ns, set);
    api.awaitConverged(ns, "exec", 1, TIMEOUT);
    Instant deadline = Instant.now().plus(TIMEOUT);
    while (kubectl(ns).run("exec", "exec-0", "-c", "main", "--", "test", "-s", "/data/x").code() != 0) {
      if (Instant.now().isAfter(deadline)) {
        throw new AssertionError("exec-0 never wrote /data/x");
      }
    }
  }

  @Test
  void theOrdinalPluginPausesResumesUndoesAndShowsProgress(@Namespace String ns) {
    Kubectl kubectl = kubectl(ns);
    Map<String, String> withPlugin = Map.of("PATH",
        Path.of("..", "deploy", "kubectl").toAbsolutePath().normalize() + ":" + System.getenv("PATH"));
    api.createSet(ns, Manifests.web("web", 2, 0, Map.of()));
    api.awaitConverged(ns, "web", 2, TIMEOUT);
    String oldImage = api.get(Paths.set(ns, "web")).json().at("/spec/template/spec/containers/0/image").asText();
    kubectl.run(null, withPlugin, "ordinal", "pause", "statefulset/web").ok();
    assertTrue(api.get(Paths.set(ns, "web")).json().at("/spec/updateStrategy/rollingUpdate/paused").asBoolean());
    String status = kubectl.run(null, withPlugin, "ordinal", "status", "statefulset/web").ok().out();
    assertTrue(status.contains("ready 2") && status.contains("web-1") && status.contains("OrdinalStatefulSet"), status);
    kubectl.run(null, withPlugin, "ordinal", "resume", "statefulset/web").ok();
    assertFalse(api.get(Paths.set(ns, "web")).json().at("/spec/updateStrategy/rollingUpdate/paused").asBoolean());
    api.setImage(ns, "web", "nginx:2");
    api.awaitConverged(ns, "web", 2, TIMEOUT);
    String history = kubectl.run(null, withPlugin, "ordinal", "history", "statefulset/web").ok().out();
    assertTrue(history.lines().filter(l -> l.matches("^[12]\\s+web-.*OrdinalRevision.*")).count() == 2, history);
    kubectl.run(null, withPlugin, "ordinal", "undo", "statefulset/web", "--to-revision=1").ok();
    assertEquals(oldImage, api.get(Paths.set(ns, "web")).json().at("/spec/template/spec/containers/0/image").asText());

    // Members out and back: the annotation as ranges, removed when none is left.
    String reserved = kubectl.run(null, withPlugin, "ordinal", "reserve", "statefulset/web", "1", "3-4").ok().out();
    assertTrue(reserved.contains("reserved ordinals: 1, 3-4"), reserved);
    kubectl.run(null, withPlugin, "ordinal", "unreserve", "statefulset/web", "3").ok();
    assertEquals("1, 4", api.set(ns, "web").at("/metadata/annotations/ordinal.io~1reserved-ordinals").asText());
    api.await(Paths.pod(ns, "web-2"), TIMEOUT, r -> r.code() == 200);
    kubectl.run(null, withPlugin, "ordinal", "unreserve", "statefulset/web", "1", "4").ok();
    assertTrue(api.set(ns, "web").at("/metadata/annotations/ordinal.io~1reserved-ordinals").isMissingNode());
    // No hook of web-0 waits: the API's 404 says so.
    Kubectl.Result complete = kubectl.run(null, withPlugin, "ordinal", "complete", "statefulset/web", "web-0",
        "--message=done");
    assertEquals(1, complete.code(), complete.out());
    assertTrue(complete.err().contains("NotFound") || complete.err().contains("not found"), complete.err());
  }

  private static Kubectl kubectl(String namespace) {
    return new Kubectl(api.base(), api.caCertificate(), api.token(), namespace);
  }

  private static String yaml(JsonNode object) throws IOException {
    return KubeJson.YAML.writeValueAsString(object);
  }

  private static void awaitText(Path file, String text) throws IOException, InterruptedException {
    Instant deadline = Instant.now().plus(TIMEOUT);
    while (!Files.readString(file).contains(text)) {
      if (Instant.now().isAfter(deadline)) {
        throw new AssertionError("\"" + text + "\" never appeared in:\n" + Files.readString(file));
      }
      Thread.sleep(100);
    }
  }

  private static JsonNode json(String text) throws IOException {
    return KubeJson.JSON.readTree(text);
  }
}
