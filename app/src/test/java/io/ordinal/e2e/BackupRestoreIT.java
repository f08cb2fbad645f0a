package io.ordinal.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The README's backup and restore, as a user runs them: {@code ./ordinal backup} of a running service,
 * {@code ./ordinal restore} into a new data dir, a start there.
 */
class BackupRestoreIT {
  private static final Path LAUNCHER = Path.of("..", "ordinal").toAbsolutePath().normalize();
  private static final Duration TIMEOUT = Duration.ofSeconds(120);
  private static final String NS = "backup";

  /**
   * What the backup holds comes back (the set, its pods with their uids, a Secret, readable because the
   * key file that seals it came along, and the admin token); what changed after it does not (a scale);
   * the restored set converges and scales with no pod made again, though Temporal's state is new.
   */
  @Test
  void aRestoredBackupServesWhatWasBackedUpAndConverges() throws Exception {
    Path backup;
    Map<String, String> uids;
    String token;
    try (OrdinalService service = new OrdinalService("backup")) {
      service.start();
      Api api = service.api();
      api.createSet(NS, Manifests.web("web", 3, 0, Map.of()));
      api.awaitConverged(NS, "web", 3, TIMEOUT);
      uids = uids(api);
      assertEquals(201, api.post("/api/v1/namespaces/" + NS + "/secrets", "application/json",
          "{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"metadata\":{\"name\":\"db\"},\"stringData\":{\"password\":\"s3cret\"}}").code());
      token = Files.readString(service.dataDir.resolve("auth/admin.token")).strip();

      backup = service.dataDir.resolveSibling(service.dataDir.getFileName() + ".tar.gz");
      Command.Result backedUp = launcher(Map.of("ORDINAL_DATA_DIR", service.dataDir.toString()), "backup", backup.toString());
      assertEquals(0, backedUp.code(), backedUp.output());
      // After the backup: lost by the restore.
      api.patchSet(NS, "web", "{\"spec\":{\"replicas\":5}}");
      api.awaitConverged(NS, "web", 5, TIMEOUT);
      service.stop();
    }

    try (OrdinalService restored = new OrdinalService("restored")) {
      Map<String, String> env = Map.of("ORDINAL_DATA_DIR", restored.dataDir.toString(), "ORDINAL_JAR", System.getProperty("ordinal.jar"));
      Command.Result restore = launcher(env, "restore", backup.toString());
      assertEquals(0, restore.code(), restore.output());
      Command.Result again = launcher(env, "restore", backup.toString());
      assertNotEquals(0, again.code());
      assertTrue(again.err().contains("already holds a database"), again.output());

      restored.start();
      Api api = restored.api();
      assertEquals(token, Files.readString(restored.dataDir.resolve("auth/admin.token")).strip(), "the admin token came back");
      JsonNode set = api.awaitConverged(NS, "web", 3, TIMEOUT);
      assertEquals(3, set.at("/spec/replicas").asInt(), "the backup's spec, not the scale made after it");
      assertEquals(uids, uids(api), "the backup's pods, none made again");
      JsonNode secret = api.get("/api/v1/namespaces/" + NS + "/secrets/db").json();
      assertEquals("s3cret", new String(Base64.getDecoder().decode(secret.at("/data/password").asText())));

      api.patchSet(NS, "web", "{\"spec\":{\"replicas\":4}}");
      api.awaitConverged(NS, "web", 4, TIMEOUT);
      Map<String, String> after = uids(api);
      uids.forEach((pod, uid) -> assertEquals(uid, after.get(pod), pod));
      assertEquals(List.of("+web-0", "+web-1", "+web-2", "+web-3"),
          api.podOperations(NS).stream().filter(op -> op.startsWith("+")).sorted().toList(),
          "each pod made once (the watch log too came with the database)");
    }
  }

  private static Command.Result launcher(Map<String, String> env, String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of(LAUNCHER.toString()));
    command.addAll(List.of(args));
    return Command.run(Duration.ofMinutes(5), env, LAUNCHER.getParent(), null, command);
  }

  private static Map<String, String> uids(Api api) {
    Map<String, String> uids = new TreeMap<>();
    api.pods(NS, "app=web").forEach(pod -> uids.put(pod.at("/metadata/name").asText(), pod.at("/metadata/uid").asText()));
    return uids;
  }
}
