package io.ordinal.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.ordinal.store.KubeJson;
import io.temporal.api.enums.v1.EventType;
import io.temporal.client.WorkflowClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Ordinal in a real cluster (kube-apiserver, controller manager, scheduler, etcd, KWOK running the
 * pods): StatefulSets of {@code apps.ordinal.io/v1} applied, scaled, rolled and deleted with the real
 * kubectl, their pods and claims created in the API server by the kubernetes driver.
 */
@E2eTest
class KubernetesIT {
  /** The control plane and an Ordinal service that watches it (not the shared service: this one is the cluster's). */
  private record Setup(ControlPlane cluster, OrdinalService ordinal) {}

  private static final String NEW_IMAGE = "k8s.gcr.io/nginx-slim:0.9";
  private static Setup setup;

  @BeforeAll
  static void start() throws Exception {
    ControlPlane cluster = ControlPlane.start();
    OrdinalService ordinal = new OrdinalService("kubernetes", Map.of("ORDINAL_KUBERNETES_ENABLED", "true",
        "ORDINAL_KUBERNETES_KUBECONFIG", cluster.kubeconfig().toString()));
    setup = new Setup(cluster, ordinal);
    ordinal.start();
    // The service installs its CRD as it starts.
    kubectl("wait", "--for=condition=Established", "--timeout=60s", "crd/statefulsets.apps.ordinal.io");
  }

  @AfterAll
  static void stop() throws Exception {
    if (setup != null) {
      setup.ordinal().close();
      setup.cluster().close();
    }
  }

  private static String kubectl(String... args) {
    return setup.cluster().kubectl().run(args).ok().out();
  }

  private static String namespace(String ns) {
    kubectl("create", "namespace", ns);
    return ns;
  }

  /** The example set of the docs as an apps.ordinal.io object, its claims in the cluster's StorageClass. */
  private static ObjectNode web(int replicas) {
    ObjectNode set = Manifests.web("web", replicas, 0, Map.of());
    set.put("apiVersion", "apps.ordinal.io/v1");
    ((ObjectNode) set.get("metadata")).remove("annotations");
    ((ObjectNode) set.at("/spec/volumeClaimTemplates/0/spec")).put("storageClassName", "standard");
    return set;
  }

  private static void apply(String ns, ObjectNode set) {
    setup.cluster().kubectl().run(KubeJson.write(set), Map.of(), "-n", ns, "apply", "-f", "-").ok();
  }

  private static void awaitRolloutComplete(String ns) {
    kubectl("-n", ns, "wait", "--for=condition=RolloutComplete", "--timeout=90s", "statefulsets.apps.ordinal.io/web");
  }

  private static JsonNode json(String... args) throws Exception {
    return KubeJson.JSON.readTree(kubectl(args));
  }

  @Test
  void anOrdinalStatefulSetAppliedWithKubectlRunsItsPodsAndClaimsInTheClusterInOrder(@Namespace String name) throws Exception {
    String ns = namespace(name);
    for (int i = 0; i < 3; i++) {
      setup.cluster().persistentVolume(ns + "-www-" + i, "1Gi");
    }
    try (PodWatch watch = new PodWatch(setup.cluster().kubectl(), ns, "web")) {
      apply(ns, web(3));
      Map<Integer, PodWatch.Seen> ready = watch.awaitReady(3, Set.of());
      for (int i = 1; i < 3; i++) {
        assertTrue(ready.get(i).added() >= ready.get(i - 1).ready(), "web-" + i + " created before web-" + (i - 1) + " was Ready");
      }
      assertEquals(3, watch.seen().size(), "one pod per identity: " + watch.seen());
    }
    awaitRolloutComplete(ns);

    JsonNode set = json("-n", ns, "get", "statefulsets.apps.ordinal.io", "web", "-o", "json");
    String uid = set.at("/metadata/uid").asText();
    JsonNode status = set.path("status");
    assertEquals(set.at("/metadata/generation").asLong(), status.path("observedGeneration").asLong(), status.toString());
    assertEquals(3, status.path("readyReplicas").asInt(), status.toString());
    assertEquals(3, status.path("updatedReplicas").asInt(), status.toString());
    assertEquals("app=web", status.path("selector").asText());
    String revision = status.path("updateRevision").asText();
    assertTrue(revision.startsWith("web-"), revision);

    for (int i = 0; i < 3; i++) {
      JsonNode pod = json("-n", ns, "get", "pod", "web-" + i, "-o", "json");
      JsonNode labels = pod.at("/metadata/labels");
      assertEquals("web-" + i, labels.path("statefulset.kubernetes.io/pod-name").asText());
      assertEquals(String.valueOf(i), labels.path("apps.kubernetes.io/pod-index").asText());
      assertEquals(revision, labels.path("controller-revision-hash").asText());
      JsonNode owner = pod.at("/metadata/ownerReferences/0");
      assertEquals("apps.ordinal.io/v1", owner.path("apiVersion").asText());
      assertEquals(uid, owner.path("uid").asText());
      assertTrue(owner.path("controller").asBoolean());
      assertEquals("web-" + i, pod.at("/spec/hostname").asText());
      assertEquals("nginx", pod.at("/spec/subdomain").asText());
      assertEquals("www-web-" + i, pod.at("/spec/volumes/0/persistentVolumeClaim/claimName").asText());
      JsonNode claim = json("-n", ns, "get", "pvc", "www-web-" + i, "-o", "json");
      assertEquals("Bound", claim.at("/status/phase").asText(), claim.toString());
    }
    // The printer columns of the CRD, as kubectl get shows them.
    String table = kubectl("-n", ns, "get", "osts", "web");
    assertTrue(table.lines().anyMatch(line -> line.matches("web\\s+3\\s+3\\s+3\\s+3\\s+.*")), table);
    // The controller's events, on the object in the cluster, as upstream's controller records them.
    List<String> creates = new ArrayList<>();
    for (int i = 0; i < 100 && creates.size() < 3; i++) {
      creates.clear();
      for (JsonNode event : json("-n", ns, "get", "events", "--field-selector", "involvedObject.name=web", "-o", "json")
          .path("items")) {
        assertEquals("apps.ordinal.io/v1", event.at("/involvedObject/apiVersion").asText());
        assertEquals(uid, event.at("/involvedObject/uid").asText());
        if (event.path("message").asText().startsWith("create Pod")) {
          creates.add(event.path("message").asText());
        }
      }
      Thread.sleep(100);
    }
    assertEquals(List.of("create Pod web-0 in StatefulSet web successful", "create Pod web-1 in StatefulSet web successful",
        "create Pod web-2 in StatefulSet web successful"), creates);
    // Ordinal's own API shows the same set, run by the kubernetes driver.
    Api api = setup.ordinal().api();
    JsonNode mirrored = api.set(ns, "web");
    assertEquals("kubernetes", mirrored.at("/metadata/annotations/ordinal.io~1driver").asText());
    assertEquals(uid, mirrored.at("/metadata/annotations/apps.ordinal.io~1cluster-uid").asText());
  }

  @Test
  void kubectlScaleAndAnImageChangeRunInUpstreamsOrder(@Namespace String name) throws Exception {
    String ns = namespace(name);
    ObjectNode set = withoutClaims(web(3));
    try (PodWatch watch = new PodWatch(setup.cluster().kubectl(), ns, "web")) {
      apply(ns, set);
      Map<Integer, PodWatch.Seen> first = watch.awaitReady(3, Set.of());
      awaitRolloutComplete(ns);

      // Scale down: the highest ordinal first, each gone before the next goes.
      kubectl("-n", ns, "scale", "statefulsets.apps.ordinal.io/web", "--replicas=1");
      Map<String, Long> deleted = watch.awaitDeleted(Set.of(first.get(1).uid(), first.get(2).uid()));
      assertTrue(deleted.get(first.get(2).uid()) < deleted.get(first.get(1).uid()), "web-2 goes before web-1");
      assertTrue(watch.seen().stream().filter(s -> s.deleted() == 0).allMatch(s -> s.ordinal() == 0));
      awaitRolloutComplete(ns);
      assertEquals(1, json("-n", ns, "get", "osts", "web", "-o", "json").at("/status/replicas").asInt());

      // Back up, then a new image: pods replaced from the highest ordinal down.
      kubectl("-n", ns, "scale", "statefulsets.apps.ordinal.io/web", "--replicas=3");
      Map<Integer, PodWatch.Seen> scaled = watch.awaitReady(3, Set.of(first.get(1).uid(), first.get(2).uid()));
      awaitRolloutComplete(ns);
      Set<String> before = scaled.values().stream().map(PodWatch.Seen::uid).collect(Collectors.toSet());
      kubectl("-n", ns, "patch", "statefulsets.apps.ordinal.io/web", "--type=json", "-p", Manifests.imagePatch(NEW_IMAGE));
      Set<String> excluded = new HashSet<>(watch.uids());
      Map<Integer, PodWatch.Seen> rolled = watch.awaitReady(3, excluded);
      assertTrue(rolled.get(2).added() < rolled.get(1).added() && rolled.get(1).added() < rolled.get(0).added(),
          "replaced from the highest ordinal down: " + rolled);
      for (PodWatch.Seen pod : rolled.values()) {
        assertEquals(NEW_IMAGE, pod.pod().at("/spec/containers/0/image").asText());
        assertTrue(!before.contains(pod.uid()));
      }
      awaitRolloutComplete(ns);
      JsonNode status = json("-n", ns, "get", "osts", "web", "-o", "json").path("status");
      assertEquals(status.path("updateRevision").asText(), status.path("currentRevision").asText());
      assertNotEquals(first.get(0).pod().at("/metadata/labels/controller-revision-hash").asText(),
          status.path("updateRevision").asText());
    }
  }

  @Test
  void anInPlaceUpdatePatchesEachPodsImageAndResizesItThroughTheClusterKeepingThePod(@Namespace String name)
      throws Exception {
    String ns = namespace(name);
    ObjectNode set = withoutClaims(web(2));
    ((ObjectNode) set.get("metadata")).putObject("annotations").put("ordinal.io/pod-update-policy", "InPlaceIfPossible");
    // No memory request: the API server defaults it from the limit, which Ordinal's pod does not write down.
    ((ObjectNode) set.at("/spec/template/spec/containers/0")).set("resources", KubeJson.JSON.readTree(
        "{\"requests\":{\"cpu\":\"100m\"},\"limits\":{\"cpu\":\"500m\",\"memory\":\"128Mi\"}}"));
    apply(ns, set);
    awaitRolloutComplete(ns);
    Map<Integer, JsonNode> before = clusterPods(ns, 2);
    String revision = json("-n", ns, "get", "osts", "web", "-o", "json").at("/status/currentRevision").asText();

    kubectl("-n", ns, "patch", "statefulsets.apps.ordinal.io/web", "--type=json", "-p", """
        [{"op":"replace","path":"/spec/template/spec/containers/0/image","value":"%s"},
         {"op":"replace","path":"/spec/template/spec/containers/0/resources/limits/memory","value":"256Mi"}]"""
        .formatted(NEW_IMAGE));
    JsonNode status = awaitRolledOutFrom(ns, revision, 2);
    Map<Integer, JsonNode> after = clusterPods(ns, 2);
    for (int i = 0; i < 2; i++) {
      JsonNode pod = after.get(i);
      assertEquals(before.get(i).at("/metadata/uid").asText(), pod.at("/metadata/uid").asText(), "web-" + i + " is the same pod");
      assertEquals(NEW_IMAGE, pod.at("/spec/containers/0/image").asText());
      assertEquals("256Mi", pod.at("/spec/containers/0/resources/limits/memory").asText(), "resized through pods/resize");
      assertEquals("256Mi", pod.at("/spec/containers/0/resources/requests/memory").asText(), "its request with it");
      assertEquals("Burstable", pod.at("/status/qosClass").asText());
      assertEquals("256Mi", pod.at("/status/containerStatuses/0/resources/limits/memory").asText());
      assertEquals(1, pod.at("/status/containerStatuses/0/restartCount").asInt(), "the kubelet restarted it once");
      assertEquals(status.path("updateRevision").asText(), pod.at("/metadata/labels/controller-revision-hash").asText());
    }

    // Limits equal to requests would make the pods Guaranteed: the API server resizes no pod across
    // QoS classes, so they are replaced.
    String resized = status.path("updateRevision").asText();
    kubectl("-n", ns, "patch", "statefulsets.apps.ordinal.io/web", "--type=json", "-p", """
        [{"op":"replace","path":"/spec/template/spec/containers/0/resources",
          "value":{"requests":{"cpu":"100m","memory":"64Mi"},"limits":{"cpu":"100m","memory":"64Mi"}}}]""");
    awaitRolledOutFrom(ns, resized, 2);
    Map<Integer, JsonNode> replaced = clusterPods(ns, 2);
    for (int i = 0; i < 2; i++) {
      assertNotEquals(after.get(i).at("/metadata/uid").asText(), replaced.get(i).at("/metadata/uid").asText(),
          "web-" + i + " was replaced");
      assertEquals("Guaranteed", replaced.get(i).at("/status/qosClass").asText());
    }
  }

  private static Map<Integer, JsonNode> clusterPods(String ns, int replicas) throws Exception {
    Map<Integer, JsonNode> pods = new TreeMap<>();
    for (int i = 0; i < replicas; i++) {
      pods.put(i, json("-n", ns, "get", "pod", "web-" + i, "-o", "json"));
    }
    return pods;
  }

  /** Waits until the set has rolled from {@code revision} to a new one, all replicas updated and ready. */
  private static JsonNode awaitRolledOutFrom(String ns, String revision, int replicas) throws Exception {
    for (int i = 0; i < 900; i++) {
      JsonNode status = json("-n", ns, "get", "osts", "web", "-o", "json").path("status");
      if (!status.path("updateRevision").asText().equals(revision)
          && status.path("currentRevision").asText().equals(status.path("updateRevision").asText())
          && status.path("updatedReplicas").asInt() == replicas && status.path("readyReplicas").asInt() == replicas) {
        return status;
      }
      Thread.sleep(100);
    }
    throw new AssertionError("web did not roll out from " + revision + ": "
        + json("-n", ns, "get", "osts", "web", "-o", "json").path("status"));
  }

  @Test
  void aMemberOverrideRunsInTheClusterAndOrdinalsUndoOfItIsWrittenBackToTheObject(@Namespace String name)
      throws Exception {
    String ns = namespace(name);
    ObjectNode set = withoutClaims(web(3));
    ((ObjectNode) set.get("metadata")).putObject("annotations").put("ordinal.io/member-overrides",
        "- {ordinals: \"2\", template: {metadata: {annotations: {tier: big}}}}");
    try (PodWatch watch = new PodWatch(setup.cluster().kubectl(), ns, "web")) {
      apply(ns, set);
      Map<Integer, PodWatch.Seen> made = watch.awaitReady(3, Set.of());
      awaitRolloutComplete(ns);
      assertEquals("big", json("-n", ns, "get", "pod", "web-2", "-o", "json").at("/metadata/annotations/tier").asText());
      assertEquals("", json("-n", ns, "get", "pod", "web-1", "-o", "json").at("/metadata/annotations/tier").asText());

      // The user changes the override on the cluster's object (no new generation there): web-2 alone rolls.
      kubectl("-n", ns, "annotate", "--overwrite", "statefulsets.apps.ordinal.io/web",
          "ordinal.io/member-overrides=- {ordinals: \"2\", template: {metadata: {annotations: {tier: bigger}}}}");
      Map<Integer, PodWatch.Seen> rolled = watch.awaitReady(3, Set.of(made.get(2).uid()));
      assertEquals("bigger", rolled.get(2).pod().at("/metadata/annotations/tier").asText());
      assertEquals(made.get(0).uid(), rolled.get(0).uid());
      assertEquals(made.get(1).uid(), rolled.get(1).uid());
      awaitRolloutComplete(ns);

      // Ordinal's own undo brings the first override back, on the object too, and it stays.
      Api api = setup.ordinal().api();
      assertEquals(200, api.post(Paths.set(ns, "web") + "/rollout/undo", null, null).code());
      Map<Integer, PodWatch.Seen> undone = watch.awaitReady(3, Set.of(made.get(2).uid(), rolled.get(2).uid()));
      assertEquals("big", undone.get(2).pod().at("/metadata/annotations/tier").asText());
      awaitRolloutComplete(ns);
      Thread.sleep(2_000); // a mirror that put the object's overrides back would have rolled web-2 again by now
      // Written back as the revision records the overrides (JSON).
      String first = "[{\"ordinals\":\"2\",\"template\":{\"metadata\":{\"annotations\":{\"tier\":\"big\"}}}}]";
      JsonNode object = json("-n", ns, "get", "osts", "web", "-o", "json");
      assertEquals(first, object.at("/metadata/annotations").path("ordinal.io/member-overrides").asText());
      assertEquals(undone.get(2).uid(), json("-n", ns, "get", "pod", "web-2", "-o", "json").at("/metadata/uid").asText());
      assertEquals(first, api.set(ns, "web").at("/metadata/annotations").path("ordinal.io/member-overrides").asText());
    }
  }

  @Test
  void aSpecOrdinalRefusesIsReportedOnTheObjectWithItsFieldPath(@Namespace String name) throws Exception {
    String ns = namespace(name);
    ObjectNode set = web(1);
    ((ObjectNode) set.get("spec")).put("podManagementPolicy", "Sometimes");
    apply(ns, set);
    kubectl("-n", ns, "wait", "--for=condition=Accepted=False", "--timeout=60s", "statefulsets.apps.ordinal.io/web");
    JsonNode conditions = json("-n", ns, "get", "osts", "web", "-o", "json").at("/status/conditions");
    String message = conditions.findValues("message").toString();
    assertTrue(message.contains("spec.podManagementPolicy"), message);
    assertEquals("", kubectl("-n", ns, "get", "pods", "-o", "name").trim());

    // A cluster object's pods run in the cluster: the local driver (processes beside Ordinal) is refused.
    ((ObjectNode) set.get("spec")).put("podManagementPolicy", "OrderedReady");
    ((ObjectNode) set.get("metadata")).putObject("annotations").put("ordinal.io/driver", "local");
    apply(ns, set);
    for (int i = 0; i < 100 && !conditions(ns).toString().contains("ordinal.io/driver"); i++) {
      Thread.sleep(100);
    }
    assertTrue(conditions(ns).toString().contains(
        "metadata.annotations[ordinal.io/driver]: Unsupported value: \\\"local\\\": supported values: \\\"kubernetes\\\""),
        conditions(ns).toString());

    // Fixed, it runs.
    ((ObjectNode) set.get("metadata")).remove("annotations");
    ((ObjectNode) set.get("spec")).put("podManagementPolicy", "OrderedReady");
    apply(ns, set);
    kubectl("-n", ns, "wait", "--for=condition=Accepted", "--timeout=60s", "statefulsets.apps.ordinal.io/web");
  }

  @Test
  void deletingTheObjectDeletesItsPodsAndOrdinalsSet(@Namespace String name) throws Exception {
    String ns = namespace(name);
    ObjectNode set = withoutClaims(web(2));
    apply(ns, set);
    awaitRolloutComplete(ns);
    kubectl("-n", ns, "delete", "statefulsets.apps.ordinal.io/web", "--wait=true");
    Api api = setup.ordinal().api();
    api.await(Paths.set(ns, "web"), Duration.ofSeconds(60), reply -> reply.code() == 404);
    for (int i = 0; i < 60 && !kubectl("-n", ns, "get", "pods", "-o", "name").isBlank(); i++) {
      Thread.sleep(500);
    }
    assertEquals(List.of(), kubectl("-n", ns, "get", "pods", "-o", "name").lines().toList());
  }

  /**
   * kill -9 of Ordinal while a rollout is halfway: the pods keep running in the cluster, and the
   * restarted service finishes the rollout in order, with never two pods of one identity and no pod
   * created twice.
   */
  @Test
  void aRolloutInTheClusterFinishesInOrderAfterOrdinalIsKilledMidway(@Namespace String name) throws Exception {
    String ns = namespace(name);
    int replicas = 5;
    ObjectNode set = withoutClaims(web(replicas));
    ((ObjectNode) set.get("spec")).put("minReadySeconds", 1);
    try (PodWatch watch = new PodWatch(setup.cluster().kubectl(), ns, "web")) {
      apply(ns, set);
      Set<String> before = rollOutUntilTwoPodsAreNew(watch, ns, replicas);
      setup.ordinal().kill9();
      setup.ordinal().start();
      Map<Integer, PodWatch.Seen> rolled = watch.awaitReady(replicas, before);
      awaitRolloutComplete(ns);

      assertRolledOnceInOrder(watch, before, rolled, replicas);
    }
  }

  /**
   * Two Ordinals against one cluster, one Temporal and one PostgreSQL (the second shares the first's):
   * both watch the cluster and either runs the set's workflows. The one that ran the rollout's last
   * workflow task is killed -9 halfway; the other finishes the rollout in order, one new pod per
   * identity, never two at once, and each of the controller's events reaches the cluster once.
   */
  @Test
  void withTwoOrdinalsTheSurvivorFinishesARolloutTheOtherWasRunning(@Namespace String name) throws Exception {
    String ns = namespace(name);
    int replicas = 4;
    ObjectNode set = withoutClaims(web(replicas));
    ((ObjectNode) set.get("spec")).put("minReadySeconds", 1);
    OrdinalService first = setup.ordinal();
    try (OrdinalService second = new OrdinalService("kubernetes-b", first.sharedInfrastructure())
        .withEnv("ORDINAL_NODE_NAME", "ordinal-b").withEnv("ORDINAL_KUBERNETES_ENABLED", "true")
        .withEnv("ORDINAL_KUBERNETES_KUBECONFIG", setup.cluster().kubeconfig().toString());
        PodWatch watch = new PodWatch(setup.cluster().kubectl(), ns, "web")) {
      second.start();
      apply(ns, set);
      Set<String> before = rollOutUntilTwoPodsAreNew(watch, ns, replicas);
      boolean secondRanIt = first.withTemporal(client -> lastWorkflowTaskBy(client, ns)).endsWith("@ordinal-b");
      OrdinalService killed = secondRanIt ? second : first;
      killed.kill9();
      Map<Integer, PodWatch.Seen> rolled = watch.awaitReady(replicas, before);
      awaitRolloutComplete(ns);
      if (killed == first) {
        first.start(); // for the other tests; its Temporal and PostgreSQL lived on as orphans
      }

      assertRolledOnceInOrder(watch, before, rolled, replicas);
      Map<String, Long> creates = Map.of();
      for (int i = 0; i < 100 && creates.values().stream().mapToLong(Long::longValue).sum() < 2 * replicas; i++) {
        Thread.sleep(100); // events are mirrored to the cluster after they are recorded
        creates = new java.util.TreeMap<>();
        for (JsonNode event : json("-n", ns, "get", "events", "-o", "json").path("items")) {
          if (event.path("message").asText().startsWith("create Pod")) {
            creates.merge(event.path("message").asText(), event.path("count").asLong(), Long::sum);
          }
        }
      }
      // One event per pod, counted twice (the scale, the rollout), as upstream's recorder counts a repeat.
      assertEquals(2 * replicas, creates.values().stream().mapToLong(Long::longValue).sum(), creates.toString());
      assertTrue(creates.values().stream().allMatch(n -> n == 2), "each pod's create event twice (scale, rollout): " + creates);
    }
  }

  /**
   * The cluster's own components crash under a rollout: kube-apiserver, then etcd, are killed -9
   * while pods are being replaced, and started again a few seconds later. Ordinal's driver rides it
   * out (its requests fail and are retried, its watch resumes): the rollout finishes, replacing each
   * pod once, highest ordinal first, each gone before its successor was made, the cluster ends with
   * exactly the pods Ordinal has, and every claim is the one it was, Bound.
   */
  @Test
  void aRolloutInTheClusterFinishesInOrderThroughKill9OfTheApiServerAndOfEtcd(@Namespace String name) throws Exception {
    String ns = namespace(name);
    int replicas = 5;
    for (int i = 0; i < replicas; i++) {
      setup.cluster().persistentVolume(ns + "-www-" + i, "1Gi");
    }
    ObjectNode set = web(replicas);
    ((ObjectNode) set.get("spec")).put("minReadySeconds", 2);
    apply(ns, set);
    awaitRolloutComplete(ns);
    Map<String, String> claimsBefore = claims(ns);
    assertEquals(replicas, claimsBefore.size(), claimsBefore.toString());
    Api api = setup.ordinal().api();
    String before = api.set(ns, "web").at("/status/currentRevision").asText();
    kubectl("-n", ns, "patch", "statefulsets.apps.ordinal.io/web", "--type=json", "-p", Manifests.imagePatch(NEW_IMAGE));
    for (String component : List.of("kube-apiserver", "etcd")) {
      int replaced = replacedSoFar(api, ns);
      api.await(Paths.set(ns, "web"), Duration.ofSeconds(60),
          r -> r.code() == 200 && replacedSoFar(api, ns) > replaced);
      setup.cluster().kill(component);
      Thread.sleep(3_000); // Ordinal meanwhile: its creates, deletes and watch fail
      setup.cluster().restart(component);
    }
    api.await(Paths.set(ns, "web") + "/status", Duration.ofSeconds(120), r -> {
      JsonNode s = r.json().path("status");
      return s.path("updatedReplicas").asInt() == replicas && s.path("readyReplicas").asInt() == replicas
          && !s.path("currentRevision").asText().equals(before);
    });
    awaitRolloutComplete(ns);

    List<String> operations = api.podOperations(ns);
    List<String> expected = new ArrayList<>();
    for (int i = 0; i < replicas; i++) {
      expected.add("+web-" + i);
    }
    for (int i = replicas - 1; i >= 0; i--) {
      expected.addAll(List.of("-web-" + i, "+web-" + i));
    }
    assertEquals(expected, operations, "each pod created once, replaced once, in order");
    Map<String, String> inOrdinal = new TreeMap<>();
    api.pods(ns, "app=web").forEach(p -> inOrdinal.put(p.at("/metadata/name").asText(), p.at("/metadata/uid").asText()));
    Map<String, String> inCluster = new TreeMap<>();
    json("-n", ns, "get", "pods", "-l", "app=web", "-o", "json").path("items").forEach(p -> inCluster.put(
        p.at("/metadata/name").asText(), p.at("/metadata/annotations/ordinal.io~1pod-uid").asText()));
    assertEquals(inOrdinal, inCluster, "the cluster runs exactly Ordinal's pods");
    assertEquals(claimsBefore, claims(ns), "every claim kept, the same object, still Bound");
  }

  /** The cluster's claims of the namespace: name to uid and phase. */
  private static Map<String, String> claims(String ns) throws Exception {
    Map<String, String> claims = new TreeMap<>();
    json("-n", ns, "get", "pvc", "-o", "json").path("items").forEach(c -> claims.put(c.at("/metadata/name").asText(),
        c.at("/metadata/uid").asText() + " " + c.at("/status/phase").asText()));
    return claims;
  }

  /** Once the set is rolled out, a new image; returns the pods before it, once two of their successors exist. */
  private static Set<String> rollOutUntilTwoPodsAreNew(PodWatch watch, String ns, int replicas) throws Exception {
    watch.awaitReady(replicas, Set.of());
    awaitRolloutComplete(ns);
    Set<String> before = watch.uids();
    kubectl("-n", ns, "patch", "statefulsets.apps.ordinal.io/web", "--type=json", "-p", Manifests.imagePatch(NEW_IMAGE));
    for (int i = 0; i < 600 && watch.seen().stream().filter(s -> !before.contains(s.uid())).count() < 2; i++) {
      Thread.sleep(50);
    }
    return before;
  }

  /**
   * What kubectl's watch saw of a rollout: one new pod per identity (none of {@code before}), the
   * highest ordinal replaced first, and never two pods of one identity at once.
   */
  private static void assertRolledOnceInOrder(PodWatch watch, Set<String> before, Map<Integer, PodWatch.Seen> rolled,
      int replicas) {
    List<PodWatch.Seen> created = watch.seen().stream().filter(s -> !before.contains(s.uid())).toList();
    assertEquals(replicas, created.size(), "one new pod per identity: " + created);
    for (int i = 1; i < replicas; i++) {
      assertTrue(rolled.get(i).added() < rolled.get(i - 1).added(), "web-" + i + " replaced before web-" + (i - 1));
    }
    for (int ordinal = 0; ordinal < replicas; ordinal++) {
      int o = ordinal;
      List<PodWatch.Seen> incarnations = watch.seen().stream().filter(s -> s.ordinal() == o).toList();
      for (int i = 1; i < incarnations.size(); i++) {
        PodWatch.Seen earlier = incarnations.get(i - 1);
        assertTrue(earlier.deleted() != 0 && earlier.deleted() <= incarnations.get(i).added(),
            "two pods of web-" + o + " at once: " + incarnations);
      }
    }
  }

  /** How many pods the rollout has replaced so far, by Ordinal's events (deletions after the scale-up). */
  private static int replacedSoFar(Api api, String ns) {
    return (int) api.podOperations(ns).stream().filter(op -> op.startsWith("-")).count();
  }

  /**
   * The identity of the worker that completed the newest workflow task of the set's operations (the
   * rollout under way). Visibility lags the histories a little: asked again until it lists them.
   */
  private static String lastWorkflowTaskBy(WorkflowClient client, String ns) {
    String prefix = "statefulset/" + ns + "/web/";
    for (int attempt = 0; attempt < 100; attempt++) {
      var newest = client.listExecutions("")
          .filter(e -> e.getExecution().getWorkflowId().startsWith(prefix))
          .flatMap(e -> client.fetchHistory(e.getExecution().getWorkflowId(), e.getExecution().getRunId()).getEvents().stream())
          .filter(event -> event.getEventType() == EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED)
          .max(Comparator.comparing(event -> event.getEventTime().getSeconds() * 1_000_000_000L + event.getEventTime().getNanos()))
          .map(event -> event.getWorkflowTaskCompletedEventAttributes().getIdentity());
      if (newest.isPresent()) {
        return newest.get();
      }
      Api.sleep(100);
    }
    throw new AssertionError("no workflow of " + prefix + " listed");
  }

  /** The messages of the cluster's events about the set's object. */
  private static JsonNode conditions(String ns) throws Exception {
    return json("-n", ns, "get", "osts", "web", "-o", "json").at("/status/conditions");
  }

  private static ObjectNode withoutClaims(ObjectNode set) {
    set.withArray("/spec/volumeClaimTemplates").removeAll();
    ((ObjectNode) set.at("/spec/template/spec/containers/0")).remove("volumeMounts");
    return set;
  }
}
