package io.ordinal.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Base64;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SecretSealerTest {
  @TempDir
  Path dir;

  @Test
  void aSealedValueOpensOnlyInItsOwnRow() throws Exception {
    Path keys = dir.resolve("encryption").resolve("keys");
    SecretSealer sealer = new SecretSealer(keys);
    assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(keys)));
    String json = "{\"data\":{\"password\":\"aHVudGVyMg==\"}}";
    String sealed = sealer.seal(json, "secrets", "ns", "db");
    assertTrue(sealed.startsWith("k8s:enc:aesgcm:v1:key1:"), sealed);
    assertFalse(sealed.contains("aHVudGVyMg"));
    assertNotEquals(sealed, sealer.seal(json, "secrets", "ns", "db"), "a fresh nonce per write");
    assertEquals(json, sealer.open(sealed, "secrets", "ns", "db"));
    assertThrows(IllegalStateException.class, () -> sealer.open(sealed, "secrets", "ns", "other"));
    assertEquals(json, sealer.open(json, "secrets", "ns", "db"), "a value stored before sealing reads as it is");
  }

  @Test
  void afterARotationOldValuesOpenAndAreResealed() throws Exception {
    Path keys = dir.resolve("keys");
    SecretSealer before = new SecretSealer(keys);
    String sealed = before.seal("{}", "secrets", "ns", "a");
    byte[] key = new byte[32];
    key[0] = 7;
    Files.writeString(keys, "key2:" + Base64.getEncoder().encodeToString(key) + "\n" + Files.readString(keys));
    SecretSealer after = new SecretSealer(keys);
    assertEquals("{}", after.open(sealed, "secrets", "ns", "a"));
    assertTrue(after.sealedWithOlderKey(sealed));
    String resealed = after.seal("{}", "secrets", "ns", "a");
    assertTrue(resealed.startsWith("k8s:enc:aesgcm:v1:key2:"), resealed);
    assertFalse(after.sealedWithOlderKey(resealed));
  }

  @Test
  void aKeyFileThatIsNotUsableStopsTheService() throws Exception {
    Path keys = dir.resolve("bad");
    Files.writeString(keys, "key1:c2hvcnQ=\n");
    var error = assertThrows(IllegalStateException.class, () -> new SecretSealer(keys));
    assertTrue(error.getMessage().contains("not usable"), error.getMessage());
  }
}
