package io.ordinal.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.ordinal.store.KubeJson;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Helm 3 and Helm 4, built by {@code ./ordinal test} from the Go module proxy, at their default
 * settings (releases kept in Secrets, which client-go's typed client writes and deletes as protobuf;
 * Helm 4 applies server-side), drive the example chart (deploy/examples/helm/web: a headless Service, a
 * ConfigMap, a Secret and a StatefulSet of local pods that read both) through install, upgrade,
 * history, rollback and uninstall. Each {@code --wait} is checked by what it promised: when Helm
 * returns, every pod already runs the release's revision and is Ready.
 */
@E2eTest
class HelmIT {
  static Api api;

  private static final Path CHART = Path.of("..", "deploy", "examples", "helm", "web").toAbsolutePath().normalize();

  @Test
  void helm3InstallsUpgradesRollsBackAndUninstallsAChart(@Namespace String ns) throws Exception {
    lifecycle(new Helm(binary("ORDINAL_HELM3"), ns), ns, "Update");
  }

  @Test
  void helm4InstallsUpgradesRollsBackAndUninstallsAChartWithServerSideApply(@Namespace String ns) throws Exception {
    lifecycle(new Helm(binary("ORDINAL_HELM4"), ns), ns, "Apply");
  }

  private static void lifecycle(Helm helm, String ns, String writeOperation) throws Exception {
    String password = "pw-" + ns;
    helm.run("install", "web", CHART.toString(), "--wait", "--timeout", "3m", "--set", "driver=local",
        "--set", "password=" + password);
    String installed = rolledOut(ns, "hello");
    JsonNode release = api.get(Paths.core(ns, "secrets") + "/sh.helm.release.v1.web.v1").json();
    assertEquals("helm.sh/release.v1", release.path("type").asText(), release.toString());
    assertEquals("deployed", release.at("/metadata/labels/status").asText(), release.toString());
    JsonNode config = api.get(Paths.core(ns, "configmaps") + "/web-config").json();
    assertEquals("Helm", config.at("/metadata/labels/app.kubernetes.io~1managed-by").asText(), config.toString());
    boolean helmWrote = false;
    for (JsonNode entry : config.at("/metadata/managedFields")) {
      helmWrote |= entry.path("manager").asText().equals("helm") && entry.path("operation").asText().equals(writeOperation);
    }
    assertTrue(helmWrote, "helm's " + writeOperation + " is in the managed fields: " + config);
    JsonNode endpoints = api.get(Paths.core(ns, "endpoints") + "/web").json();
    assertEquals(2, endpoints.at("/subsets/0/addresses").size(), "the Service's selector finds both pods: " + endpoints);

    // An upgrade that changes a setting is a rolling update of the set, finished when --wait returns.
    helm.run("upgrade", "web", CHART.toString(), "--wait", "--timeout", "3m", "--reuse-values", "--set", "greeting=bonjour");
    String upgraded = rolledOut(ns, "bonjour");
    assertNotEquals(installed, upgraded);
    assertEquals(List.of("1 superseded", "2 deployed"), history(helm));

    // A rollback returns to the first revision's template, so to its controller revision.
    helm.run("rollback", "web", "1", "--wait", "--timeout", "3m");
    assertEquals(installed, rolledOut(ns, "hello"));
    assertEquals(List.of("1 superseded", "2 superseded", "3 deployed"), history(helm));

    helm.run("uninstall", "web", "--wait", "--timeout", "3m");
    for (String path : List.of(Paths.set(ns, "web"), Paths.core(ns, "services") + "/web",
        Paths.core(ns, "configmaps") + "/web-config", Paths.core(ns, "secrets") + "/web-password")) {
      assertEquals(404, api.get(path).code(), path + " is gone with the release");
    }
    assertEquals(0, api.get(Paths.core(ns, "secrets") + "?labelSelector=owner%3Dhelm").json().path("items").size(),
        "the release's history is gone");
    assertEquals("[]", helm.run("list", "-o", "json").strip());
  }

  /**
   * Asserted at once, without waiting: the set's rollout is complete, every pod runs its update
   * revision, is Ready and has greeted with {@code greeting}. Returns that revision.
   */
  private static String rolledOut(String ns, String greeting) {
    JsonNode set = api.set(ns, "web");
    JsonNode status = set.path("status");
    String revision = status.path("updateRevision").asText();
    assertEquals(set.at("/metadata/generation").asLong(), status.path("observedGeneration").asLong(), set.toString());
    assertEquals(revision, status.path("currentRevision").asText(), set.toString());
    assertEquals(2, status.path("readyReplicas").asInt(), set.toString());
    assertEquals(2, status.path("updatedReplicas").asInt(), set.toString());
    for (String name : List.of("web-0", "web-1")) {
      JsonNode pod = api.pod(ns, name);
      assertEquals(revision, pod.at("/metadata/labels/controller-revision-hash").asText(), pod.toString());
      assertTrue(pod.at("/status/containerStatuses/0/ready").asBoolean(), pod.toString());
      String log = api.get(Paths.pod(ns, name) + "/log").body();
      for (int attempt = 0; attempt < 40 && !log.contains(" from "); attempt++) {
        Api.sleep(250); // the log is written by the container; Ready says only that its probe passed
        log = api.get(Paths.pod(ns, name) + "/log").body();
      }
      assertTrue(log.contains(greeting + " from " + name + ", password of " + ("pw-" + ns).length() + " characters"), log);
    }
    return revision;
  }

  private static List<String> history(Helm helm) throws Exception {
    List<String> revisions = new ArrayList<>();
    for (JsonNode entry : KubeJson.read(helm.run("history", "web", "-o", "json"), JsonNode.class)) {
      revisions.add(entry.path("revision").asInt() + " " + entry.path("status").asText());
    }
    return revisions;
  }

  private static Path binary(String variable) {
    String path = System.getenv(variable);
    assertTrue(path != null && Files.isExecutable(Path.of(path)), variable + " names Helm; ./ordinal test builds it: " + path);
    return Path.of(path);
  }

  /** A Helm binary with a home of its own and the test's kubeconfig and namespace. */
  private record Helm(Path binary, String namespace, Path home, Path kubeconfig) {
    Helm(Path binary, String namespace) throws IOException {
      this(binary, namespace, Files.createTempDirectory("helm-home"),
          new Kubectl(api.base(), api.caCertificate(), api.token(), namespace).kubeconfig());
    }

    /** Runs helm, asserting it exits 0; returns its standard output. */
    String run(String... args) throws Exception {
      List<String> command = new ArrayList<>(List.of(binary.toString(), "--kubeconfig", kubeconfig.toString(),
          "--namespace", namespace));
      command.addAll(List.of(args));
      Command.Result result = Command.run(Duration.ofMinutes(4), Map.of("HOME", home.toString(),
          "HELM_CACHE_HOME", home.resolve("cache").toString(), "HELM_CONFIG_HOME", home.resolve("config").toString(),
          "HELM_DATA_HOME", home.resolve("data").toString()), null, null, command);
      assertEquals(0, result.code(), String.join(" ", args) + "\n" + result.output());
      return result.out();
    }
  }
}
