package io.ordinal.e2e;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.ordinal.store.KubeJson;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Side by side with upstream: the same 10-pod OrderedReady StatefulSet (minReadySeconds 0, no
 * claims), created and then rolled to a new image, once by upstream's StatefulSet controller
 * (kube-controller-manager on a real API server, with KWOK running the pods) and once by Ordinal
 * (sim driver), both driven by kubectl and timed the same way: by when kubectl's pod watch sees
 * each event arrive, since the API server's timestamps have whole seconds only.
 */
@E2eTest
@Tag("slow")
class UpstreamBenchmarkIT {
  private static final String IMAGE = "k8s.gcr.io/nginx-slim:0.9";
  static Api api;

  /** One run's figures, in ms. */
  record Timings(double creation, double stepMedian, double rollout) {}

  /** Who runs the set: through which kubectl, in which namespace, with which apiVersion and annotations. */
  private record Contender(String who, Kubectl kubectl, String namespace, String apiVersion, boolean sim) {}

  @Test
  void orderedScaleAndRollingUpdateThroughUpstreamAndThroughOrdinal(@Namespace String ns) throws Exception {
    int replicas = Bench.size(3, 10);
    Map<String, Bench.Figure> figures = new LinkedHashMap<>();
    Map<String, List<Double>> steps = new LinkedHashMap<>();
    List<String> contenders = List.of("upstream", "Ordinal, kubernetes driver", "Ordinal, sim driver");
    for (String who : contenders) {
      figures.put(who + " creation", new Bench.Figure(who + ": " + replicas + " pods created, apply → last pod Ready", "ms", ""));
      figures.put(who + " step", new Bench.Figure(who + ": step, pod i Ready → pod i+1 created (median of a run)", "ms", ""));
      figures.put(who + " rollout", new Bench.Figure(who + ": rolling update, new image → last new pod Ready", "ms", ""));
      steps.put(who, new ArrayList<>());
    }
    try (ControlPlane cluster = ControlPlane.start();
         OrdinalService inCluster = new OrdinalService("upstream-side-by-side", Map.of("ORDINAL_KUBERNETES_ENABLED", "true",
             "ORDINAL_KUBERNETES_KUBECONFIG", cluster.kubeconfig().toString()))) {
      inCluster.start();
      cluster.kubectl().run("wait", "--for=condition=Established", "--timeout=60s", "crd/statefulsets.apps.ordinal.io").ok();
      cluster.kubectl().run("create", "namespace", "ordinal").ok();
      List<Contender> runs = List.of(
          new Contender(contenders.get(0), cluster.kubectl(), "default", "apps/v1", false),
          new Contender(contenders.get(1), cluster.kubectl(), "ordinal", "apps.ordinal.io/v1", false),
          new Contender(contenders.get(2), new Kubectl(api.base(), api.caCertificate(), api.token(), ns), ns, "apps/v1", true));
      for (int run = 0; run < Bench.runs(3); run++) {
        for (Contender contender : runs) {
          Timings timings = timings(contender, "side-" + run, replicas, steps.get(contender.who()));
          figures.get(contender.who() + " creation").add(timings.creation());
          figures.get(contender.who() + " step").add(timings.stepMedian());
          figures.get(contender.who() + " rollout").add(timings.rollout());
        }
      }
    }
    new Bench.Report("upstream", "Side by side with upstream's StatefulSet controller")
        .text("""
            The same %d-pod StatefulSet (OrderedReady, minReadySeconds 0, no volumeClaimTemplates), created and
            then given a new image, through upstream's controller and through Ordinal, one after the other on the
            same machine. The cluster: kube-apiserver, kube-controller-manager and kube-scheduler v1.34.2 with
            etcd 3.5.1 and KWOK v0.7.0 running the pods (deploy/kube/control-plane.sh; the controller manager at
            upstream's default client rate limit, 20 requests/s, burst 30). Upstream runs an apps/v1 StatefulSet
            there; Ordinal with its kubernetes driver runs the same manifest as apps.ordinal.io/v1 on the same API
            server, its pods real pods that KWOK runs; Ordinal with its sim driver runs it on its own API with no
            cluster. All are driven by kubectl (the image changed by a JSON patch, as kubectl set image knows only
            built-in kinds) and timed by when kubectl's watch of the pods sees each event arrive (the API server's
            timestamps have whole seconds only). The kubernetes driver's step is its reaction latency: pod Ready
            in the API server → the next pod created there.""".formatted(replicas))
        .figures(List.copyOf(figures.values()))
        .latencies("Every step of every run (pod i Ready → pod i+1 created):", steps)
        .write();
  }

  /** Creates the set, then rolls it, through {@code kubectl}; the pods' events timed as the watch sees them. */
  private static Timings timings(Contender contender, String name, int replicas, List<Double> allSteps)
      throws Exception {
    Kubectl kubectl = contender.kubectl();
    String ns = contender.namespace();
    ObjectNode set = Manifests.web(name, replicas, 0, Map.of());
    set.put("apiVersion", contender.apiVersion());
    if (!contender.sim()) {
      ((ObjectNode) set.get("metadata")).remove("annotations");
    }
    ((ObjectNode) set.get("spec")).remove("volumeClaimTemplates");
    ((ObjectNode) set.at("/spec/template/spec/containers/0")).remove("volumeMounts");
    try (PodWatch watch = new PodWatch(kubectl, ns, name)) {
      long applied = System.nanoTime();
      kubectl.run(KubeJson.JSON.writeValueAsString(set), Map.of(), "-n", ns, "apply", "-f", "-").ok();
      Map<Integer, PodWatch.Seen> created = watch.awaitReady(replicas, Set.of());
      List<Double> runSteps = new ArrayList<>();
      for (int i = 1; i < replicas; i++) {
        runSteps.add((created.get(i).added() - created.get(i - 1).ready()) / 1e6);
      }
      allSteps.addAll(runSteps);
      long lastReady = created.values().stream().mapToLong(PodWatch.Seen::ready).max().orElseThrow();

      Set<String> before = watch.uids();
      long patched = System.nanoTime();
      kubectl.run("-n", ns, "patch", "statefulsets." + contender.apiVersion().replaceAll("/.*", "") + "/" + name,
          "--type=json", "-p", Manifests.imagePatch(IMAGE)).ok();
      long rolled = watch.awaitReady(replicas, before).values().stream().mapToLong(PodWatch.Seen::ready).max().orElseThrow();
      return new Timings((lastReady - applied) / 1e6, Latencies.at(Bench.sorted(runSteps), 0.5), (rolled - patched) / 1e6);
    }
  }
}
