package io.ordinal.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
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
import io.kubernetes.client.openapi.models.CoreV1Event;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ConfigMapList;
import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1ContainerPort;
import io.kubernetes.client.openapi.models.V1ControllerRevision;
import io.kubernetes.client.openapi.models.V1EndpointSlice;
import io.kubernetes.client.openapi.models.V1LabelSelector;
import io.kubernetes.client.openapi.models.V1Namespace;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1PersistentVolumeClaim;
import io.kubernetes.client.openapi.models.V1PersistentVolumeClaimSpec;
import io.kubernetes.client.openapi.models.V1Pod;
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
import java.lang.reflect.Type;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import okhttp3.Call;
import org.junit.jupiter.api.Test;

/**
 * The official clients, Python's and Java's. The official Python client (PyPI kubernetes, pinned in ./ordinal, its models pydantic and strict)
 * drives every served kind through its typed API: create, get, list, patch, delete, a set's status,
 * scale and a watch; it watches, from a list's resourceVersion, what Ordinal writes for a set (pods,
 * claims, revisions, events, EndpointSlices) and reads each, and takes a namespace through its whole
 * life, watch included. Its models refuse a response that lacks a field upstream's types always carry
 * (a created set's status.replicas, a container status's imageID), so this fails on any, in a watch
 * event as in an answer.
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
    assertEquals(49, steps.size(), run.output());
  }

  /**
   * The official Java client (io.kubernetes:client-java, its models generated from upstream's
   * OpenAPI with gson adapters that refuse a field the schema does not know and a missing required
   * one): each served kind's whole life through its API, a set's status, scale and watch through
   * the typed AppsV1Api, the watch of what Ordinal writes for the set (pods, claims, revisions, events,
   * EndpointSlices) from a list's resourceVersion with a read and a list of each, and a namespace's
   * whole life, watch included.
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
    DiscoveryV1Api discovery = new DiscoveryV1Api(client);
    // What Ordinal writes for the set, listed before it exists: a watch from each list's
    // resourceVersion must then bring the set's own objects, each decoded by the client's model.
    String podsSince = core.listNamespacedPod(ns).execute().getMetadata().getResourceVersion();
    String claimsSince = core.listNamespacedPersistentVolumeClaim(ns).execute().getMetadata().getResourceVersion();
    String revisionsSince = apps.listNamespacedControllerRevision(ns).execute().getMetadata().getResourceVersion();
    String eventsSince = core.listNamespacedEvent(ns).execute().getMetadata().getResourceVersion();
    String slicesSince = discovery.listNamespacedEndpointSlice(ns).execute().getMetadata().getResourceVersion();
    steps.add("list pods, claims, revisions, events, endpointslices before the set");
    // The set's Service (java-svc went above): its EndpointSlice is Ordinal's to write.
    core.createNamespacedService(ns, new V1Service().metadata(new V1ObjectMeta().name("java-web"))
        .spec(new V1ServiceSpec().clusterIP("None").selector(Map.of("app", "java-web"))
            .ports(List.of(new V1ServicePort().name("web").port(80))))).execute();
    steps.add("create service java-web");
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

    // The pod the scale made, owned by the set.
    V1Pod pod = watchFor(client, core.listNamespacedPod(ns).resourceVersion(podsSince).watch(true).timeoutSeconds(90).buildCall(null),
        new TypeToken<Watch.Response<V1Pod>>() {}.getType(), (V1Pod p) -> "java-web-1".equals(p.getMetadata().getName()),
        "ADDED", "MODIFIED");
    assertTrue(controlledBySet(pod.getMetadata()), pod.getMetadata().toString());
    steps.add("watch pods");
    assertTrue(controlledBySet(core.readNamespacedPod("java-web-1", ns).execute().getMetadata()));
    assertEquals(List.of("java-web-0", "java-web-1"), core.listNamespacedPod(ns).labelSelector("app=java-web").execute()
        .getItems().stream().map(p -> p.getMetadata().getName()).sorted().toList());
    steps.add("get and list pods");
    // A claim is named <template>-<set>-<ordinal>.
    V1PersistentVolumeClaim claim = watchFor(client,
        core.listNamespacedPersistentVolumeClaim(ns).resourceVersion(claimsSince).watch(true).timeoutSeconds(90).buildCall(null),
        new TypeToken<Watch.Response<V1PersistentVolumeClaim>>() {}.getType(),
        (V1PersistentVolumeClaim c) -> "www-java-web-0".equals(c.getMetadata().getName()), "ADDED", "MODIFIED");
    assertEquals(new Quantity("1Gi"), claim.getSpec().getResources().getRequests().get("storage"), claim.toString());
    steps.add("watch persistentvolumeclaims");
    core.readNamespacedPersistentVolumeClaim("www-java-web-0", ns).execute();
    assertTrue(core.listNamespacedPersistentVolumeClaim(ns).execute().getItems().stream().map(c -> c.getMetadata().getName())
        .toList().containsAll(List.of("www-java-web-0", "www-java-web-1")));
    steps.add("get and list persistentvolumeclaims");
    V1ControllerRevision revision = watchFor(client,
        apps.listNamespacedControllerRevision(ns).resourceVersion(revisionsSince).watch(true).timeoutSeconds(90).buildCall(null),
        new TypeToken<Watch.Response<V1ControllerRevision>>() {}.getType(),
        (V1ControllerRevision r) -> r.getMetadata().getName().startsWith("java-web-"), "ADDED", "MODIFIED");
    assertTrue(controlledBySet(revision.getMetadata()) && revision.getRevision() >= 1, revision.getMetadata().toString());
    steps.add("watch controllerrevisions");
    String revisionName = revision.getMetadata().getName();
    apps.readNamespacedControllerRevision(revisionName, ns).execute();
    assertTrue(apps.listNamespacedControllerRevision(ns).execute().getItems().stream()
        .anyMatch(r -> revisionName.equals(r.getMetadata().getName())));
    steps.add("get and list controllerrevisions");
    CoreV1Event event = watchFor(client,
        core.listNamespacedEvent(ns).resourceVersion(eventsSince).watch(true).timeoutSeconds(90).buildCall(null),
        new TypeToken<Watch.Response<CoreV1Event>>() {}.getType(),
        (CoreV1Event e) -> "StatefulSet".equals(e.getInvolvedObject().getKind()) && "java-web".equals(e.getInvolvedObject().getName()),
        "ADDED", "MODIFIED");
    assertEquals(ns, event.getInvolvedObject().getNamespace(), event.toString());
    assertTrue(event.getReason() != null && !event.getReason().isEmpty(), event.toString());
    steps.add("watch events");
    String eventName = event.getMetadata().getName();
    core.readNamespacedEvent(eventName, ns).execute();
    assertTrue(core.listNamespacedEvent(ns).execute().getItems().stream().anyMatch(e -> eventName.equals(e.getMetadata().getName())));
    steps.add("get and list events");
    V1EndpointSlice slice = watchFor(client,
        discovery.listNamespacedEndpointSlice(ns).resourceVersion(slicesSince).watch(true).timeoutSeconds(90).buildCall(null),
        new TypeToken<Watch.Response<V1EndpointSlice>>() {}.getType(),
        (V1EndpointSlice e) -> e.getMetadata().getLabels() != null
            && "java-web".equals(e.getMetadata().getLabels().get("kubernetes.io/service-name")), "ADDED", "MODIFIED");
    assertTrue(slice.getAddressType() != null, slice.toString());
    steps.add("watch endpointslices");
    String sliceName = slice.getMetadata().getName();
    discovery.readNamespacedEndpointSlice(sliceName, ns).execute();
    assertEquals(List.of(sliceName), discovery.listNamespacedEndpointSlice(ns).labelSelector("kubernetes.io/service-name=java-web")
        .execute().getItems().stream().map(e -> e.getMetadata().getName()).toList());
    steps.add("get and list endpointslices");
    apps.deleteNamespacedStatefulSet("java-web", ns).execute();
    steps.add("delete statefulset");
    core.deleteNamespacedService("java-web", ns).execute();
    steps.add("delete service java-web");

    // A namespace's whole life: listed first, so that the watch from that list sees it added.
    String made = ns + "-made";
    Type namespaceEvents = new TypeToken<Watch.Response<V1Namespace>>() {}.getType();
    String namespacesSince = core.listNamespace().execute().getMetadata().getResourceVersion();
    core.createNamespace(new V1Namespace().metadata(new V1ObjectMeta().name(made).labels(labels))).execute();
    steps.add("create namespace");
    assertEquals("Active", core.readNamespace(made).execute().getStatus().getPhase());
    core.readNamespace(ns).execute(); // one no one created: Ordinal's namespaces are implicit too
    steps.add("get namespace");
    assertTrue(core.listNamespace().labelSelector("client=java").execute().getItems().stream()
        .anyMatch(n -> made.equals(n.getMetadata().getName())));
    steps.add("list namespace");
    watchFor(client, core.listNamespace().resourceVersion(namespacesSince).watch(true).timeoutSeconds(90).buildCall(null),
        namespaceEvents, (V1Namespace n) -> made.equals(n.getMetadata().getName()), "ADDED");
    steps.add("watch namespace");
    V1Namespace patched = PatchUtils.patch(V1Namespace.class, () -> core.patchNamespace(made,
        new V1Patch("{\"metadata\":{\"labels\":{\"patched\":\"yes\"}}}")).buildCall(null),
        V1Patch.PATCH_FORMAT_STRATEGIC_MERGE_PATCH, client);
    assertEquals("yes", core.readNamespace(made).execute().getMetadata().getLabels().get("patched"));
    steps.add("patch namespace");
    core.deleteNamespace(made).execute();
    // Gone once its content is (it has none): the watch from the patch sees it deleted, and it is no longer listed.
    watchFor(client, core.listNamespace().resourceVersion(patched.getMetadata().getResourceVersion()).watch(true)
        .timeoutSeconds(90).buildCall(null), namespaceEvents, (V1Namespace n) -> made.equals(n.getMetadata().getName()), "DELETED");
    assertTrue(core.listNamespace().labelSelector("client=java").execute().getItems().stream()
        .noneMatch(n -> made.equals(n.getMetadata().getName())));
    steps.add("delete namespace");
    assertEquals(54, steps.size(), steps.toString());
  }

  /** Whether the set java-web is the object's controller, as upstream's StatefulSet controller sets it on what it makes. */
  private static boolean controlledBySet(V1ObjectMeta metadata) {
    return metadata.getOwnerReferences() != null && metadata.getOwnerReferences().stream().anyMatch(owner ->
        "StatefulSet".equals(owner.getKind()) && "java-web".equals(owner.getName()) && Boolean.TRUE.equals(owner.getController()));
  }

  /**
   * The object of the first event of one of {@code types} for which {@code wanted} holds, on the watch
   * {@code call} opens: every event on the way is decoded by the client's model, so one it refuses fails here.
   */
  private static <T> T watchFor(ApiClient client, Call call, Type events, Predicate<T> wanted, String... types) throws Exception {
    try (Watch<T> watch = Watch.createWatch(client, call, events)) {
      for (Watch.Response<T> event : watch) {
        assertNotEquals("ERROR", event.type, () -> String.valueOf(event.status));
        if (List.of(types).contains(event.type) && wanted.test(event.object)) {
          return event.object;
        }
      }
    }
    throw new AssertionError("no " + String.join("/", types) + " event wanted on the watch " + call.request().url());
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
