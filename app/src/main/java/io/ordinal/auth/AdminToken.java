package io.ordinal.auth;

import io.ordinal.request.User;
import io.micronaut.context.annotation.Value;
import io.micronaut.context.event.StartupEvent;
import io.micronaut.runtime.event.annotation.EventListener;
import jakarta.inject.Singleton;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The first credential: on start, unless {@code <data dir>/auth/admin.token} holds a token that is
 * still valid, a new token for user {@code admin} in {@code system:masters} is issued and written
 * there, readable by this user only. {@code ./ordinal kubeconfig} and {@code ./ordinal token} read it;
 * revoking it and restarting issues a new one.
 */
@Singleton
public class AdminToken {
  public static final String USER = "admin";
  private static final Logger log = LoggerFactory.getLogger(AdminToken.class);

  private final Tokens tokens;
  private final Path file;

  public AdminToken(Tokens tokens, @Value("${ordinal.data-dir:var}") String dataDir) {
    this.tokens = tokens;
    this.file = Path.of(dataDir).resolve("auth").resolve("admin.token");
  }

  @EventListener
  void onStartup(StartupEvent event) {
    try {
      Instant now = Instant.now();
      if (Files.exists(file) && tokens.authenticate(Files.readString(file).trim(), now).isPresent()) {
        return;
      }
      Tokens.Issued issued = tokens.create(USER, List.of(User.MASTERS), "the admin token written on first start",
          null, now);
      write(issued.token());
      // The path, never the token: no secret goes to a log.
      log.info("issued the admin token {} into {}", issued.row().id(), file);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the admin token to " + file, e);
    }
  }

  public Path file() {
    return file;
  }

  /** Written whole or not at all, owner-only from its first byte. */
  private void write(String token) throws IOException {
    Path dir = file.getParent();
    Files.createDirectories(dir);
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
    Path partial = Files.createTempFile(dir, "admin.token", ".partial",
        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    Files.writeString(partial, token + "\n");
    Files.move(partial, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }
}
