package io.ordinal.runtime;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Optional;

/** Generated secrets kept in files only their owner can read (0600 in a 0700 directory). */
final class Secrets {
  private static final SecureRandom RANDOM = new SecureRandom();

  private Secrets() {}

  /** 256 random bits, URL-safe Base64: no character that needs quoting anywhere. */
  static String generate() {
    byte[] bytes = new byte[32];
    RANDOM.nextBytes(bytes);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }

  /** The secret in {@code file}, if there is one (its mode is set to 0600 again, should it have changed). */
  static Optional<String> read(Path file) {
    try {
      if (!Files.exists(file)) {
        return Optional.empty();
      }
      Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
      String secret = Files.readString(file).trim();
      return secret.isEmpty() ? Optional.empty() : Optional.of(secret);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException("cannot read " + file, e);
    }
  }

  /** The secret in {@code file}, made and written there first if there is none. */
  static String readOrCreate(Path file) throws IOException {
    Optional<String> existing = read(file);
    if (existing.isPresent()) {
      return existing.get();
    }
    String secret = generate();
    write(file, secret);
    return secret;
  }

  /** Written whole or not at all, owner-only from its first byte. */
  static void write(Path file, String secret) throws IOException {
    Path dir = file.getParent();
    Files.createDirectories(dir);
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
    Path partial = Files.createTempFile(dir, file.getFileName().toString(), ".partial",
        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    Files.writeString(partial, secret + "\n");
    Files.move(partial, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }
}
