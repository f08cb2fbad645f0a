package io.ordinal.e2e;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.ordinal.store.KubeJson;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * A real Kubernetes control plane (kube-apiserver, kube-controller-manager with upstream's
 * StatefulSet controller, kube-scheduler, etcd, KWOK faking a node and its pods) on free ports, run
 * by {@code deploy/kube/control-plane.sh} from the binaries the launcher built into its cache.
 */
final class ControlPlane implements AutoCloseable {
  static final Path SCRIPT = Path.of("..", "deploy", "kube", "control-plane.sh").toAbsolutePath().normalize();
  private final Path dir;
  private final Kubectl kubectl;

  private ControlPlane(Path dir, Kubectl kubectl) {
    this.dir = dir;
    this.kubectl = kubectl;
  }

  /** The script's settings of the components' ports (each left unset is picked by the script itself). */
  private static final List<String> PORTS = List.of("KCP_ETCD_PORT", "KCP_ETCD_PEER_PORT", "KCP_APISERVER_PORT",
      "KCP_CM_PORT", "KCP_SCHED_PORT", "KCP_KWOK_PORT");

  static ControlPlane start() throws IOException, InterruptedException {
    Path dir = Files.createTempDirectory("control-plane");
    // The ports come from OrdinalService.freePort, as every other port of the suite: test classes run
    // concurrently, and a port the script picked could be one a service of another class has been
    // given and has not bound yet (both pick at random in 20000-32767).
    Map<String, String> ports = new LinkedHashMap<>();
    for (String setting : PORTS) {
      ports.put(setting, Integer.toString(OrdinalService.freePort()));
    }
    run(ports, "start", dir.toString());
    return new ControlPlane(dir, new Kubectl(Files.readString(dir.resolve("kubeconfig"))));
  }

  /** The admin's kubeconfig. */
  Path kubeconfig() {
    return dir.resolve("kubeconfig");
  }

  /** A PersistentVolume of {@code size} in StorageClass standard, for a claim to bind to. */
  void persistentVolume(String name, String size) throws IOException, InterruptedException {
    run("pv", dir.toString(), name, size);
  }

  /**
   * {@code count} PersistentVolumes of 1Gi in StorageClass standard, {@code prefix}-0.., labelled
   * {@code pv-group=<prefix>}, made in one request and Available when this returns.
   */
  void persistentVolumes(String prefix, int count) throws IOException, InterruptedException {
    ObjectNode list = KubeJson.JSON.createObjectNode().put("apiVersion", "v1").put("kind", "List");
    for (int i = 0; i < count; i++) {
      ObjectNode pv = list.withArray("items").addObject().put("apiVersion", "v1").put("kind", "PersistentVolume");
      pv.putObject("metadata").put("name", prefix + "-" + i).putObject("labels").put("pv-group", prefix);
      ObjectNode spec = pv.putObject("spec").put("persistentVolumeReclaimPolicy", "Retain").put("storageClassName", "standard");
      spec.putObject("capacity").put("storage", "1Gi");
      spec.putArray("accessModes").add("ReadWriteOnce");
      spec.putObject("hostPath").put("path", dir.resolve("pv").resolve(prefix + "-" + i).toString());
    }
    kubectl.run(KubeJson.write(list), Map.of(), "apply", "-f", "-").ok();
    kubectl.run("wait", "--for=jsonpath={.status.phase}=Available", "pv", "-l", "pv-group=" + prefix, "--timeout=90s").ok();
  }

  /**
   * The docs' web set as apps/v1 (its claims www-web-N bound to PersistentVolumes made for them, two
   * to spare), applied in namespace {@code ns} (made first if {@code createNamespace}) with {@code
   * edit} done to it, and current ({@code kubectl rollout status}, under whichever controller runs it).
   */
  void applyWeb(String ns, int replicas, boolean createNamespace, Consumer<ObjectNode> edit) throws Exception {
    if (createNamespace) {
      kubectl.run("create", "namespace", ns).ok();
      for (int i = 0; i < replicas + 2; i++) {
        persistentVolume(ns + "-www-" + i, "1Gi");
      }
      // Claims made before their volumes are Available bind only at the binder's next pass; a pod
      // the scheduler found with an unbound claim then once waited minutes for its next attempt.
      for (int i = 0; i < replicas + 2; i++) {
        kubectl.run("wait", "--for=jsonpath={.status.phase}=Available", "pv/" + ns + "-www-" + i, "--timeout=60s").ok();
      }
    }
    ObjectNode set = Manifests.web("web", replicas, 0, Map.of());
    ((ObjectNode) set.get("metadata")).remove("annotations"); // the example names Ordinal's sim driver
    ((ObjectNode) set.at("/spec/volumeClaimTemplates/0/spec")).put("storageClassName", "standard");
    edit.accept(set);
    kubectl.run(KubeJson.write(set), Map.of(), "-n", ns, "apply", "-f", "-").ok();
    kubectl.run("-n", ns, "rollout", "status", "statefulset/web", "--timeout=120s").ok();
  }

  /** The uids of a namespace's objects of {@code resource}, by name. */
  Map<String, String> uids(String ns, String resource) throws IOException {
    Map<String, String> uids = new TreeMap<>();
    KubeJson.JSON.readTree(kubectl.run("-n", ns, "get", resource, "-o", "json").ok().out()).path("items")
        .forEach(item -> uids.put(item.at("/metadata/name").asText(), item.at("/metadata/uid").asText()));
    return uids;
  }

  /** SIGKILL to one component ({@code etcd}, {@code kube-apiserver}, ...), as a crash. */
  void kill(String component) throws IOException, InterruptedException {
    run("kill", dir.toString(), component);
  }

  /** Starts a killed etcd or kube-apiserver again, on its ports, with its state; returns once it answers. */
  void restart(String component) throws IOException, InterruptedException {
    run("restart", dir.toString(), component);
  }

  /**
   * Kills kube-controller-manager and starts it again with {@code controllers} added to its
   * {@code --controllers} (e.g. {@code -statefulset-controller}: a cluster whose StatefulSets another
   * controller runs; empty: every default controller again).
   */
  void restartControllerManager(String controllers) throws IOException, InterruptedException {
    restartControllerManager(Map.of("KCP_CONTROLLERS", controllers));
  }

  /**
   * Kills kube-controller-manager and starts it again with the script's {@code settings} (e.g.
   * {@code KCP_KUBE_API_QPS}; those not given take the script's defaults).
   */
  void restartControllerManager(Map<String, String> settings) throws IOException, InterruptedException {
    kill("kube-controller-manager");
    run(settings, "restart", dir.toString(), "kube-controller-manager");
  }

  /**
   * A service of its own that runs this cluster's {@code apps.ordinal.io} StatefulSets (the front door,
   * the kubernetes driver), started, with the CustomResourceDefinition it installs established.
   */
  OrdinalService startOrdinal(String name) throws Exception {
    return startOrdinal(name, Map.of());
  }

  /** The same, with more settings. */
  OrdinalService startOrdinal(String name, Map<String, String> settings) throws Exception {
    Map<String, String> env = new LinkedHashMap<>(settings);
    env.put("ORDINAL_KUBERNETES_ENABLED", "true");
    env.put("ORDINAL_KUBERNETES_KUBECONFIG", kubeconfig().toString());
    OrdinalService ordinal = new OrdinalService(name, env);
    ordinal.start();
    kubectl.run("wait", "--for=condition=Established", "--timeout=60s", "crd/statefulsets.apps.ordinal.io").ok();
    return ordinal;
  }

  /** kubectl as the cluster's admin. */
  Kubectl kubectl() {
    return kubectl;
  }

  @Override
  public void close() throws IOException, InterruptedException {
    run("stop", dir.toString());
    // etcd's data (its WAL alone preallocates over 60 MB) goes; the components' logs stay for a look.
    if (Files.exists(dir.resolve("etcd"))) {
      try (Stream<Path> files = Files.walk(dir.resolve("etcd"))) {
        files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
      }
    }
  }

  private static void run(String... args) throws IOException, InterruptedException {
    run(Map.of(), args);
  }

  private static void run(Map<String, String> env, String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of(SCRIPT.toString()));
    command.addAll(List.of(args));
    // The components it launches write to logs of their own, so its output closes when it exits.
    Command.Result result = Command.run(Duration.ofMinutes(3), env, null, null, command);
    if (result.code() != 0) {
      throw new IllegalStateException("control-plane.sh " + String.join(" ", args) + " exited " + result.code()
          + ":\n" + result.output());
    }
  }
}
