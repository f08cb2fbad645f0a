package io.ordinal.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.ordinal.store.KubeJson;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * configMap, secret, downwardAPI and projected volumes of local pods, as the kubelet makes them: the
 * keys as files (items, modes), the AtomicWriter layout ({@code ..data}), read-only mounts, updates
 * seen by the running container without a restart (but not through a subPath), and a missing
 * source that holds the pod in ContainerCreating with a FailedMount event until it exists.
 */
@E2eTest
class ConfigVolumesIT {
  static final Duration TIMEOUT = Duration.ofSeconds(90);
  /** Well above the driver's resync period (2 s). */
  static final Duration UPDATE_SEEN = Duration.ofSeconds(30);
  static Api api;

  @Test
  void aConfigMapVolumeShowsItsKeysAsFilesAndFollowsAnUpdate(@Namespace String ns) throws Exception {
    Kubectl kubectl = kubectl(ns);
    kubectl.run("create", "configmap", "app", "--from-literal=mode=fast", "--from-literal=level=3").ok();
    api.createSet(ns, set("cm", """
        volumes:
        - {name: all, configMap: {name: app, defaultMode: 292}}
        - {name: some, configMap: {name: app, items: [{key: mode, path: conf/mode.txt, mode: 388}]}}
        containers:
        - name: main
          image: local
          command: [sleep, "3600"]
          volumeMounts:
          - {name: all, mountPath: /cfg}
          - {name: some, mountPath: /items}
          - {name: all, mountPath: /single/mode, subPath: mode}
        """));
    api.awaitConverged(ns, "cm", 1, TIMEOUT);

    assertEquals("fast", exec(kubectl, "cm-0", "cat", "/cfg/mode"));
    assertEquals("3", exec(kubectl, "cm-0", "cat", "/cfg/level"));
    assertEquals("444", exec(kubectl, "cm-0", "stat", "-L", "-c", "%a", "/cfg/mode"));
    assertEquals("fast", exec(kubectl, "cm-0", "cat", "/items/conf/mode.txt"));
    assertEquals("604", exec(kubectl, "cm-0", "stat", "-L", "-c", "%a", "/items/conf/mode.txt"));
    assertEquals("conf", exec(kubectl, "cm-0", "ls", "/items"), "only the items");
    // The kubelet's layout: each name a symlink through ..data, which links to a timestamped directory.
    assertEquals("..data/mode", exec(kubectl, "cm-0", "readlink", "/cfg/mode"));
    String dataDir = exec(kubectl, "cm-0", "readlink", "/cfg/..data");
    assertTrue(dataDir.matches("\\.\\.\\d{4}_\\d{2}_\\d{2}_\\d{2}_\\d{2}_\\d{2}\\..+"), dataDir);
    assertEquals("fast", exec(kubectl, "cm-0", "cat", "/single/mode"));
    Kubectl.Result write = kubectl.run("exec", "cm-0", "--", "sh", "-c", "echo x > /cfg/new");
    assertNotEquals(0, write.code(), "mounted read-only: " + write);

    kubectl.run("patch", "configmap", "app", "--type=merge", "-p", "{\"data\":{\"mode\":\"slow\",\"extra\":\"e\"}}").ok();
    awaitExec(kubectl, "cm-0", "slow", "cat", "/cfg/mode");
    awaitExec(kubectl, "cm-0", "e", "cat", "/cfg/extra");
    awaitExec(kubectl, "cm-0", "slow", "cat", "/items/conf/mode.txt");
    assertNotEquals(dataDir, exec(kubectl, "cm-0", "readlink", "/cfg/..data"), "..data switched to a new directory");
    assertEquals("fast", exec(kubectl, "cm-0", "cat", "/single/mode"), "a subPath mount is not updated (as upstream)");
    assertEquals(0, api.pod(ns, "cm-0").at("/status/containerStatuses/0/restartCount").asInt(), "seen without a restart");
  }

  @Test
  void aSecretVolumeHasItsItemsWithTheirModesAndTheFsGroup(@Namespace String ns) throws Exception {
    Kubectl kubectl = kubectl(ns);
    kubectl.run("create", "secret", "generic", "db", "--from-literal=user=admin", "--from-literal=password=pw-" + ns).ok();
    api.createSet(ns, set("sec", """
        securityContext: {runAsUser: 1000, runAsGroup: 1000, fsGroup: 2000}
        volumes:
        - {name: creds, secret: {secretName: db, defaultMode: 256, items: [{key: user, path: user}, {key: password, path: p/pw, mode: 384}]}}
        - {name: plain, secret: {secretName: db}}
        containers:
        - name: main
          image: local
          command: [sleep, "3600"]
          volumeMounts:
          - {name: creds, mountPath: /creds}
          - {name: plain, mountPath: /plain}
        """));
    api.awaitConverged(ns, "sec", 1, TIMEOUT);

    // The kubelet's ownership for a read-only volume with an fsGroup: group fsGroup, group-readable.
    assertEquals("admin", exec(kubectl, "sec-0", "cat", "/creds/user"));
    assertEquals("440 0 2000", exec(kubectl, "sec-0", "stat", "-L", "-c", "%a %u %g", "/creds/user"));
    assertEquals("pw-" + ns, exec(kubectl, "sec-0", "cat", "/creds/p/pw"));
    assertEquals("640 0 2000", exec(kubectl, "sec-0", "stat", "-L", "-c", "%a %u %g", "/creds/p/pw"));
    assertEquals("644", exec(kubectl, "sec-0", "stat", "-L", "-c", "%a", "/plain/password"), "upstream's defaultMode");
    assertEquals("password\nuser", exec(kubectl, "sec-0", "ls", "/plain"));

    kubectl.run("patch", "secret", "db", "--type=merge", "-p", "{\"stringData\":{\"user\":\"root\"}}").ok();
    awaitExec(kubectl, "sec-0", "root", "cat", "/creds/user");
  }

  @Test
  void aMissingConfigMapHoldsThePodInContainerCreatingWithAFailedMountEventUntilItExists(@Namespace String ns) throws Exception {
    Kubectl kubectl = kubectl(ns);
    api.createSet(ns, set("late", """
        volumes:
        - {name: conf, configMap: {name: late}}
        - {name: maybe, configMap: {name: absent, optional: true}}
        - {name: some, secret: {secretName: absent, optional: true, items: [{key: k, path: k}]}}
        containers:
        - name: main
          image: local
          command: [sleep, "3600"]
          volumeMounts:
          - {name: conf, mountPath: /conf}
          - {name: maybe, mountPath: /maybe}
          - {name: some, mountPath: /some}
        """));
    String pod = Paths.pod(ns, "late-0");
    JsonNode waiting = api.await(pod, TIMEOUT, r -> r.code() == 200
        && "ContainerCreating".equals(r.json().at("/status/containerStatuses/0/state/waiting/reason").asText()));
    assertEquals("Pending", waiting.at("/status/phase").asText(), waiting.toString());
    String expected = "MountVolume.SetUp failed for volume \"conf\" : configmap \"late\" not found";
    awaitEvent(ns, "late-0", "FailedMount", expected);
    Api.sleep(3000);
    assertEquals("ContainerCreating", api.pod(ns, "late-0").at("/status/containerStatuses/0/state/waiting/reason").asText(),
        "still waiting after a retry");

    kubectl.run("create", "configmap", "late", "--from-literal=k=v").ok();
    api.awaitConverged(ns, "late", 1, TIMEOUT);
    assertEquals("v", exec(kubectl, "late-0", "cat", "/conf/k"));
    assertEquals("", exec(kubectl, "late-0", "ls", "/maybe"), "an optional missing ConfigMap is an empty directory");
    assertEquals("", exec(kubectl, "late-0", "ls", "/some"), "and so are the items of an optional missing Secret");
    assertEquals("..data", exec(kubectl, "late-0", "sh", "-c", "ls -A /maybe | grep -x ..data"));

    kubectl.run("create", "configmap", "absent", "--from-literal=now=here").ok();
    awaitExec(kubectl, "late-0", "here", "cat", "/maybe/now");
  }

  @Test
  void aDownwardApiVolumeFollowsThePodsLabelsAndAnnotations(@Namespace String ns) throws Exception {
    Kubectl kubectl = kubectl(ns);
    api.createSet(ns, set("dw", """
        volumes:
        - name: info
          downwardAPI:
            items:
            - {path: name, fieldRef: {fieldPath: metadata.name}}
            - {path: namespace, fieldRef: {fieldPath: metadata.namespace}}
            - {path: uid, fieldRef: {fieldPath: metadata.uid}}
            - {path: labels, fieldRef: {fieldPath: metadata.labels}}
            - {path: tier, fieldRef: {fieldPath: "metadata.labels['tier']"}}
            - {path: note, fieldRef: {fieldPath: "metadata.annotations['note']"}}
            - {path: mem, resourceFieldRef: {containerName: main, resource: limits.memory, divisor: 1Mi}}
            - {path: cpu, resourceFieldRef: {containerName: main, resource: requests.cpu, divisor: 1m}}
        containers:
        - name: main
          image: local
          command: [sleep, "3600"]
          resources: {limits: {memory: 64Mi, cpu: 500m}, requests: {cpu: 250m}}
          volumeMounts:
          - {name: info, mountPath: /info}
        """));
    api.awaitConverged(ns, "dw", 1, TIMEOUT);
    JsonNode pod = api.pod(ns, "dw-0");

    assertEquals("dw-0", exec(kubectl, "dw-0", "cat", "/info/name"));
    assertEquals(ns, exec(kubectl, "dw-0", "cat", "/info/namespace"));
    assertEquals(pod.at("/metadata/uid").asText(), exec(kubectl, "dw-0", "cat", "/info/uid"));
    assertEquals("64", exec(kubectl, "dw-0", "cat", "/info/mem"));
    assertEquals("250", exec(kubectl, "dw-0", "cat", "/info/cpu"));
    assertEquals("", exec(kubectl, "dw-0", "cat", "/info/tier"));
    String labels = exec(kubectl, "dw-0", "cat", "/info/labels");
    assertTrue(labels.contains("app=\"dw\""), labels);

    kubectl.run("label", "pod", "dw-0", "tier=gold").ok();
    kubectl.run("annotate", "pod", "dw-0", "note=hello \"world\"").ok();
    awaitExec(kubectl, "dw-0", "gold", "cat", "/info/tier");
    awaitExec(kubectl, "dw-0", "hello \"world\"", "cat", "/info/note");
    labels = exec(kubectl, "dw-0", "cat", "/info/labels");
    assertTrue(labels.contains("app=\"dw\"") && labels.contains("tier=\"gold\""), labels);
    assertTrue(labels.indexOf("app=") < labels.indexOf("tier="), "one line per label, by key: " + labels);
  }

  @Test
  void aProjectedVolumeCombinesAConfigMapASecretAndTheDownwardApiAndRefusesServiceAccountTokens(@Namespace String ns)
      throws Exception {
    Kubectl kubectl = kubectl(ns);
    kubectl.run("create", "configmap", "app", "--from-literal=mode=fast").ok();
    kubectl.run("create", "secret", "generic", "db", "--from-literal=user=admin").ok();
    api.createSet(ns, set("pj", """
        volumes:
        - name: all
          projected:
            defaultMode: 292
            sources:
            - configMap: {name: app, items: [{key: mode, path: config/mode}]}
            - secret: {name: db, items: [{key: user, path: secret/user, mode: 260}]}
            - downwardAPI: {items: [{path: pod/name, fieldRef: {fieldPath: metadata.name}}]}
            - configMap: {name: absent, optional: true}
        containers:
        - name: main
          image: local
          command: [sleep, "3600"]
          volumeMounts:
          - {name: all, mountPath: /all}
        """));
    api.createSet(ns, set("tok", """
        volumes:
        - name: token
          projected:
            sources:
            - serviceAccountToken: {path: token, expirationSeconds: 3600}
        containers:
        - name: main
          image: local
          command: [sleep, "3600"]
          volumeMounts:
          - {name: token, mountPath: /token}
        """));
    api.awaitConverged(ns, "pj", 1, TIMEOUT);

    assertEquals("fast", exec(kubectl, "pj-0", "cat", "/all/config/mode"));
    assertEquals("444", exec(kubectl, "pj-0", "stat", "-L", "-c", "%a", "/all/config/mode"));
    assertEquals("admin", exec(kubectl, "pj-0", "cat", "/all/secret/user"));
    assertEquals("404", exec(kubectl, "pj-0", "stat", "-L", "-c", "%a", "/all/secret/user"));
    assertEquals("pj-0", exec(kubectl, "pj-0", "cat", "/all/pod/name"));
    assertEquals("config\npod\nsecret", exec(kubectl, "pj-0", "ls", "/all"));

    kubectl.run("patch", "configmap", "app", "--type=merge", "-p", "{\"data\":{\"mode\":\"slow\"}}").ok();
    awaitExec(kubectl, "pj-0", "slow", "cat", "/all/config/mode");

    // The service mints no tokens for a pod's service account: refused, said so, the pod never starts.
    awaitEvent(ns, "tok-0", "FailedMount", "MountVolume.SetUp failed for volume \"token\" : serviceAccountToken projection"
        + " is not supported by the local driver: it cannot mint a token for the pod's service account (path \"token\")");
    assertEquals("ContainerCreating", api.pod(ns, "tok-0").at("/status/containerStatuses/0/state/waiting/reason").asText());
  }

  /**
   * On a service of its own, stopped and started again: the re-adopted pod keeps its files (its
   * container is not restarted), and the next run's sync carries a later update to it.
   */
  @Test
  void aReAdoptedPodKeepsItsConfigMapVolumeAndFollowsUpdatesAfterAServiceRestart(@Namespace String ns) throws Exception {
    try (OrdinalService own = new OrdinalService("volumes-restart")) {
      own.start();
      Api api = own.api();
      Kubectl kubectl = new Kubectl(api.base(), api.caCertificate(), api.token(), ns);
      kubectl.run("create", "configmap", "app", "--from-literal=mode=fast").ok();
      api.createSet(ns, set("re", """
          volumes:
          - {name: conf, configMap: {name: app}}
          containers:
          - name: main
            image: local
            command: [sleep, "3600"]
            volumeMounts:
            - {name: conf, mountPath: /conf}
          """));
      api.awaitConverged(ns, "re", 1, TIMEOUT);
      String containerId = api.pod(ns, "re-0").at("/status/containerStatuses/0/containerID").asText();
      assertEquals("fast", exec(kubectl, "re-0", "cat", "/conf/mode"));

      own.stop(); // the pod keeps running, and the next run re-adopts it
      own.start();
      api.awaitConverged(ns, "re", 1, TIMEOUT);
      assertEquals("fast", exec(kubectl, "re-0", "cat", "/conf/mode"));
      kubectl.run("patch", "configmap", "app", "--type=merge", "-p", "{\"data\":{\"mode\":\"slow\"}}").ok();
      awaitExec(kubectl, "re-0", "slow", "cat", "/conf/mode");
      assertEquals(containerId, api.pod(ns, "re-0").at("/status/containerStatuses/0/containerID").asText(), "adopted, not restarted");
    }
  }

  /**
   * A one-replica local set whose pod spec is {@code podSpec} (YAML), labelled app={@code name}. Modes
   * are decimal there (292 is 0444, 388 is 0604, 260 is 0404, 256 is 0400, 384 is 0600): YAML 1.1 and 1.2 read a
   * leading 0 differently. Without an fsGroup the files are root's, and the container's default user
   * is not root: these modes let others read.
   */
  private static ObjectNode set(String name, String podSpec) throws Exception {
    ObjectNode set = (ObjectNode) KubeJson.YAML.readTree("""
        apiVersion: apps/v1
        kind: StatefulSet
        metadata:
          name: %1$s
          annotations: {ordinal.io/driver: local}
        spec:
          serviceName: %1$s
          replicas: 1
          selector: {matchLabels: {app: %1$s}}
          template:
            metadata: {labels: {app: %1$s}}
            spec: {}
        """.formatted(name));
    ObjectNode spec = (ObjectNode) KubeJson.YAML.readTree(podSpec);
    spec.put("terminationGracePeriodSeconds", 2);
    ((ObjectNode) set.at("/spec/template")).set("spec", spec);
    return set;
  }

  /** What {@code command} prints in the pod's container, without its trailing newline. */
  private static String exec(Kubectl kubectl, String pod, String... command) {
    Kubectl.Result result = kubectl.run(concat(new String[] {"exec", pod, "--"}, command));
    assertEquals(0, result.code(), String.join(" ", command) + ": " + result);
    return result.out().strip();
  }

  /** Waits until {@code command} prints {@code expected}: an update reaches the running container. */
  private static void awaitExec(Kubectl kubectl, String pod, String expected, String... command) {
    Instant deadline = Instant.now().plus(UPDATE_SEEN);
    String last = null;
    while (Instant.now().isBefore(deadline)) {
      Kubectl.Result result = kubectl.run(concat(new String[] {"exec", pod, "--"}, command));
      last = result.out().strip();
      if (result.code() == 0 && last.equals(expected)) {
        return;
      }
      Api.sleep(500);
    }
    throw new AssertionError(String.join(" ", command) + ": expected \"" + expected + "\" within " + UPDATE_SEEN + ", last \"" + last + "\"");
  }

  private static String[] concat(String[] a, String[] b) {
    String[] all = new String[a.length + b.length];
    System.arraycopy(a, 0, all, 0, a.length);
    System.arraycopy(b, 0, all, a.length, b.length);
    return all;
  }

  private static void awaitEvent(String ns, String pod, String reason, String message) {
    Instant deadline = Instant.now().plus(TIMEOUT);
    while (Instant.now().isBefore(deadline)) {
      for (JsonNode event : api.events(ns)) {
        if (event.at("/involvedObject/name").asText().equals(pod) && event.path("reason").asText().equals(reason)
            && event.path("message").asText().equals(message) && event.path("type").asText().equals("Warning")) {
          return;
        }
      }
      Api.sleep(500);
    }
    throw new AssertionError("no " + reason + " event \"" + message + "\" for " + pod + " in " + api.events(ns));
  }

  private static Kubectl kubectl(String ns) {
    return new Kubectl(api.base(), api.caCertificate(), api.token(), ns);
  }
}
