package io.ordinal.store;

import io.micronaut.context.annotation.Value;
import jakarta.inject.Singleton;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * Encryption at rest of the objects of sealed tables (Secrets), as the API server's
 * EncryptionConfiguration {@code aesgcm} provider does: AES-256-GCM with a fresh 96-bit nonce per
 * write, the object's table, namespace and name as additional data (a sealed object copied to
 * another row does not open), and {@code k8s:enc:aesgcm:v1:<key name>:} before the nonce and the
 * ciphertext. Keys live in a file of {@code name:base64} lines, 0600, created with one key on first
 * start: the first key seals, every key opens. To rotate, put a new key first and restart; each
 * object sealed with an older key is sealed again on start ({@link #sealedWithOlderKey}).
 */
@Singleton
public class SecretSealer {
  static final String PREFIX = "k8s:enc:aesgcm:v1:";
  private static final int NONCE_BYTES = 12;
  private static final int TAG_BITS = 128;

  private final Map<String, SecretKeySpec> keys;
  private final String current;
  private final SecureRandom random = new SecureRandom();

  public SecretSealer(@Value("${ordinal.encryption.key-file:}") String keyFile, @Value("${ordinal.data-dir:var}") String dataDir) {
    this(keyFile.isBlank() ? Path.of(dataDir).resolve("encryption").resolve("keys") : Path.of(keyFile));
  }

  SecretSealer(Path file) {
    this.keys = load(file);
    this.current = keys.keySet().iterator().next();
  }

  /** The sealed form of {@code json}, bound to its row. */
  public String seal(String json, String table, String namespace, String name) {
    byte[] nonce = new byte[NONCE_BYTES];
    random.nextBytes(nonce);
    try {
      Cipher cipher = cipher(Cipher.ENCRYPT_MODE, keys.get(current), nonce, table, namespace, name);
      byte[] sealed = cipher.doFinal(json.getBytes(StandardCharsets.UTF_8));
      ByteBuffer out = ByteBuffer.allocate(nonce.length + sealed.length).put(nonce).put(sealed);
      return PREFIX + current + ":" + Base64.getEncoder().encodeToString(out.array());
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("cannot seal " + table + " " + namespace + "/" + name, e);
    }
  }

  /** The JSON a sealed value holds; a value stored before sealing (no prefix) is returned as it is. */
  public String open(String stored, String table, String namespace, String name) {
    if (!stored.startsWith(PREFIX)) {
      return stored;
    }
    String rest = stored.substring(PREFIX.length());
    int colon = rest.indexOf(':');
    String keyName = rest.substring(0, colon);
    SecretKeySpec key = keys.get(keyName);
    if (key == null) {
      throw new SealedException(table + " " + namespace + "/" + name + " is sealed with key " + keyName
          + ", which the key file does not hold (several instances share one key file: ORDINAL_ENCRYPTION_KEY_FILE)");
    }
    byte[] data = Base64.getDecoder().decode(rest.substring(colon + 1));
    try {
      Cipher cipher = cipher(Cipher.DECRYPT_MODE, key, Arrays.copyOf(data, NONCE_BYTES), table, namespace, name);
      return new String(cipher.doFinal(data, NONCE_BYTES, data.length - NONCE_BYTES), StandardCharsets.UTF_8);
    } catch (GeneralSecurityException e) {
      throw new SealedException(table + " " + namespace + "/" + name + " does not open with key " + keyName);
    }
  }

  /** Whether a stored value should be sealed again: plain, or sealed with a key that is no longer first. */
  public boolean sealedWithOlderKey(String stored) {
    return !stored.startsWith(PREFIX + current + ":");
  }

  private static Cipher cipher(int mode, SecretKeySpec key, byte[] nonce, String table, String namespace, String name)
      throws GeneralSecurityException {
    Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
    cipher.init(mode, key, new GCMParameterSpec(TAG_BITS, nonce));
    cipher.updateAAD((table + "/" + namespace + "/" + name).getBytes(StandardCharsets.UTF_8));
    return cipher;
  }

  private static Map<String, SecretKeySpec> load(Path file) {
    try {
      if (!Files.exists(file)) {
        create(file);
      }
      Map<String, SecretKeySpec> keys = new LinkedHashMap<>();
      List<String> problems = new ArrayList<>();
      for (String line : Files.readAllLines(file)) {
        if (line.isBlank() || line.startsWith("#")) {
          continue;
        }
        int colon = line.indexOf(':');
        byte[] key = colon > 0 ? decode(line.substring(colon + 1).trim()) : null;
        if (key == null || key.length != 32) {
          problems.add("a line is not name:<32 bytes in base64>");
          continue;
        }
        keys.putIfAbsent(line.substring(0, colon).trim(), new SecretKeySpec(key, "AES"));
      }
      if (!problems.isEmpty() || keys.isEmpty()) {
        throw new IllegalStateException("the encryption key file " + file + " is not usable: "
            + (keys.isEmpty() ? "it holds no key" : String.join("; ", problems)));
      }
      return keys;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the encryption key file " + file, e);
    }
  }

  private static void create(Path file) throws IOException {
    Files.createDirectories(file.getParent(), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    byte[] key = new byte[32];
    new SecureRandom().nextBytes(key);
    Path written = Files.createTempFile(file.getParent(), "keys", ".tmp",
        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    Files.writeString(written, "# AES-256 keys for Secrets at rest: name:base64. The first seals; all open.\n"
        + "key1:" + Base64.getEncoder().encodeToString(key) + "\n");
    Files.move(written, file, StandardCopyOption.ATOMIC_MOVE);
  }

  private static byte[] decode(String text) {
    try {
      return Base64.getDecoder().decode(text);
    } catch (IllegalArgumentException e) {
      return null;
    }
  }
}
