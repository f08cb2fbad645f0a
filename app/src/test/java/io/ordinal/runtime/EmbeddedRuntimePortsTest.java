package io.ordinal.runtime;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A second installation started on ports or a data dir the first one holds stops before it starts anything. */
class EmbeddedRuntimePortsTest {
  private static Settings settings(Map<String, String> env) {
    Map<String, String> all = new HashMap<>(Map.of("ORDINAL_DATA_DIR", "target/ports-test"));
    all.putAll(env);
    return Settings.fromEnvironment(all);
  }

  @Test
  void eachFixedPortTakenIsNamedWithItsVariable() throws Exception {
    try (ServerSocket held = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      int taken = held.getLocalPort();
      String free = "0";
      for (String variable : new String[] {"ORDINAL_HTTP_PORT", "ORDINAL_TEMPORAL_PORT", "ORDINAL_TEMPORAL_UI_PORT"}) {
        Map<String, String> env = new HashMap<>(Map.of("ORDINAL_HTTP_PORT", free, "ORDINAL_TEMPORAL_PORT", free,
            "ORDINAL_TEMPORAL_UI_PORT", free));
        env.put(variable, Integer.toString(taken));
        var refused = assertThrows(EmbeddedRuntime.InUseException.class,
            () -> EmbeddedRuntime.checkPortsFree(settings(env)));
        assertTrue(refused.getMessage().startsWith("port " + taken + " on 127.0.0.1 ("), refused.getMessage());
        assertTrue(refused.getMessage().contains("set " + variable), refused.getMessage());
      }
    }
  }

  @Test
  void portsOfEnginesItDoesNotStartAreNotItsOwn() throws Exception {
    try (ServerSocket held = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      String taken = Integer.toString(held.getLocalPort());
      // An external Temporal: neither of the dev server's ports is this installation's.
      assertDoesNotThrow(() -> EmbeddedRuntime.checkPortsFree(settings(Map.of("ORDINAL_HTTP_PORT", "0",
          "TEMPORAL_ADDRESS", "127.0.0.1:" + taken, "ORDINAL_TEMPORAL_PORT", taken, "ORDINAL_TEMPORAL_UI_PORT", taken))));
      // Headless: no Web UI port.
      assertDoesNotThrow(() -> EmbeddedRuntime.checkPortsFree(settings(Map.of("ORDINAL_HTTP_PORT", "0",
          "ORDINAL_TEMPORAL_PORT", "0", "ORDINAL_TEMPORAL_HEADLESS", "true", "ORDINAL_TEMPORAL_UI_PORT", taken))));
      assertEquals(1, EmbeddedRuntime.ports(settings(Map.of("TEMPORAL_ADDRESS", "t:7233"))).size());
      assertEquals(3, EmbeddedRuntime.ports(settings(Map.of())).size());
    }
  }

  @Test
  void aDataDirServesOneServiceAtATime() throws Exception {
    Path dataDir = Files.createDirectories(Path.of("target", "data-dir-lock-test"));
    try (FileChannel first = EmbeddedRuntime.lockDataDir(dataDir)) {
      var refused = assertThrows(EmbeddedRuntime.InUseException.class, () -> EmbeddedRuntime.lockDataDir(dataDir));
      assertTrue(refused.getMessage().contains("is in use by another running service"), refused.getMessage());
      assertTrue(refused.getMessage().contains("ORDINAL_DATA_DIR"), refused.getMessage());
    }
    EmbeddedRuntime.lockDataDir(dataDir).close(); // free again once the first lets go
  }
}
