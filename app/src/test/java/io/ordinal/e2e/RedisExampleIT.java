package io.ordinal.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * deploy/examples/redis.yaml end to end on the local driver, applied by kubectl as it is: a real
 * primary and two replicas, their redis.conf from a ConfigMap volume, their password from a Secret.
 * Data written to the primary reaches the replicas; a deleted member comes back with the same
 * name, address and data, and rejoins.
 */
@E2eTest
class RedisExampleIT {
  static final Duration TIMEOUT = Duration.ofSeconds(90);
  static final String NS = "redis-example";
  /** deploy/examples/redis.yaml's Secret redis-auth. */
  static final String PASSWORD = "change-me-please";
  static Api api;

  @Test
  void membersKeepIdentityAndDataThroughDeletionAndRejoin() throws Exception {
    // The manifest as a user applies it: its ConfigMap (redis.conf), Secret (the password), Service and set.
    new Kubectl(api.base(), api.caCertificate(), api.token(), NS)
        .run("apply", "-f", Path.of("..", "deploy", "examples", "redis.yaml").toString()).ok();
    api.awaitConverged(NS, "redis", 3, TIMEOUT);
    assertTrue(redisWithout(0, "get", "greeting").contains("NOAUTH"), "the Secret's password is required");
    assertEquals("appendonly\nyes", redis(2, "config", "get", "appendonly"), "redis.conf of the ConfigMap was read");
    // The role probe labels each member as Redis sees itself.
    awaitRole(0, "master");
    awaitRole(1, "slave");
    awaitRole(2, "slave");

    assertEquals("OK", redis(0, "set", "greeting", "hello"));
    awaitValue(1, "greeting", "hello");
    awaitValue(2, "greeting", "hello");

    // A replica goes away and comes back as itself, with its data, and follows the primary again.
    String replicaIp = ip(1);
    assertEquals(200, api.delete(Paths.pod(NS, "redis-1")).code());
    awaitRecreated("redis-1");
    assertEquals(replicaIp, ip(1));
    awaitValue(1, "greeting", "hello");
    Instant deadline = Instant.now().plus(TIMEOUT);
    while (!redis(1, "info", "replication").contains("master_link_status:up") && Instant.now().isBefore(deadline)) {
      Thread.sleep(200);
    }
    assertTrue(redis(1, "info", "replication").contains("master_link_status:up"), "redis-1 did not rejoin its primary");

    // The primary goes away: its append-only file on its PVC brings the data back, replicas rejoin.
    assertEquals("OK", redis(0, "set", "after", "replica-restart"));
    assertEquals(200, api.delete(Paths.pod(NS, "redis-0")).code());
    awaitRecreated("redis-0");
    awaitValue(0, "after", "replica-restart");
    assertEquals("OK", redis(0, "set", "after-primary-restart", "yes"));
    awaitValue(2, "after-primary-restart", "yes");
    api.delete(Paths.set(NS, "redis"));
  }

  static void awaitRole(int ordinal, String role) {
    api.await(Paths.pod(NS, "redis-" + ordinal), TIMEOUT, r -> role.equals(r.json().at("/metadata/labels/role").asText()));
  }

  static String ip(int ordinal) {
    return api.pod(NS, "redis-" + ordinal).at("/status/podIP").asText();
  }

  static void awaitRecreated(String pod) {
    api.await(Paths.pod(NS, pod), TIMEOUT, r -> r.code() == 200
        && r.json().at("/metadata/deletionTimestamp").isMissingNode()
        && r.json().at("/status/containerStatuses/0/ready").asBoolean());
  }

  static void awaitValue(int ordinal, String key, String expected) throws Exception {
    Instant deadline = Instant.now().plus(TIMEOUT);
    String last = null;
    while (Instant.now().isBefore(deadline)) {
      last = redis(ordinal, "get", key);
      if (expected.equals(last)) {
        return;
      }
      Thread.sleep(200);
    }
    throw new AssertionError("redis-" + ordinal + " " + key + " = " + last + ", expected " + expected);
  }

  /** Runs redis-cli against a member's stable address, with the password of the example's Secret. */
  static String redis(int ordinal, String... args) throws Exception {
    return redisCli(Map.of("REDISCLI_AUTH", PASSWORD), ordinal, args);
  }

  static String redisWithout(int ordinal, String... args) throws Exception {
    return redisCli(Map.of(), ordinal, args);
  }

  private static String redisCli(Map<String, String> env, int ordinal, String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of("redis-cli", "-h", ip(ordinal), "-p", "6379"));
    command.addAll(List.of(args));
    return Command.run(Duration.ofSeconds(60), env, null, null, command).output().trim();
  }
}
