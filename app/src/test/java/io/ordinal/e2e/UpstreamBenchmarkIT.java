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

  @Test
  void orderedScaleAndRollingUpdateThroughUpstreamAndThroughOrdinal(@Namespace String ns) throws Exception {
    int replicas = Bench.size(3, 10);
    Map<String, Bench.Figure> figures = new LinkedHashMap<>();
    Map<String, List<Double>> steps = new LinkedHashMap<>();
    for (String who : List.of("upstream", "Ordinal")) {
      figures.put(who + " creation", new Bench.Figure(who + ": " + replicas + " pods created, apply → last pod Ready", "ms", ""));
      figures.put(who + " step", new Bench.Figure(who + ": step, pod i Ready → pod i+1 created (median of a run)", "ms", ""));
      figures.put(who + " rollout", new Bench.Figure(who + ": rolling update, set image → last new pod Ready", "ms", ""));
      steps.put(who, new ArrayList<>());
    }
    try (ControlPlane cluster = ControlPlane.start()) {
      Map<String, Kubectl> clients = Map.of("upstream", cluster.kubectl(),
          "Ordinal", new Kubectl(api.base(), api.caCertificate(), api.token(), ns));
      Map<String, String> namespaces = Map.of("upstream", "default", "Ordinal", ns);
      for (int run = 0; run < Bench.runs(3); run++) {
        for (String who : List.of("upstream", "Ordinal")) {
          Timings timings = timings(clients.get(who), namespaces.get(who), "side-" + run, replicas, steps.get(who));
          figures.get(who + " creation").add(timings.creation());
          figures.get(who + " step").add(timings.stepMedian());
          figures.get(who + " rollout").add(timings.rollout());
        }
      }
    }
    new Bench.Report("upstream", "Side by side with upstream's StatefulSet controller")
        .text("""
            The same %d-pod StatefulSet (OrderedReady, minReadySeconds 0, no volumeClaimTemplates), created and
            then given a new image, through upstream's controller and through Ordinal, one after the other on the
            same machine. Upstream: kube-apiserver, kube-controller-manager and kube-scheduler v1.34.2 with etcd
            3.5.1 and KWOK v0.7.0 running the pods (deploy/kube/control-plane.sh; the controller manager at
            upstream's default client rate limit, 20 requests/s, burst 30). Ordinal: the service with its sim
            driver. Both are driven by kubectl and timed by when kubectl's watch of the pods sees each event
            arrive (the API server's timestamps have whole seconds only).""".formatted(replicas))
        .figures(List.copyOf(figures.values()))
        .latencies("Every step of every run (pod i Ready → pod i+1 created):", steps)
        .write();
  }

  /** Creates the set, then rolls it, through {@code kubectl}; the pods' events timed as the watch sees them. */
  private static Timings timings(Kubectl kubectl, String ns, String name, int replicas, List<Double> allSteps)
      throws Exception {
    ObjectNode set = Manifests.web(name, replicas, 0, Map.of());
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
      kubectl.run("-n", ns, "set", "image", "statefulset/" + name, "nginx=" + IMAGE).ok();
      long rolled = watch.awaitReady(replicas, before).values().stream().mapToLong(PodWatch.Seen::ready).max().orElseThrow();
      return new Timings((lastReady - applied) / 1e6, Latencies.at(Bench.sorted(runSteps), 0.5), (rolled - patched) / 1e6);
    }
  }
}
