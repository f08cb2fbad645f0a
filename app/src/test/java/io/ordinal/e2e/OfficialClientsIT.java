package io.ordinal.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.reflect.TypeToken;
import io.kubernetes.client.common.KubernetesListObject;
import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.custom.Quantity;
import io.kubernetes.client.custom.V1Patch;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.apis.AppsV1Api;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.apis.DiscoveryV1Api;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ConfigMapList;
import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1ContainerPort;
import io.kubernetes.client.openapi.models.V1LabelSelector;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1PersistentVolumeClaim;
import io.kubernetes.client.openapi.models.V1PersistentVolumeClaimSpec;
import io.kubernetes.client.openapi.models.V1PodSpec;
import io.kubernetes.client.openapi.models.V1PodTemplateSpec;
import io.kubernetes.client.openapi.models.V1PolicyRule;
import io.kubernetes.client.openapi.models.V1Role;
import io.kubernetes.client.openapi.models.V1RoleList;
import io.kubernetes.client.openapi.models.V1Scale;
import io.kubernetes.client.openapi.models.V1Secret;
import io.kubernetes.client.openapi.models.V1SecretList;
import io.kubernetes.client.openapi.models.V1Service;
import io.kubernetes.client.openapi.models.V1ServiceAccount;
import io.kubernetes.client.openapi.models.V1ServiceAccountList;
import io.kubernetes.client.openapi.models.V1ServiceList;
import io.kubernetes.client.openapi.models.V1ServicePort;
import io.kubernetes.client.openapi.models.V1ServiceSpec;
import io.kubernetes.client.openapi.models.V1StatefulSet;
import io.kubernetes.client.openapi.models.V1StatefulSetSpec;
import io.kubernetes.client.openapi.models.V1VolumeResourceRequirements;
import io.kubernetes.client.util.ClientBuilder;
import io.kubernetes.client.util.PatchUtils;
import io.kubernetes.client.util.Watch;
import io.kubernetes.client.util.Watchable;
import io.kubernetes.client.util.credentials.AccessTokenAuthentication;
import io.kubernetes.client.util.generic.GenericKubernetesApi;
import io.kubernetes.client.util.generic.options.ListOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The official clients, Python's and Java's. The official Python client (PyPI kubernetes, pinned in ./ordinal, its models pydantic and strict)
 * drives every served kind through its typed API: create, get, list, patch, delete, a set's status,
 * scale and a watch. Its models refuse a response that lacks a field upstream's types always carry
 * (a created set's status.replicas, a container status's imageID), so this fails on any.
 */
@E2eTest
class OfficialClientsIT {
  static Api api;

  @Test
  void theOfficialPythonClientWritesAndReadsEveryServedKind(@Namespace String ns) throws Exception {
    String python = System.getenv().getOrDefault("ORDINAL_KUBE_PYTHON", "../.tools/kube-python/bin/python");
    assertTrue(Files.isExecutable(Path.of(python)), "the Python client is installed by ./ordinal test: " + python);
    Path script = Path.of("src", "test", "resources", "clients", "python_client.py").toAbsolutePath();
    Command.Result run = Command.run(Duration.ofMinutes(3), python, script.toString(), api.base(), api.token(),
        api.caCertificate().toString(), ns);
    assertEquals(0, run.code(), run.output());
    List<String> steps = run.out().lines().filter(line -> line.startsWith("ok ")).toList();
    assertEquals(36, steps.size(), run.output());
  }

  /**
   * The official Java client (io.kubernetes:client-java, its models generated from upstream's
   * OpenAPI with gson adapters that refuse a field the schema does not know and a missing required
   * one): each served kind's whole life through its API, and a set's status, scale and watch through
   * the typed AppsV1Api.
   */
  @Test
  void theOfficialJavaClientWritesAndReadsEveryServedKind(@Namespace String ns) throws Exception {
    ApiClient client = new ClientBuilder().setBasePath(api.base())
        .setAuthentication(new AccessTokenAuthentication(api.token()))
        .setCertificateAuthority(Files.readAllBytes(api.caCertificate())).build();
    client.setReadTimeout(0); // a watch holds its response open
    List<String> steps = new ArrayList<>();
    Map<String, String> labels = Map.of("client", "java");
    lifeOf(new GenericKubernetesApi<>(V1ConfigMap.class, V1ConfigMapList.class, "", "v1", "configmaps", client),
        new V1ConfigMap().metadata(new V1ObjectMeta().name("java-cm").namespace(ns).labels(labels)).data(Map.of("k", "v")),
        steps);
    lifeOf(new GenericKubernetesApi<>(V1Secret.class, V1SecretList.class, "", "v1", "secrets", client),
        new V1Secret().metadata(new V1ObjectMeta().name("java-secret").namespace(ns).labels(labels))
            .stringData(Map.of("password", "s3cr3t")), steps);
    lifeOf(new GenericKubernetesApi<>(V1ServiceAccount.class, V1ServiceAccountList.class, "", "v1", "serviceaccounts", client),
        new V1ServiceAccount().metadata(new V1ObjectMeta().name("java-sa").namespace(ns).labels(labels)), steps);
    lifeOf(new GenericKubernetesApi<>(V1Service.class, V1ServiceList.class, "", "v1", "services", client),
        new V1Service().metadata(new V1ObjectMeta().name("java-svc").namespace(ns).labels(labels))
            .spec(new V1ServiceSpec().clusterIP("None").selector(Map.of("app", "java-web"))
                .ports(List.of(new V1ServicePort().name("web").port(80)))), steps);
    lifeOf(new GenericKubernetesApi<>(V1Role.class, V1RoleList.class, "rbac.authorization.k8s.io", "v1", "roles", client),
        new V1Role().metadata(new V1ObjectMeta().name("java-role").namespace(ns).labels(labels))
            .rules(List.of(new V1PolicyRule().apiGroups(List.of("")).resources(List.of("pods")).verbs(List.of("get")))), steps);

    AppsV1Api apps = new AppsV1Api(client);
    CoreV1Api core = new CoreV1Api(client);
    V1StatefulSet set = new V1StatefulSet()
        .metadata(new V1ObjectMeta().name("java-web").annotations(Map.of("ordinal.io/driver", "sim")))
        .spec(new V1StatefulSetSpec().serviceName("java-svc").replicas(1)
            .selector(new V1LabelSelector().matchLabels(Map.of("app", "java-web")))
            .template(new V1PodTemplateSpec().metadata(new V1ObjectMeta().labels(Map.of("app", "java-web")))
                .spec(new V1PodSpec().containers(List.of(new V1Container().name("nginx").image("registry.k8s.io/nginx-slim:0.24")
                    .ports(List.of(new V1ContainerPort().name("web").containerPort(80)))))))
            .volumeClaimTemplates(List.of(new V1PersistentVolumeClaim().metadata(new V1ObjectMeta().name("www"))
                .spec(new V1PersistentVolumeClaimSpec().accessModes(List.of("ReadWriteOnce"))
                    .resources(new V1VolumeResourceRequirements().requests(Map.of("storage", new Quantity("1Gi"))))))));
    V1StatefulSet created = apps.createNamespacedStatefulSet(ns, set).execute();
    assertEquals(0, created.getStatus().getReplicas(), created.toString());
    steps.add("create statefulset");
    boolean ready = false;
    try (Watch<V1StatefulSet> watch = Watch.createWatch(client,
        apps.listNamespacedStatefulSet(ns).watch(true).timeoutSeconds(90).buildCall(null),
        new TypeToken<Watch.Response<V1StatefulSet>>() {}.getType())) {
      for (Watch.Response<V1StatefulSet> event : watch) {
        Integer readyReplicas = event.object.getStatus() == null ? null : event.object.getStatus().getReadyReplicas();
        if (readyReplicas != null && readyReplicas >= 1) {
          ready = true;
          break;
        }
      }
    }
    assertTrue(ready, "the watch saw java-web Ready");
    steps.add("watch statefulset");
    assertEquals("java-web", apps.readNamespacedStatefulSetStatus("java-web", ns).execute().getMetadata().getName());
    steps.add("get statefulset status");
    PatchUtils.patch(V1Scale.class, () -> apps.patchNamespacedStatefulSetScale("java-web", ns,
        new V1Patch("{\"spec\":{\"replicas\":2}}")).buildCall(null), V1Patch.PATCH_FORMAT_STRATEGIC_MERGE_PATCH, client);
    assertEquals(2, apps.readNamespacedStatefulSetScale("java-web", ns).execute().getSpec().getReplicas());
    steps.add("scale statefulset");
    assertTrue(!core.listNamespacedPod(ns).labelSelector("app=java-web").execute().getItems().isEmpty(), "pods listed");
    core.listNamespacedPersistentVolumeClaim(ns).execute();
    apps.listNamespacedControllerRevision(ns).execute();
    core.listNamespacedEvent(ns).execute();
    core.readNamespace(ns).execute();
    core.listNamespace().execute();
    new DiscoveryV1Api(client).listNamespacedEndpointSlice(ns).execute();
    steps.add("list pods, claims, revisions, events, namespaces, endpointslices");
    apps.deleteNamespacedStatefulSet("java-web", ns).execute();
    steps.add("delete statefulset");
    assertEquals(36, steps.size(), steps.toString());
  }

  /** Create, get, list by label, patch, watch, delete: each through the client, each answer decoded by its model. */
  private static <T extends KubernetesObject, L extends KubernetesListObject> void lifeOf(GenericKubernetesApi<T, L> kind,
      T object, List<String> steps) throws Exception {
    String ns = object.getMetadata().getNamespace();
    String name = object.getMetadata().getName();
    String what = object.getClass().getSimpleName();
    String created = kind.create(object).throwsApiException().getObject().getMetadata().getResourceVersion();
    steps.add("create " + what);
    assertEquals(name, kind.get(ns, name).throwsApiException().getObject().getMetadata().getName());
    steps.add("get " + what);
    ListOptions byLabel = new ListOptions();
    byLabel.setLabelSelector("client=java");
    List<String> listed = kind.list(ns, byLabel).throwsApiException().getObject().getItems().stream()
        .map(item -> item.getMetadata().getName()).toList();
    assertEquals(List.of(name), listed);
    steps.add("list " + what);
    kind.patch(ns, name, V1Patch.PATCH_FORMAT_STRATEGIC_MERGE_PATCH,
        new V1Patch("{\"metadata\":{\"labels\":{\"patched\":\"yes\"}}}")).throwsApiException();
    assertEquals("yes", kind.get(ns, name).throwsApiException().getObject().getMetadata().getLabels().get("patched"));
    steps.add("patch " + what);
    ListOptions since = new ListOptions();
    since.setResourceVersion(created);
    since.setTimeoutSeconds(10);
    try (Watchable<T> watch = kind.watch(ns, since)) {
      Watch.Response<T> event = watch.next();
      assertEquals("MODIFIED", event.type, "the watch from the create's resourceVersion sees the patch");
      assertEquals("yes", event.object.getMetadata().getLabels().get("patched"));
    }
    steps.add("watch " + what);
    kind.delete(ns, name).throwsApiException();
    steps.add("delete " + what);
  }
}
