package io.ordinal.auth;

import io.ordinal.request.User;
import io.ordinal.store.ApiTokenRow;
import io.ordinal.store.KubeJson;
import io.ordinal.store.Repositories;
import jakarta.inject.Singleton;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * The API's bearer tokens: {@code <id>.<secret>}, the id public (it names the token in lists and
 * revocations), the secret 160 random bits of which only the SHA-256 is stored. Tokens are checked
 * against an in-memory copy of the table, so a request costs no database round trip; creating and
 * revoking go through this class and take effect at once, without a restart.
 */
@Singleton
public class Tokens {
  private static final Pattern FORMAT = Pattern.compile("([a-z0-9]{8})\\.([a-z0-9]{32})");
  private static final char[] ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789".toCharArray();
  private static final SecureRandom RANDOM = new SecureRandom();

  /** A token as it was issued: the only time its secret is known. */
  public record Issued(String token, ApiTokenRow row) {}

  /** A stored token and the user it stands for, read once when the token is loaded, not per request. */
  private record Known(ApiTokenRow row, User user) {
    Known(ApiTokenRow row) {
      this(row, User.authenticated(row.username(), row.uid(), groups(row)));
    }
  }

  private final Repositories.ApiTokens rows;
  private volatile Map<String, Known> byId;

  public Tokens(Repositories.ApiTokens rows) {
    this.rows = rows;
  }

  /** The user a bearer token stands for; empty when it is malformed, unknown, revoked or expired. */
  public Optional<User> authenticate(String token, Instant now) {
    var parts = FORMAT.matcher(token);
    if (!parts.matches()) {
      return Optional.empty();
    }
    Known known = loaded().get(parts.group(1));
    if (known == null) {
      return Optional.empty();
    }
    ApiTokenRow row = known.row();
    if (row.revokedAt() != null || (row.expiresAt() != null && !now.isBefore(row.expiresAt()))
        || !MessageDigest.isEqual(hash(parts.group(2)).getBytes(StandardCharsets.US_ASCII),
            row.secretHash().getBytes(StandardCharsets.US_ASCII))) {
      return Optional.empty();
    }
    return Optional.of(known.user());
  }

  /** Issues a token for {@code username} in {@code groups}, valid until {@code expiresAt} (null: no end). */
  public synchronized Issued create(String username, List<String> groups, String description, Instant expiresAt,
      Instant now) {
    String id = random(8);
    String secret = random(32);
    ApiTokenRow row = new ApiTokenRow(id, hash(secret), username, UUID.randomUUID().toString(),
        KubeJson.write(groups), description, now, expiresAt, null);
    rows.save(row);
    loaded().put(id, new Known(row));
    return new Issued(id + "." + secret, row);
  }

  /** Revokes a token; false when there is no such token or it was revoked already. */
  public synchronized boolean revoke(String id, Instant now) {
    boolean revoked = rows.revoke(id, now) > 0;
    rows.findById(id).ifPresent(row -> loaded().put(id, new Known(row)));
    return revoked;
  }

  public Optional<ApiTokenRow> find(String id) {
    return Optional.ofNullable(loaded().get(id)).map(Known::row);
  }

  /** Every token ever issued, revoked ones too, oldest first. */
  public List<ApiTokenRow> list() {
    return loaded().values().stream().map(Known::row).sorted(Comparator.comparing(ApiTokenRow::createdAt)
        .thenComparing(ApiTokenRow::id)).toList();
  }

  public static List<String> groups(ApiTokenRow row) {
    return List.of(KubeJson.read(row.groupsJson(), String[].class));
  }

  private Map<String, Known> loaded() {
    Map<String, Known> tokens = byId;
    if (tokens == null) {
      synchronized (this) {
        if (byId == null) {
          Map<String, Known> all = new ConcurrentHashMap<>();
          rows.findAll().forEach(row -> all.put(row.id(), new Known(row)));
          byId = all;
        }
        tokens = byId;
      }
    }
    return tokens;
  }

  private static String random(int length) {
    char[] chars = new char[length];
    for (int i = 0; i < length; i++) {
      chars[i] = ALPHABET[RANDOM.nextInt(ALPHABET.length)];
    }
    return new String(chars);
  }

  private static String hash(String secret) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(secret.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is part of every JDK", e);
    }
  }
}
