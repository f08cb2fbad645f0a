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

  /** Who runs the set, and how the cluster's controller manager must be set for it (null: the sim, no cluster). */
  private enum Contender {
    UPSTREAM("upstream, 20 requests/s"), UNTHROTTLED("upstream, unthrottled"),
    KUBERNETES("Ordinal, kubernetes driver"), SIM("Ordinal, sim driver");

    final String label;

    Contender(String label) {
      this.label = label;
    }
  }

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
      for (Contender who : List.of(Contender.UNTHROTTLED, Contender.KUBERNETES, Contender.SIM)) {
        for (String phase : List.of("creation", "rollout")) {
          figures.put(policy + who + phase + "ratio", new Bench.Figure(
              "%s, %s ÷ upstream at 20 requests/s, %s".formatted(policy, who.label, phase), "×", ""));
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
          // Ordinal's turns first, beside upstream's controller manager at its defaults as a user has it.
          byWho.put(Contender.UPSTREAM, timings(cluster, cluster.kubectl(), "default", "apps/v1", policy, run, replicas));
          byWho.put(Contender.KUBERNETES, timings(cluster, cluster.kubectl(), "ordinal", "apps.ordinal.io/v1", policy, run, replicas));
          byWho.put(Contender.SIM, timings(null, sim, simNamespace, "apps/v1", policy, run, replicas));
          cluster.restartControllerManager(Map.of("KCP_KUBE_API_QPS", "100000", "KCP_KUBE_API_BURST", "100000"));
          byWho.put(Contender.UNTHROTTLED, timings(cluster, cluster.kubectl(), "default", "apps/v1", policy, run + 100, replicas));
          cluster.restartControllerManager(Map.of());
          Timings upstream = byWho.get(Contender.UPSTREAM);
          byWho.forEach((who, timings) -> {
            figures.get(policy + who + "creation").add(timings.creation());
            figures.get(policy + who + "rollout").add(timings.rollout());
            steps.get(who.label).addAll(timings.steps());
            if (who != Contender.UPSTREAM) {
              figures.get(policy + who + "creation" + "ratio").add(timings.creation() / upstream.creation());
              figures.get(policy + who + "rollout" + "ratio").add(timings.rollout() / upstream.rollout());
            }
          });
        }
      }
    }
    new Bench.Report("upstream-at-scale", "Side by side with upstream at %d replicas with claims".formatted(replicas))
        .text("""
            The docs' web StatefulSet at %d replicas with its volumeClaimTemplate (each claim bound to a
            PersistentVolume made for it beforehand), minReadySeconds 0, once OrderedReady and once Parallel, created
            and then given a new image (RollingUpdate, maxUnavailable 1), by four contenders in turn in each run:
            upstream's StatefulSet controller with kube-controller-manager at its default client rate limit (20
            requests/s, burst 30) and then unthrottled (100 000/s; the controller manager is restarted for it), both
            on an apps/v1 set; Ordinal's kubernetes driver running the same manifest as apps.ordinal.io/v1 on the same
            API server, beside the controller manager at its defaults (its volume binder binds Ordinal's claims too);
            and Ordinal's sim driver on its own API with no cluster. The cluster: kube-apiserver,
            kube-controller-manager and kube-scheduler v1.34.2 with etcd 3.5.1 and KWOK v0.7.0 running the pods
            (deploy/kube/control-plane.sh). All are driven by kubectl and timed by when kubectl's watch of the
            pods sees each event arrive; a ratio is a contender's time over upstream's at 20 requests/s in the
            same run (below 1: faster than upstream).""".formatted(replicas))
        .figures(List.copyOf(figures.values()))
        .latencies("Every OrderedReady step of every run (pod i Ready → pod i+1 created, as kubectl's watch saw them):", steps)
        .write();
  }

  /**
   * Creates the set, then rolls it, through {@code kubectl} (in the cluster when {@code cluster} is not
   * null, with a PersistentVolume made for each claim first), then deletes it with its claims.
   */
  private static Timings timings(ControlPlane cluster, Kubectl kubectl, String ns, String apiVersion, String policy,
      int run, int replicas) throws Exception {
    String name = (policy.equals("Parallel") ? "par-" : "ord-") + run;
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
