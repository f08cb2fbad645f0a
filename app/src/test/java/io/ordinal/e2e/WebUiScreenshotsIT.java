package io.ordinal.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.client.WorkflowExecutionMetadata;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The Temporal Web UI telling an operation's story, as headless Chromium renders it: a rollout, a
 * paused rollout and a forced rollback (an undo that replaces a pod stuck on a broken revision). The
 * rendered pages must show the steps' summaries and the operation's details; the README shows the
 * screenshots (docs/screenshots, see {@link #SCREENSHOTS}).
 */
class WebUiScreenshotsIT {
  /**
   * Where the screenshots go: target/screenshots, or the README's docs/screenshots when
   * {@code ORDINAL_SCREENSHOTS} names it (to refresh them: {@code ORDINAL_SCREENSHOTS=../docs/screenshots
   * ./ordinal mvn verify -pl app -am -Dit.test=WebUiScreenshotsIT -Dtest=NoSuchTest -Dsurefire.failIfNoSpecifiedTests=false}).
   */
  static final Path SCREENSHOTS = Path.of(System.getenv().getOrDefault("ORDINAL_SCREENSHOTS", "target/screenshots"))
      .toAbsolutePath().normalize();
  static final Duration TIMEOUT = Duration.ofSeconds(90);
  static final String NS = "shop";

  @Test
  void rolloutPausedRolloutAndForcedRollbackReadAsTheirStepsInTheWebUi() throws Exception {
    int uiPort = OrdinalService.freePort();
    try (OrdinalService service = new OrdinalService("web-ui", Map.of("ORDINAL_TEMPORAL_HEADLESS", "false",
        "ORDINAL_TEMPORAL_UI_PORT", Integer.toString(uiPort)))) {
      service.start();
      Api api = service.api();
      ObjectNode set = Manifests.web("web", 3, 1, Map.of());
      ((ObjectNode) set.at("/metadata/annotations")).put("ordinal.io/progress-deadline-seconds", "5");
      api.createSet(NS, set);
      String first = api.awaitConverged(NS, "web", 3, TIMEOUT).at("/status/currentRevision").asText();

      api.setImage(NS, "web", "registry.k8s.io/nginx-slim:0.9");
      String second = api.awaitRolledOut(NS, 3, first).at("/status/currentRevision").asText();
      String rollout = page(service, uiPort, "OrdinalOperation = 'rollout'");
      // The page shows the steps' summaries and what each wait was for.
      String html = shoot(rollout, "rollout.png", "create pod web-0 at revision " + second);
      assertTrue(html.contains("to be Ready for minReadySeconds=1"), "the rollout's waits have no summaries");

      api.setImage(NS, "web", "registry.k8s.io/nginx-slim:0.10");
      api.await(Paths.set(NS, "web") + "/status", TIMEOUT, r -> r.json().at("/status/updatedReplicas").asInt() >= 1);
      assertEquals(200, api.post(Paths.set(NS, "web") + "/rollout/pause", null, null).code());
      // Still running, its last timer says it waits for the rollout to be resumed, and before which pod.
      shoot(page(service, uiPort, "OrdinalOperation = 'rollout' AND ExecutionStatus = 'Running'"), "rollout-paused.png",
          "waiting for the rollout to be resumed (paused before updating web-");
      assertEquals(200, api.post(Paths.set(NS, "web") + "/rollout/resume", null, null).code());
      String third = api.awaitRolledOut(NS, 3, second).at("/status/currentRevision").asText();

      api.patchSet(NS, "web", """
          {"spec":{"template":{"spec":{"containers":[{"name":"nginx","image":"registry.k8s.io/nginx-slim:0.11",
            "env":[{"name":"SIM_NEVER_READY","value":"true"}]}]}}}}""");
      api.await(Paths.set(NS, "web") + "/rollout/status", TIMEOUT, r -> r.json().path("phase").asText().equals("Failed"));
      assertEquals(200, api.post(Paths.set(NS, "web") + "/rollout/undo", null, null).code());
      JsonNode back = api.awaitConverged(NS, "web", 3, TIMEOUT);
      assertEquals(third, back.at("/status/currentRevision").asText());
      // The broken web-2 is replaced by the rollback itself, nobody deleted it by hand.
      shoot(page(service, uiPort, "OrdinalOperation = 'rollback'"), "forced-rollback.png", "delete pod web-2: not ready and not on the target revision");
    }
  }

  /** The Web UI's page (its history) of the set's latest operation that {@code query} finds. */
  private static String page(OrdinalService service, int uiPort, String query) {
    Instant deadline = Instant.now().plus(TIMEOUT);
    while (true) {
      List<WorkflowExecutionMetadata> runs = service.withTemporal(client ->
          client.listExecutions("OrdinalStatefulSet = 'web' AND " + query).toList());
      if (!runs.isEmpty()) {
        WorkflowExecution run = runs.stream().max(Comparator.comparing(WorkflowExecutionMetadata::getStartTime))
            .orElseThrow().getExecution();
        return "http://localhost:" + uiPort + "/namespaces/default/workflows/"
            + URLEncoder.encode(run.getWorkflowId(), StandardCharsets.UTF_8) + "/" + run.getRunId() + "/history";
      }
      assertTrue(Instant.now().isBefore(deadline), "no workflow listed for " + query);
      Api.sleep(500);
    }
  }

  static final Path SCRIPT = Path.of("src", "test", "node", "screenshot.js").toAbsolutePath();

  /** Saves a screenshot of {@code url} as {@code file}, once its text holds {@code text}, and returns its HTML. */
  private static String shoot(String url, String file, String text) throws Exception {
    Files.createDirectories(SCREENSHOTS);
    Path png = SCREENSHOTS.resolve(file);
    String html = render(url, png.toString(), text);
    assertTrue(Files.size(png) > 20_000, png + " is too small to be the page");
    return html;
  }

  /**
   * Headless Chromium through puppeteer-core (src/test/node/screenshot.js; ./ordinal test installs both),
   * with the script's {@code options} ({@code --code-end}).
   */
  static String render(String url, String png, String text, String... options) throws Exception {
    String modules = System.getenv("ORDINAL_NODE_PATH");
    if (modules == null || modules.isBlank()) {
      throw new IllegalStateException("ORDINAL_NODE_PATH is not set: run the tests through ./ordinal test, which installs puppeteer-core");
    }
    Command.Result render = Command.run(Duration.ofSeconds(120), Map.of("NODE_PATH", modules), null, null,
        Stream.concat(Stream.of("node", SCRIPT.toString(), url, png, text), Stream.of(options)).toList());
    assertEquals(0, render.code(), "no \"" + text + "\" on " + url + "\n" + render.err());
    return render.out();
  }
}
