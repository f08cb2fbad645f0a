package io.ordinal.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.ordinal.store.KubeJson;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Benchmark, not a timed assertion: on the local driver, how long after its process starts is a
 * pod seen as Ready, for a readiness probe period of 1 s and 2 s? The process (python's http.server)
 * listens within ~0.1 s, so the figure is mostly the probe schedule. Writes
 * {@code app/target/benchmarks/local-readiness.md}.
 */
@E2eTest
@Tag("slow")
class LocalReadinessBenchmarkIT {
  static final int PODS = 5;
  static Api api;

  @Test
  void processStartToReady() throws Exception {
    String report = """
        # Local driver: process start -> pod Ready (httpGet readiness probe, %d pods each)

        | periodSeconds | p50 ms | max ms |
        |---|---|---|
        | 1 | %s |
        | 2 | %s |

        Reproduce: `./ordinal mvn verify -pl app -am -Dit.test=LocalReadinessBenchmarkIT -Dsurefire.skip=true`
        """.formatted(PODS, row(measure("bench-local-1", 1)), row(measure("bench-local-2", 2)));
    Path out = Path.of("target", "benchmarks", "local-readiness.md");
    Files.createDirectories(out.getParent());
    Files.writeString(out, report);
    System.out.println(report);
  }

  private List<Long> measure(String ns, int period) throws Exception {
    ObjectNode set = Manifests.httpSet("bench", PODS);
    ((ObjectNode) set.at("/spec/template/spec/containers/0/readinessProbe")).put("periodSeconds", period);
    // As the manifest, without its 1 s head start: the server listens as soon as python is up.
    ((ArrayNode) set.at("/spec/template/spec/containers/0/command")).set(2,
        KubeJson.JSON.getNodeFactory().textNode("echo $(POD_NAME) > /data/whoami; cd /data && exec python3 -m http.server 8080 --bind $(POD_IP)"));
    api.createSet(ns, set);
    api.awaitConverged(ns, "bench", PODS, Duration.ofSeconds(120));
    List<Long> samples = new ArrayList<>();
    for (int i = 0; i < PODS; i++) {
      JsonNode pod = api.pod(ns, "bench-" + i);
      samples.add(Pods.readySince(pod) - Pods.started(pod));
    }
    api.deleteInForeground(Paths.set(ns, "bench"));
    api.await(Paths.set(ns, "bench"), Duration.ofSeconds(60), r -> r.code() == 404);
    return samples;
  }

  private static String row(List<Long> samples) {
    List<Long> sorted = new ArrayList<>(samples);
    Collections.sort(sorted);
    return sorted.get(sorted.size() / 2) + " | " + sorted.getLast();
  }
}
