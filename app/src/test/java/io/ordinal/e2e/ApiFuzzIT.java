package io.ordinal.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.ordinal.store.KubeJson;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * schemathesis fuzzes every operation the service documents against a real service: the resources
 * as {@code /openapi/v3} describes them (what kubectl and generated clients read), and the other
 * routes (subresource verbs, tokens, reviews, health) as {@code /openapi.yaml} does. No response may
 * be a 5xx and every documented response must match its schema. CI runs a short pass
 * ({@code ordinal.fuzz.examples} per operation, default 40); the figures go to
 * {@code app/target/benchmarks/api-fuzz.md}. The service runs the sim driver by default, so that
 * no fuzzed manifest starts a real process.
 */
@Tag("slow")
class ApiFuzzIT {
  static final int EXAMPLES = Integer.getInteger("ordinal.fuzz.examples", 40);
  static final String SEED = System.getProperty("ordinal.fuzz.seed", "20261122");
  /** CI: examples and random fuzzing; the long run adds the coverage and stateful phases. */
  static final String PHASES = System.getProperty("ordinal.fuzz.phases", "examples,fuzzing");
  /** The resources' documents (one per group version, as kubectl reads them), then the other routes'. */
  static final List<String> SCHEMAS = List.of("/openapi/v3/api/v1", "/openapi/v3/apis/apps/v1",
      "/openapi/v3/apis/rbac.authorization.k8s.io/v1", "/openapi/v3/apis/discovery.k8s.io/v1", "/openapi.yaml");

  @Test
  void fuzzedRequestsGetNoServerErrorAndMatchTheDocumentedSchemas() throws Exception {
    String schemathesis = System.getenv().getOrDefault("ORDINAL_SCHEMATHESIS", "../.tools/venv/bin/schemathesis");
    assertTrue(Files.isExecutable(Path.of(schemathesis)), "schemathesis is installed by ./ordinal test: " + schemathesis);
    try (OrdinalService service = new OrdinalService("fuzz", Map.of("ORDINAL_DRIVER", "sim"))) {
      service.start();
      Path dir = Files.createDirectories(Path.of("target", "benchmarks").toAbsolutePath());
      Path output = dir.resolve("api-fuzz.log");
      String base = service.url();
      Instant start = Instant.now();
      Files.deleteIfExists(output);
      // A list with watch=true streams until its timeout: schemathesis would wait on each for its read timeout.
      Path config = Files.writeString(dir.resolve("schemathesis.toml"), "[parameters]\n\"query.watch\" = \"false\"\n");
      List<Path> hars = new ArrayList<>();
      boolean finished = true;
      int exitCode = 0;
      for (String schema : SCHEMAS) {
        String name = schema.equals("/openapi.yaml") ? "routes" : schema.substring(schema.lastIndexOf("/v3/") + 4).replace('/', '-');
        Path har = dir.resolve("api-fuzz-" + name + ".har");
        hars.add(har);
        Path part = dir.resolve("api-fuzz-" + name + ".log");
        Process fuzz = new ProcessBuilder(schemathesis, "--config-file", config.toString(), "run", base + schema, "--url", base,
            "--header", "Authorization: Bearer " + service.adminToken(), "--tls-verify", service.caCertificate().toString(),
            "--checks", "not_a_server_error,response_schema_conformance",
            "--max-examples", Integer.toString(EXAMPLES), "--seed", SEED, "--workers", "2", "--phases", PHASES,
            "--suppress-health-check", "all", "--generation-database", "none",
            "--report", "junit,har", "--report-junit-path", dir.resolve("api-fuzz-" + name + "-junit.xml").toString(),
            "--report-har-path", har.toString())
            .redirectErrorStream(true).redirectOutput(part.toFile())
            .start();
        boolean done = fuzz.waitFor(10, TimeUnit.MINUTES);
        if (!done) {
          fuzz.descendants().forEach(ProcessHandle::destroyForcibly);
          fuzz.destroyForcibly();
        }
        Files.writeString(output, "### " + schema + "\n" + Files.readString(part), StandardOpenOption.CREATE,
            StandardOpenOption.APPEND);
        finished &= done;
        if (done && fuzz.exitValue() != 0 && exitCode == 0) {
          exitCode = fuzz.exitValue();
        }
      }
      String log = Files.readString(output);
      Duration took = Duration.between(start, Instant.now());
      String cases = String.join("; ", findAll(log, "Test cases:\\s*([^\\n]*)"));
      String report = """
          # API fuzzing (schemathesis, phases %s, %s examples per operation, seed %s)

          - test cases: %s
          - checks: not_a_server_error, response_schema_conformance; exit code %s; %.0f s
          - log: app/target/benchmarks/api-fuzz.log, JUnit: api-fuzz-*-junit.xml

          Reproduce: `./ordinal mvn verify -pl app -am -Dsurefire.skip=true -Dit.test=ApiFuzzIT \
          -Dordinal.fuzz.phases=examples,coverage,fuzzing,stateful -Dordinal.fuzz.examples=50`
          """.formatted(PHASES, EXAMPLES, SEED, cases, finished ? exitCode : "timeout", took.toMillis() / 1000.0);
      Files.writeString(dir.resolve("api-fuzz.md"), report);
      System.out.println(report);
      assertTrue(finished, "schemathesis did not finish:\n" + tail(log));
      assertEquals(0, exitCode, "schemathesis found failures:\n" + tail(log));
      assertEveryFuzzedWriteIsAuditedOnce(service, hars);
    }
  }

  /**
   * Audit completeness: every write schemathesis sent that succeeded (from its HAR report, by the
   * response's Audit-Id) is exactly one event in this service's audit log, and the log has no
   * successful write beyond them (nothing else writes to this service).
   */
  static void assertEveryFuzzedWriteIsAuditedOnce(OrdinalService service, List<Path> hars) throws Exception {
    List<String> sent = new ArrayList<>();
    int requests = 0;
    List<JsonNode> entries = new ArrayList<>();
    for (Path har : hars) {
      KubeJson.JSON.readTree(har.toFile()).at("/log/entries").forEach(entries::add);
    }
    for (JsonNode entry : entries) {
      requests++;
      URI url = URI.create(entry.at("/request/url").asText());
      var request = new AuditTrail.Sent(entry.at("/request/method").asText(), url.getRawPath(),
          entry.at("/response/status").asInt(), null);
      if (request.successfulWrite()) {
        String id = null;
        for (JsonNode header : entry.at("/response/headers")) {
          if (header.path("name").asText().equalsIgnoreCase(AuditTrail.HEADER)) {
            id = header.path("value").asText();
          }
        }
        sent.add(id);
      }
    }
    System.out.printf("audit: %d fuzzed requests, %d successful writes, each checked for exactly one audit event%n",
        requests, sent.size());
    assertTrue(requests > 0, "the HAR reports have no requests: " + hars);
    AuditTrail.assertComplete(service.dataDir, sent, event -> true);
  }

  static List<String> findAll(String text, String regex) {
    Matcher m = Pattern.compile(regex).matcher(text);
    List<String> found = new ArrayList<>();
    while (m.find()) {
      found.add(m.group(1).trim());
    }
    return found.isEmpty() ? List.of("(not reported)") : found;
  }

  static String tail(String log) {
    List<String> lines = log.lines().toList();
    return String.join("\n", lines.subList(Math.max(0, lines.size() - 120), lines.size()));
  }
}
