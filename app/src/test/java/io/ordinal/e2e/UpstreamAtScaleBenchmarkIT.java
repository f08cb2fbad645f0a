package io.ordinal.e2e;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.ordinal.store.KubeJson;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Side by side with upstream at 100 replicas with claims, both pod management policies: upstream's
 * StatefulSet controller at its default client rate limit and unthrottled, Ordinal's kubernetes
 * driver on the same API server, and Ordinal's sim driver on its own API; each created, then rolled
 * to a new image, timed by when kubectl's pod watch sees each event, and set against upstream's
 * times in the same run.
 */
@E2eTest
@Tag("slow")
class UpstreamAtScaleBenchmarkIT {
  private static final String IMAGE = "k8s.gcr.io/nginx-slim:0.9";
  private static final Duration WAIT = Duration.ofMinutes(10);
  static Api api;

  /** Who runs the set, and with the cluster's controller manager at which client rate limit. */
  private enum Contender {
    UPSTREAM("upstream, 20 requests/s"),
    KUBERNETES("Ordinal, kubernetes driver, controller manager at 20 requests/s"),
    SIM("Ordinal, sim driver"),
    UNTHROTTLED("upstream, unthrottled"),
    KUBERNETES_UNTHROTTLED("Ordinal, kubernetes driver, controller manager unthrottled");

    final String label;

    Contender(String label) {
      this.label = label;
    }
  }

  /** The ratios reported: each contender's time over another's in the same run. */
  private static final List<List<Contender>> RATIOS = List.of(
      List.of(Contender.KUBERNETES, Contender.UPSTREAM), List.of(Contender.KUBERNETES_UNTHROTTLED, Contender.UNTHROTTLED),
      List.of(Contender.SIM, Contender.UPSTREAM), List.of(Contender.SIM, Contender.UNTHROTTLED),
      List.of(Contender.UNTHROTTLED, Contender.UPSTREAM));

  /** One run's figures, in ms, and its steps (pod i Ready → pod i+1 created; OrderedReady only). */
  private record Timings(double creation, double rollout, List<Double> steps) {}

  @Test
  void aHundredReplicasWithClaimsCreatedAndRolledByUpstreamAndByOrdinal(@Namespace String simNamespace) throws Exception {
    int replicas = Bench.size(3, 100);
    List<String> policies = List.of("OrderedReady", "Parallel");
    Map<String, Bench.Figure> figures = new LinkedHashMap<>();
    Map<String, List<Double>> steps = new LinkedHashMap<>();
    for (String policy : policies) {
      for (Contender who : Contender.values()) {
        figures.put(policy + who + "creation", new Bench.Figure(
            "%s, %s: %d pods created, apply → last Ready".formatted(policy, who.label, replicas), "ms", ""));
        figures.put(policy + who + "rollout", new Bench.Figure(
            "%s, %s: rolled, new image → last new pod Ready".formatted(policy, who.label), "ms", ""));
      }
    }
    for (String policy : policies) {
      for (List<Contender> ratio : RATIOS) {
        for (String phase : List.of("creation", "rollout")) {
          figures.put(policy + ratio + phase, new Bench.Figure("%s, %s ÷ %s, %s".formatted(policy, ratio.get(0).label,
              ratio.get(1).label, phase), "×", ""));
        }
      }
    }
    for (Contender who : Contender.values()) {
      steps.put(who.label, new ArrayList<>());
    }
    try (ControlPlane cluster = ControlPlane.start();
         OrdinalService inCluster = cluster.startOrdinal("upstream-at-scale")) {
      cluster.kubectl().run("create", "namespace", "ordinal").ok();
      Kubectl sim = new Kubectl(api.base(), api.caCertificate(), api.token(), simNamespace);
      for (int run = 0; run < Bench.runs(2); run++) {
        for (String policy : policies) {
          Map<Contender, Timings> byWho = new LinkedHashMap<>();
          Kubectl admin = cluster.kubectl();
          byWho.put(Contender.UPSTREAM, timings(cluster, admin, "default", "apps/v1", policy, name(policy, run, 0), replicas));
          byWho.put(Contender.KUBERNETES, timings(cluster, admin, "ordinal", "apps.ordinal.io/v1", policy,
              name(policy, run, 1), replicas));
          byWho.put(Contender.SIM, timings(null, sim, simNamespace, "apps/v1", policy, name(policy, run, 2), replicas));
          restartControllerManager(cluster, Map.of("KCP_KUBE_API_QPS", "100000", "KCP_KUBE_API_BURST", "100000"));
          byWho.put(Contender.UNTHROTTLED, timings(cluster, admin, "default", "apps/v1", policy, name(policy, run, 3), replicas));
          byWho.put(Contender.KUBERNETES_UNTHROTTLED, timings(cluster, admin, "ordinal", "apps.ordinal.io/v1", policy,
              name(policy, run, 4), replicas));
          restartControllerManager(cluster, Map.of());
          byWho.forEach((who, timings) -> {
            figures.get(policy + who + "creation").add(timings.creation());
            figures.get(policy + who + "rollout").add(timings.rollout());
            steps.get(who.label).addAll(timings.steps());
          });
          for (List<Contender> ratio : RATIOS) {
            figures.get(policy + ratio + "creation").add(byWho.get(ratio.get(0)).creation() / byWho.get(ratio.get(1)).creation());
            figures.get(policy + ratio + "rollout").add(byWho.get(ratio.get(0)).rollout() / byWho.get(ratio.get(1)).rollout());
          }
        }
      }
    }
    new Bench.Report("upstream-at-scale", "Side by side with upstream at %d replicas with claims".formatted(replicas))
        .text("""
            The docs' web StatefulSet at %d replicas with its volumeClaimTemplate (each claim bound to a
            PersistentVolume made for it beforehand), minReadySeconds 0, once OrderedReady and once Parallel, created
            and then given a new image (RollingUpdate, maxUnavailable 1), by five contenders in turn in each run:
            upstream's StatefulSet controller on an apps/v1 set, and Ordinal's kubernetes driver running the same
            manifest as apps.ordinal.io/v1 on the same API server, each with kube-controller-manager at its default
            client rate limit (20 requests/s, burst 30) and then unthrottled (100 000/s; the controller manager is
            restarted for it, and a claim bound before going on). The controller manager's volume binder binds
            Ordinal's claims too, at the same rate limit, and a pod is scheduled only once its claim is bound:
            at 20 requests/s that binder, not the StatefulSet controller, sets the pace of a creation. Last,
            Ordinal's sim driver on its own API with no cluster. The cluster: kube-apiserver,
            kube-controller-manager and kube-scheduler v1.34.2 with etcd 3.5.1 and KWOK v0.7.0 running the pods
            (deploy/kube/control-plane.sh). All are driven by kubectl and timed by when kubectl's watch of the
            pods sees each event arrive; a ratio is a contender's time over upstream's at 20 requests/s in the
            same run (below 1: faster than upstream).""".formatted(replicas))
        .figures(List.copyOf(figures.values()))
        .latencies("Every OrderedReady step of every run (pod i Ready → pod i+1 created, as kubectl's watch saw them):", steps)
        .write();
  }

  private static String name(String policy, int run, int contender) {
    return (policy.equals("Parallel") ? "par-" : "ord-") + run + "-" + contender;
  }

  /**
   * Restarts the controller manager with {@code settings}, then waits until its volume binder binds a
   * claim: without that, the first creation after a restart once took 321 s instead of 6 (its first pod,
   * its claim not bound yet, waited for the scheduler's retry of unschedulable pods, five minutes).
   */
  private static void restartControllerManager(ControlPlane cluster, Map<String, String> settings) throws Exception {
    cluster.restartControllerManager(settings);
    String probe = "binder-probe-" + System.nanoTime();
    cluster.persistentVolumes(probe, 1);
    ObjectNode claim = KubeJson.JSON.createObjectNode().put("apiVersion", "v1").put("kind", "PersistentVolumeClaim");
    claim.putObject("metadata").put("name", probe);
    ObjectNode spec = claim.putObject("spec").put("storageClassName", "standard");
    spec.putArray("accessModes").add("ReadWriteOnce");
    spec.putObject("resources").putObject("requests").put("storage", "1Gi");
    cluster.kubectl().run(KubeJson.write(claim), Map.of(), "-n", "default", "apply", "-f", "-").ok();
    cluster.kubectl().run("-n", "default", "wait", "--for=jsonpath={.status.phase}=Bound", "pvc/" + probe, "--timeout=90s").ok();
  }

  /**
   * Creates the set, then rolls it, through {@code kubectl} (in the cluster when {@code cluster} is not
   * null, with a PersistentVolume made for each claim first), then deletes it with its claims.
   */
  private static Timings timings(ControlPlane cluster, Kubectl kubectl, String ns, String apiVersion, String policy,
      String name, int replicas) throws Exception {
    ObjectNode set = Manifests.web(name, replicas, 0, Map.of());
    set.put("apiVersion", apiVersion);
    ((ObjectNode) set.get("spec")).put("podManagementPolicy", policy);
    if (cluster != null) {
      ((ObjectNode) set.get("metadata")).remove("annotations"); // the example names Ordinal's sim driver
      ((ObjectNode) set.at("/spec/volumeClaimTemplates/0/spec")).put("storageClassName", "standard");
      cluster.persistentVolumes(ns + "-" + name, replicas);
    }
    try (PodWatch watch = new PodWatch(kubectl, ns, name, WAIT)) {
      long applied = System.nanoTime();
      kubectl.run(KubeJson.write(set), Map.of(), "-n", ns, "apply", "-f", "-").ok();
      Map<Integer, PodWatch.Seen> created = watch.awaitReady(replicas, Set.of());
      List<Double> runSteps = new ArrayList<>();
      for (int i = 1; i < replicas && policy.equals("OrderedReady"); i++) {
        runSteps.add((created.get(i).added() - created.get(i - 1).ready()) / 1e6);
      }
      long lastReady = created.values().stream().mapToLong(PodWatch.Seen::ready).max().orElseThrow();

      Set<String> before = watch.uids();
      long patched = System.nanoTime();
      kubectl.run("-n", ns, "patch", "statefulsets." + apiVersion.replaceAll("/.*", "") + "/" + name,
          "--type=json", "-p", Manifests.imagePatch(IMAGE)).ok();
      long rolled = watch.awaitReady(replicas, before).values().stream().mapToLong(PodWatch.Seen::ready).max().orElseThrow();

      Set<String> last = watch.uids();
      kubectl.run("-n", ns, "delete", "statefulsets." + apiVersion.replaceAll("/.*", "") + "/" + name, "--wait=false").ok();
      watch.awaitDeleted(Set.copyOf(last.stream().filter(uid -> !before.contains(uid)).toList()));
      kubectl.run("-n", ns, "delete", "pvc", "-l", "app=" + name, "--wait=false").ok();
      return new Timings((lastReady - applied) / 1e6, (rolled - patched) / 1e6, runSteps);
    }
  }
}
