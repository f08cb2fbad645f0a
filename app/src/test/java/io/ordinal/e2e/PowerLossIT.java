package io.ordinal.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.DriverManager;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A power loss of the machine under the embedded PostgreSQL: its data dir is on powerlossfs
 * (src/test/go/powerlossfs, a FUSE file system that forgets on command every write its file has
 * not fsynced, as a disk's volatile cache does), the service and PostgreSQL are killed with SIGKILL,
 * the unsynced writes are dropped, and the service is started again on what is left. With fsync on
 * (the default) every change the API acknowledged is there and the sets converge; with it off, the
 * same loss takes acknowledged changes with it: the test can tell the two apart.
 */
@E2eTest
class PowerLossIT {
  static final Duration TIMEOUT = Duration.ofSeconds(120);
  static Path powerlossfs;

  @BeforeAll
  static void buildTheFileSystem() throws Exception {
    powerlossfs = Path.of("target", "powerlossfs").toAbsolutePath();
    Command.Result built = Command.run(Duration.ofMinutes(5), Map.of("GOFLAGS", "-mod=mod"),
        Path.of("src", "test", "go", "powerlossfs").toAbsolutePath(), null,
        List.of("go", "build", "-o", powerlossfs.toString(), "."));
    assertEquals(0, built.code(), "go build of powerlossfs: " + built.output());
  }

  @Test
  void everyAcknowledgedChangeSurvivesAPowerLossWithFsyncOn() throws Exception {
    Outcome outcome = powerLoss("powerloss-fsync", true);
    System.out.println("power loss with fsync on: " + outcome);
    assertTrue(outcome.fsync().equals("on"), "SHOW fsync: " + outcome.fsync());
    assertTrue(outcome.lost().startsWith("lost "), outcome.lost());
    assertTrue(outcome.startedAgain(), "the service starts again on what the disk kept: " + outcome.failure());
    assertEquals(List.of(), outcome.missing(), "acknowledged changes missing after the power loss");
  }

  @Test
  void withFsyncOffThePowerLossTakesAcknowledgedChanges() throws Exception {
    Outcome outcome = powerLoss("powerloss-nofsync", false);
    System.out.println("power loss with fsync off: " + outcome);
    assertEquals("off", outcome.fsync());
    assertFalse(outcome.startedAgain() && outcome.missing().isEmpty(),
        "with fsync off a power loss should lose acknowledged changes; " + outcome.lost());
  }

  record Outcome(String fsync, String lost, boolean startedAgain, String failure, List<String> missing) {}

  private Outcome powerLoss(String name, boolean fsync) throws Exception {
    OrdinalService service = new OrdinalService(name, Map.of("ORDINAL_DRIVER", "sim",
        "ORDINAL_EMBEDDED_DB_FSYNC", Boolean.toString(fsync)));
    Path disk = Files.createDirectories(service.dataDir.resolveSibling(service.dataDir.getFileName() + "-disk"));
    Path mountpoint = Files.createDirectories(service.dataDir.resolve("postgres"));
    Process fs = new ProcessBuilder(powerlossfs.toString(), disk.toString(), mountpoint.toString())
        .redirectError(ProcessBuilder.Redirect.appendTo(service.dataDir.resolve("powerlossfs.log").toFile())).start();
    BufferedReader said = new BufferedReader(new InputStreamReader(fs.getInputStream(), StandardCharsets.UTF_8));
    try {
      assertEquals("mounted", said.readLine());
      service.start();
      String fsyncSetting;
      try (var c = DriverManager.getConnection(service.jdbcUrl("ordinal"), "ordinal", service.databasePassword("ordinal"));
           var rows = c.createStatement().executeQuery("SHOW fsync")) {
        rows.next();
        fsyncSetting = rows.getString(1);
      }
      Api api = service.api();
      // Acknowledged changes: three sets, then scales of each; the last acknowledged replicas per set.
      Map<String, Integer> acknowledged = new LinkedHashMap<>();
      for (String set : List.of("alpha", "beta", "gamma")) {
        assertEquals(201, api.createSet("power", Manifests.web(set, 1, 0, Map.of())).code());
        acknowledged.put(set, 1);
      }
      for (int round = 2; round <= 4; round++) {
        for (String set : acknowledged.keySet()) {
          Api.Reply scaled = api.patchSet("power", set, "{\"spec\":{\"replicas\":" + round + "}}");
          assertEquals(200, scaled.code(), scaled.body());
          acknowledged.put(set, round);
        }
      }

      // The power goes: every process on the machine stops at once, then the disk keeps what was synced.
      ProcessHandle postgres = service.postgres().orElseThrow();
      service.kill9();
      List<ProcessHandle> tree = new ArrayList<>(postgres.descendants().toList());
      tree.add(postgres);
      tree.forEach(ProcessHandle::destroyForcibly);
      for (ProcessHandle process : tree) {
        process.onExit().get(30, TimeUnit.SECONDS);
      }
      Runtime.getRuntime().exec(new String[] {"kill", "-USR1", Long.toString(fs.pid())}).waitFor();
      String lost = said.readLine();

      boolean startedAgain = true;
      String failure = "";
      List<String> missing = new ArrayList<>();
      try {
        service.start();
        for (var entry : acknowledged.entrySet()) {
          Api.Reply set = api.get(Paths.set("power", entry.getKey()));
          if (set.code() != 200 || set.json().at("/spec/replicas").asInt() != entry.getValue()) {
            missing.add(entry.getKey() + " with " + entry.getValue() + " replicas (found: " + set.code() + " "
                + (set.code() == 200 ? set.json().at("/spec/replicas").asText() : "") + ")");
          }
        }
        if (fsync) {
          for (var entry : acknowledged.entrySet()) {
            JsonNode converged = api.awaitConverged("power", entry.getKey(), entry.getValue(), TIMEOUT);
            assertEquals(entry.getValue(), converged.at("/status/readyReplicas").asInt());
          }
        }
      } catch (IllegalStateException e) {
        startedAgain = false;
        failure = e.getMessage();
      }
      return new Outcome(fsyncSetting, lost, startedAgain, failure, missing);
    } finally {
      service.close();
      fs.destroy();
      if (!fs.waitFor(20, TimeUnit.SECONDS)) {
        fs.destroyForcibly();
        Command.run(Duration.ofSeconds(20), "umount", "-l", mountpoint.toString());
      }
    }
  }
}
