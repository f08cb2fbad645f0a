package io.ordinal.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.ordinal.store.KubeJson;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The manifests of deploy/kubernetes against a real API server (the control plane of
 * {@link ControlPlane}): the kustomize base renders, the API server accepts all of it, and its
 * ClusterRole lets the service's account do what the service does in a cluster and nothing more.
 */
class DeployManifestsIT {
  private static final Path BASE = Path.of("..", "deploy", "kubernetes").toAbsolutePath().normalize();
  private static final Path CONTROLLER_OVERLAY = Path.of("..", "deploy", "kubernetes-statefulset-controller")
      .toAbsolutePath().normalize();
  private static final String NAMESPACE = "ordinal-system";
  private static final String SERVICE_ACCOUNT = "system:serviceaccount:" + NAMESPACE + ":ordinal";
  private static final String CRD = "customresourcedefinitions.apiextensions.k8s.io/statefulsets.apps.ordinal.io";

  private static ControlPlane cluster;
  private static List<JsonNode> rendered;

  @BeforeAll
  static void start() throws Exception {
    cluster = ControlPlane.start();
    rendered = KubeJson.YAML.readerFor(JsonNode.class)
        .<JsonNode>readValues(kubectl("kustomize", BASE.toString()).out()).readAll();
    // For real, as the cluster's admin: the Namespace (a server-side dry run of the namespaced objects
    // needs it to exist) and the service's account and rights.
    ObjectNode list = KubeJson.JSON.createObjectNode().put("apiVersion", "v1").put("kind", "List");
    ArrayNode items = list.putArray("items");
    rendered.stream().filter(o -> Set.of("Namespace", "ServiceAccount", "ClusterRole", "ClusterRoleBinding")
        .contains(o.path("kind").asText())).forEach(items::add);
    cluster.kubectl().run(KubeJson.write(list), Map.of(), "apply", "-f", "-").ok();
    // Then the CRD as the service installs it when it starts: server-side applied by its account,
    // which may create that CRD and no other.
    awaitAllowed("patch", CRD);
    kubectl("apply", "--server-side", "--field-manager=ordinal", "--force-conflicts", "--as=" + SERVICE_ACCOUNT,
        "-f", BASE.resolve("crd.yaml").toString());
    kubectl("wait", "--for=condition=Established", "--timeout=60s", "crd/statefulsets.apps.ordinal.io");
  }

  @AfterAll
  static void stop() throws Exception {
    if (cluster != null) {
      cluster.close();
    }
  }

  private static Kubectl.Result kubectl(String... args) {
    return cluster.kubectl().run(args).ok();
  }

  /** {@code kubectl auth can-i} as the service's account, in every namespace: true for yes. */
  private static boolean serviceAccountCan(String... request) {
    List<String> args = new ArrayList<>(List.of("auth", "can-i", "--all-namespaces", "--as=" + SERVICE_ACCOUNT));
    args.addAll(List.of(request));
    Kubectl.Result result = cluster.kubectl().run(args.toArray(String[]::new));
    // 0 and "yes", or 1 and "no", and nothing on stderr: a resource the server does not have (a typo)
    // is a "no" with a warning, and must not pass for a right withheld.
    if (result.err().isBlank() && result.code() == 0 && result.out().trim().equals("yes")) {
      return true;
    }
    if (result.err().isBlank() && result.code() == 1 && result.out().trim().equals("no")) {
      return false;
    }
    throw new AssertionError("kubectl auth can-i " + String.join(" ", request) + " exited " + result.code()
        + "\nstdout: " + result.out() + "\nstderr: " + result.err());
  }

  /** The RBAC authorizer sees a new binding through its informer: a moment after the write. */
  private static void awaitAllowed(String... request) throws InterruptedException {
    for (int i = 0; i < 100 && !serviceAccountCan(request); i++) {
      Thread.sleep(100);
    }
  }

  @Test
  void rendersEveryObjectTheServiceNeedsNamespacedInOrdinalSystemAndNoSecret() {
    Set<String> kinds = new TreeSet<>();
    for (JsonNode object : rendered) {
      String kind = object.path("kind").asText();
      kinds.add(kind);
      boolean clusterScoped = Set.of("Namespace", "CustomResourceDefinition", "ClusterRole", "ClusterRoleBinding")
          .contains(kind);
      assertEquals(clusterScoped ? "" : NAMESPACE, object.at("/metadata/namespace").asText(),
          kind + " " + object.at("/metadata/name").asText());
    }
    // The database's credentials are the operator's to create: the example secret is not part of the base.
    assertEquals(new TreeSet<>(List.of("ClusterRole", "ClusterRoleBinding", "ConfigMap", "CustomResourceDefinition",
        "Deployment", "Namespace", "Service", "ServiceAccount")), kinds);
    JsonNode binding = rendered.stream().filter(o -> o.path("kind").asText().equals("ClusterRoleBinding")).findFirst()
        .orElseThrow();
    assertEquals(NAMESPACE, binding.at("/subjects/0/namespace").asText(), "kustomize puts the subject in the namespace");
  }

  @Test
  void passesTheApiServersValidationAndPodSecurityInAServerSideDryRun() {
    Kubectl.Result result = kubectl("apply", "--dry-run=server", "-k", BASE.toString());
    assertTrue(result.out().contains("deployment.apps/ordinal created (server dry run)"), result.out());
    // The namespace enforces (and warns of) the restricted Pod Security Standard: the Deployment's pod
    // template meets it, or the dry run would say "would violate PodSecurity".
    assertFalse(result.err().contains("PodSecurity"), result.err());
  }

  @Test
  void theStatefulSetControllerOverlayTurnsTheSettingOnAndGrantsWhatItNeedsToTheServicesAccount() throws Exception {
    List<JsonNode> overlay = KubeJson.YAML.readerFor(JsonNode.class)
        .<JsonNode>readValues(kubectl("kustomize", CONTROLLER_OVERLAY.toString()).out()).readAll();
    JsonNode config = overlay.stream().filter(o -> o.path("kind").asText().equals("ConfigMap")).findFirst().orElseThrow();
    assertEquals("true", config.at("/data/ORDINAL_KUBERNETES_STATEFULSET_CONTROLLER").asText(), config.toString());
    JsonNode binding = overlay.stream().filter(o -> o.path("kind").asText().equals("ClusterRoleBinding")
        && o.at("/metadata/name").asText().equals("ordinal-statefulset-controller")).findFirst().orElseThrow();
    assertEquals("ordinal", binding.at("/subjects/0/name").asText());
    assertEquals(NAMESPACE, binding.at("/subjects/0/namespace").asText());
    JsonNode role = overlay.stream().filter(o -> o.path("kind").asText().equals("ClusterRole")
        && o.at("/metadata/name").asText().equals("ordinal-statefulset-controller")).findFirst().orElseThrow();
    String rules = role.path("rules").toString();
    for (String resource : List.of("statefulsets", "statefulsets/status", "controllerrevisions", "pods")) {
      assertTrue(rules.contains("\"" + resource + "\""), resource + " in " + rules);
    }
    Kubectl.Result result = kubectl("apply", "--dry-run=server", "-k", CONTROLLER_OVERLAY.toString());
    assertTrue(result.out().contains("clusterrole.rbac.authorization.k8s.io/ordinal-statefulset-controller created"),
        result.out());
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {
      "get " + CRD, "patch " + CRD, "create " + CRD,
      "list statefulsets.apps.ordinal.io", "watch statefulsets.apps.ordinal.io",
      // A rollback Ordinal made, carried back to the object.
      "update statefulsets.apps.ordinal.io",
      "update statefulsets.apps.ordinal.io --subresource=status",
      "patch statefulsets.apps.ordinal.io --subresource=status",
      "update statefulsets.apps.ordinal.io --subresource=finalizers",
      "list pods", "watch pods", "create pods", "delete pods",
      // An in-place update: the image by a patch, resources through the resize subresource.
      "patch pods", "patch pods --subresource=resize",
      "get persistentvolumeclaims", "create persistentvolumeclaims", "delete persistentvolumeclaims",
      "create events"})
  void serviceAccountMayDoWhatTheServiceDoesInTheCluster(String request) {
    assertTrue(serviceAccountCan(request.split(" ")), request);
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {
      // Ordinal's StatefulSets are made and deleted by their users.
      "create statefulsets.apps.ordinal.io", "patch statefulsets.apps.ordinal.io",
      "delete statefulsets.apps.ordinal.io",
      // Another CRD, or Ordinal's deleted, or a create that names no CRD (a POST).
      "delete " + CRD, "patch customresourcedefinitions.apiextensions.k8s.io/widgets.example.com",
      "create customresourcedefinitions.apiextensions.k8s.io",
      // Upstream's StatefulSets, and anything it has no use for.
      "create statefulsets.apps", "get secrets", "list secrets", "create secrets", "get configmaps",
      "update pods", "update pods --subresource=resize", "create pods --subresource=exec", "update persistentvolumeclaims",
      "list persistentvolumeclaims", "watch persistentvolumeclaims", "patch events", "create events.events.k8s.io",
      "create clusterrolebindings.rbac.authorization.k8s.io", "create namespaces", "create nodes"})
  void serviceAccountMayNotDoAnythingElse(String request) {
    assertFalse(serviceAccountCan(request.split(" ")), request);
  }

  @Test
  void serviceAccountMayNotServerSideApplyAnotherCrd() {
    String widgets = """
        apiVersion: apiextensions.k8s.io/v1
        kind: CustomResourceDefinition
        metadata: {name: widgets.example.com}
        spec:
          group: example.com
          scope: Namespaced
          names: {plural: widgets, singular: widget, kind: Widget}
          versions:
            - name: v1
              served: true
              storage: true
              schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
        """;
    Kubectl.Result result = cluster.kubectl().run(widgets, Map.of(), "apply", "--server-side", "--dry-run=server",
        "--field-manager=ordinal", "--as=" + SERVICE_ACCOUNT, "-f", "-");
    assertEquals(1, result.code(), result.out());
    assertTrue(result.err().contains("customresourcedefinitions.apiextensions.k8s.io \"widgets.example.com\" is forbidden"),
        result.err());
  }
}
