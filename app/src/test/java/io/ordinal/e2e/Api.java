package io.ordinal.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import io.ordinal.store.KubeJson;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import javax.net.ssl.SSLContext;

/** A small HTTP client for the Kubernetes-shaped API. */
final class Api {
  /** @param warnings the values of the response's Warning headers */
  record Reply(int code, String contentType, String body, List<String> warnings, HttpHeaders headers) {
    JsonNode json() {
      try {
        return KubeJson.JSON.readTree(body);
      } catch (IOException e) {
        throw new IllegalStateException("not JSON (" + code + "): " + body, e);
      }
    }
  }

  private final String base;
  private final String token;
  private final Path caCertificate;
  private final SSLContext tls;
  private final HttpClient client;

  /**
   * @param caCertificate the service's CA, which {@code tls} trusts
   * @param token the bearer token every request carries; null for none (the anonymous user)
   */
  Api(String base, Path caCertificate, SSLContext tls, String token) {
    this.base = base;
    this.caCertificate = caCertificate;
    this.tls = tls;
    this.token = token;
    this.client = client();
  }

  /** The same service as another user (another token; null: anonymous). */
  Api as(String otherToken) {
    return new Api(base, caCertificate, tls, otherToken);
  }

  /** The PEM file of the CA the service's certificate is signed by (for kubectl, curl, schemathesis). */
  Path caCertificate() {
    return caCertificate;
  }

  String token() {
    return token;
  }

  /** A new HTTP client that trusts the service, for tests that read responses as streams. */
  HttpClient client() {
    return HttpClient.newBuilder().sslContext(tls).connectTimeout(Duration.ofSeconds(5)).build();
  }

  /** A request to {@code path} with this client's credentials, for tests that read responses as streams. */
  HttpRequest.Builder request(String path) {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + path));
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    return request;
  }

  /** The service's URL, e.g. for a kubeconfig. */
  String base() {
    return base;
  }

  Reply get(String path) {
    return send("GET", path, null, null, null);
  }

  Reply get(String path, String accept) {
    return send("GET", path, null, null, accept);
  }

  Reply post(String path, String contentType, String body) {
    return send("POST", path, contentType, body, null);
  }

  Reply put(String path, String contentType, String body) {
    return send("PUT", path, contentType, body, null);
  }

  Reply patch(String path, String contentType, String body) {
    return send("PATCH", path, contentType, body, null);
  }

  Reply delete(String path) {
    return send("DELETE", path, null, null, null);
  }

  /** DELETE with propagationPolicy Foreground: the object stays, being deleted, until its dependents are gone. */
  Reply deleteInForeground(String path) {
    return send("DELETE", path, "application/json",
        "{\"kind\":\"DeleteOptions\",\"apiVersion\":\"v1\",\"propagationPolicy\":\"Foreground\"}", null);
  }

  /** @param headers more request headers, as name, value, name, value... */
  Reply send(String method, String path, String contentType, String body, String accept, String... headers) {
    HttpRequest.Builder request = request(path).timeout(Duration.ofSeconds(30))
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    if (headers.length > 0) {
      request.headers(headers);
    }
    if (contentType != null) {
      request.header("Content-Type", contentType);
    }
    if (accept != null) {
      request.header("Accept", accept);
    }
    try {
      HttpResponse<String> response = client.send(request.build(), HttpResponse.BodyHandlers.ofString());
      AuditTrail.sent(method, path, response.statusCode(), response.headers().firstValue(AuditTrail.HEADER).orElse(null));
      return new Reply(response.statusCode(), response.headers().firstValue("Content-Type").orElse(""), response.body(),
          response.headers().allValues("Warning"), response.headers());
    } catch (IOException | InterruptedException e) {
      throw new IllegalStateException(method + " " + path + ": " + e, e);
    }
  }

  /** Creates a StatefulSet from {@code manifest}, asserting 201 Created. */
  Reply createSet(String namespace, JsonNode manifest) {
    Reply reply = post(Paths.sets(namespace), "application/json", Manifests.json(manifest));
    assertEquals(201, reply.code(), reply.body());
    return reply;
  }

  /** Binds {@code user} to {@code clusterRole} in {@code namespace} (a RoleBinding named after both), asserting 201. */
  Reply bind(String user, String clusterRole, String namespace) {
    Reply reply = post("/apis/rbac.authorization.k8s.io/v1/namespaces/" + namespace + "/rolebindings", "application/json", """
        {"apiVersion":"rbac.authorization.k8s.io/v1","kind":"RoleBinding","metadata":{"name":"%s-%s"},
         "roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"%s"},
         "subjects":[{"apiGroup":"rbac.authorization.k8s.io","kind":"User","name":"%s"}]}"""
        .formatted(user, clusterRole, clusterRole, user));
    assertEquals(201, reply.code(), reply.body());
    return reply;
  }

  /** Applies a JSON merge patch to a StatefulSet, asserting 200 OK. */
  Reply patchSet(String namespace, String name, String mergePatch) {
    Reply reply = patch(Paths.set(namespace, name), "application/merge-patch+json", mergePatch);
    assertEquals(200, reply.code(), reply.body());
    return reply;
  }

  /** Replaces the image of the set's first container (a JSON patch), asserting 200 OK. */
  Reply setImage(String namespace, String name, String image) {
    Reply reply = patch(Paths.set(namespace, name), "application/json-patch+json", Manifests.imagePatch(image));
    assertEquals(200, reply.code(), reply.body());
    return reply;
  }

  /** The pods of a set, by name. */
  List<JsonNode> pods(String namespace, String selector) {
    JsonNode list = get(Paths.core(namespace, "pods?labelSelector=" + URLEncoder.encode(selector, StandardCharsets.UTF_8))).json();
    List<JsonNode> pods = new ArrayList<>();
    list.path("items").forEach(pods::add);
    return pods;
  }

  List<JsonNode> events(String namespace) {
    List<JsonNode> events = new ArrayList<>();
    get(Paths.core(namespace, "events")).json().path("items").forEach(events::add);
    return events;
  }

  JsonNode set(String namespace, String name) {
    return get(Paths.set(namespace, name)).json();
  }

  JsonNode pod(String namespace, String name) {
    return get(Paths.pod(namespace, name)).json();
  }

  /** Polls {@code path} until {@code condition} holds. */
  JsonNode await(String path, Duration timeout, Predicate<Reply> condition) {
    Instant deadline = Instant.now().plus(timeout);
    Reply last = null;
    while (Instant.now().isBefore(deadline)) {
      last = get(path);
      if (condition.test(last)) {
        return last.code() == 200 ? last.json() : null;
      }
      sleep(100);
    }
    throw new AssertionError("timed out after " + timeout + " waiting on " + path + "; last: "
        + (last == null ? "none" : last.code() + " " + last.body()));
  }

  /** Waits until the set's status says every one of {@code replicas} pods is available and up to date. */
  JsonNode awaitConverged(String namespace, String name, int replicas, Duration timeout) {
    return await(Paths.set(namespace, name) + "/status", timeout, reply -> {
      if (reply.code() != 200) {
        return false;
      }
      JsonNode set = reply.json();
      JsonNode status = set.path("status");
      return status.path("observedGeneration").asLong() == set.path("metadata").path("generation").asLong()
          && status.path("replicas").asInt(-1) == replicas
          && status.path("availableReplicas").asInt(-1) == replicas
          && status.path("updatedReplicas").asInt(-1) == replicas
          && pods(namespace, "app=" + set.path("spec").path("selector").path("matchLabels").path("app").asText()).size() == replicas;
    });
  }

  /** Waits until web's rollout away from {@code previousRevision} is complete on all {@code replicas}. */
  JsonNode awaitRolledOut(String ns, int replicas, String previousRevision) {
    return awaitRolledOut(ns, "web", replicas, previousRevision, Duration.ofSeconds(90));
  }

  JsonNode awaitRolledOut(String ns, String name, int replicas, String previousRevision, Duration timeout) {
    return await(Paths.set(ns, name) + "/status", timeout, r -> {
      JsonNode s = r.json().path("status");
      return !s.path("currentRevision").asText().equals(previousRevision)
          && s.path("updatedReplicas").asInt() == replicas && s.path("availableReplicas").asInt() == replicas
          && s.path("currentRevision").asText().equals(s.path("updateRevision").asText());
    });
  }

  /**
   * Pod creations (+name) and deletions (-name) in the namespace, in the order they were committed:
   * the watch log's record (the last 15 minutes), replayed by a watch from its oldest entry up to the
   * bookmark that says it has caught up. (Events no longer list each: a repeat counts on the first.)
   */
  List<String> podOperations(String ns) {
    String from = "1";
    for (int attempt = 0; attempt < 3; attempt++) {
      HttpResponse<InputStream> response;
      try {
        response = client().send(request(Paths.core(ns, "pods") + "?watch=true&allowWatchBookmarks=true"
            + "&timeoutSeconds=120&resourceVersion=" + from).timeout(Duration.ofSeconds(130)).build(),
            HttpResponse.BodyHandlers.ofInputStream());
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
      try (BufferedReader lines = new BufferedReader(new InputStreamReader(response.body(), StandardCharsets.UTF_8))) {
        if (response.statusCode() == 410) {
          // The log's beginning was compacted: its message names the oldest version still there.
          Matcher oldest = Pattern.compile("\\((\\d+)\\)").matcher(lines.lines().collect(Collectors.joining()));
          if (!oldest.find()) {
            throw new AssertionError("410 without the compacted version");
          }
          from = oldest.group(1);
          continue;
        }
        if (response.statusCode() != 200) {
          throw new AssertionError("watch of pods in " + ns + " answered " + response.statusCode());
        }
        List<String> operations = new ArrayList<>();
        String line;
        while ((line = lines.readLine()) != null) {
          if (line.isBlank()) {
            continue;
          }
          JsonNode event = KubeJson.JSON.readTree(line);
          String type = event.path("type").asText();
          if (type.equals("BOOKMARK")) {
            return operations;
          }
          String name = event.at("/object/metadata/name").asText();
          if (type.equals("ADDED")) {
            operations.add("+" + name);
          } else if (type.equals("DELETED")) {
            operations.add("-" + name);
          }
        }
        throw new AssertionError("the watch of pods in " + ns + " ended before it caught up: " + operations);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    throw new AssertionError("the watch log kept moving past the version its 410 named");
  }

  /** What the running pod has printed, once it has printed something (up to 30 s). */
  String awaitLog(String namespace, String pod) {
    for (int i = 0; i < 300; i++) {
      Reply log = get(Paths.pod(namespace, pod) + "/log");
      if (log.code() == 200 && !log.body().isBlank()) {
        return log.body().trim();
      }
      sleep(100);
    }
    throw new AssertionError(pod + " printed nothing");
  }

  static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
