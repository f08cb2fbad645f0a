package io.ordinal.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.ordinal.store.KubeJson;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The local driver with real processes: readiness, restarts, probes, storage, network identity, termination. */
@E2eTest
class LocalDriverIT {
  static final Duration TIMEOUT = Duration.ofSeconds(90);
  static Api api;
  static OrdinalService service;

  static String fetch(String url) throws Exception {
    return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(5)).build(),
        HttpResponse.BodyHandlers.ofString()).body();
  }

  @Test
  void orderedStartIsGatedByHttpReadinessAndPodsShareAContainerPort(@Namespace String ns) throws Exception {
    api.createSet(ns, Manifests.httpSet("http", 3));
    api.awaitConverged(ns, "http", 3, TIMEOUT);
    for (int i = 1; i < 3; i++) {
      long waited = Pods.created(api.pod(ns, "http-" + i)) - Pods.readySince(api.pod(ns, "http-" + (i - 1)));
      assertTrue(waited >= 0, "http-" + i + " created before http-" + (i - 1) + " was Ready");
    }
    List<String> ips = List.of(0, 1, 2).stream().map(i -> api.pod(ns, "http-" + i).at("/status/podIP").asText()).toList();
    assertEquals(3, ips.stream().distinct().count(), ips.toString());
    for (int i = 0; i < 3; i++) {
      // Each member serves its own PVC (mounted at /data) on port 8080 of its own address.
      assertEquals("http-" + i, fetch("http://" + ips.get(i) + ":8080/whoami").trim());
      assertTrue(Files.exists(service.dataDir.resolve("local/volumes/" + ns + "/data-http-" + i + "/whoami")));
    }
    JsonNode endpoints = api.get(Paths.core(ns, "endpoints/http")).json();
    assertEquals(ips, List.of(0, 1, 2).stream().map(i -> endpoints.at("/subsets/0/addresses/" + i + "/ip").asText()).toList());
    assertEquals("http-1", endpoints.at("/subsets/0/addresses/1/hostname").asText());
    assertEquals(8080, endpoints.at("/subsets/0/ports/0/port").asInt());
    assertEquals(404, api.get(Paths.core(ns, "endpoints/nothing")).code());
    // Stable names resolve inside the pods through their hosts file.
    String hosts = Files.readString(service.dataDir.resolve("local/hosts/" + ns + "/http-0"));
    assertTrue(hosts.contains(ips.get(2) + "\thttp-2 http-2.http http-2.http." + ns + ".svc.cluster.local"), hosts);
  }

  @Test
  void pvcDataAndAddressSurvivePodDeletionAndScaleDownUp(@Namespace String ns) throws Exception {
    ObjectNode set = Manifests.httpSet("keep", 2);
    ((ArrayNode) set.at("/spec/template/spec/containers/0/command")).set(2, KubeJson.JSON.getNodeFactory().textNode(
        "echo $(POD_NAME) > /data/whoami; echo start >> /data/starts; cd /data && exec python3 -m http.server 8080 --bind $(POD_IP)"));
    api.createSet(ns, set);
    api.awaitConverged(ns, "keep", 2, TIMEOUT);
    String ip1 = api.pod(ns, "keep-1").at("/status/podIP").asText();
    String uid1 = api.pod(ns, "keep-1").at("/metadata/uid").asText();

    assertEquals(200, api.delete(Paths.pod(ns, "keep-1")).code());
    api.await(Paths.pod(ns, "keep-1"), TIMEOUT,
        r -> r.code() == 200 && !r.json().at("/metadata/uid").asText().equals(uid1) && r.json().at("/status/containerStatuses/0/ready").asBoolean());
    assertEquals(ip1, api.pod(ns, "keep-1").at("/status/podIP").asText());
    assertEquals("start\nstart\n", fetch("http://" + ip1 + ":8080/starts"));

    api.patchSet(ns, "keep", "{\"spec\":{\"replicas\":1}}");
    api.awaitConverged(ns, "keep", 1, TIMEOUT);
    api.patchSet(ns, "keep", "{\"spec\":{\"replicas\":2}}");
    api.awaitConverged(ns, "keep", 2, TIMEOUT);
    assertEquals(ip1, api.pod(ns, "keep-1").at("/status/podIP").asText());
    assertEquals("start\nstart\nstart\n", fetch("http://" + ip1 + ":8080/starts"));
  }

  /**
   * Upstream's "basic identity" (statefulset e2e): each pod writes its hostname and FQDN into its
   * volume on its first start only; after a scale to zero and back every pod finds its own original
   * name there again. On a service of its own, which is restarted at the end: re-adopted pods keep
   * their names, and kubectl exec (which joins the container's UTS namespace) sees them.
   */
  @Test
  void podHostnameIsItsNameAndSurvivesScaleToZeroAndBack(@Namespace String ns) throws Exception {
    try (OrdinalService own = new OrdinalService("identity")) {
      own.start();
      Api api = own.api();
      ObjectNode set = Manifests.httpSet("id", 3);
      ObjectNode container = (ObjectNode) set.at("/spec/template/spec/containers/0");
      ((ArrayNode) container.get("command")).set(2, KubeJson.JSON.getNodeFactory().textNode(
          "[ -f /data/hostname ] || { hostname > /data/hostname; hostname -f > /data/fqdn; };"
              + " hostname >> /data/hostnames; echo \"$HOSTNAME\" > /data/env; exec sleep 100000"));
      // An exec probe: Ready only when the probe, too, runs under the pod's name.
      container.putObject("readinessProbe").put("periodSeconds", 1).putObject("exec").putArray("command")
          .add("/bin/sh").add("-c").add("test \"$(hostname)\" = \"$POD_NAME\" && test -s /data/fqdn");
      api.createSet(ns, set);
      api.awaitConverged(ns, "id", 3, TIMEOUT);
      for (int i = 0; i < 3; i++) {
        assertEquals("id-" + i + "\n", volumeFile(own, ns, i, "hostname"));
        assertEquals("id-" + i + ".id." + ns + ".svc.cluster.local\n", volumeFile(own, ns, i, "fqdn"));
        assertEquals("id-" + i + "\n", volumeFile(own, ns, i, "env"), "HOSTNAME is the pod's hostname");
      }

      api.patchSet(ns, "id", "{\"spec\":{\"replicas\":0}}");
      api.awaitConverged(ns, "id", 0, TIMEOUT); // every pod gone, its processes ended
      api.patchSet(ns, "id", "{\"spec\":{\"replicas\":3}}");
      api.awaitConverged(ns, "id", 3, TIMEOUT);
      Kubectl kubectl = new Kubectl(api.base(), api.caCertificate(), api.token(), ns);
      for (int i = 0; i < 3; i++) {
        String pod = "id-" + i;
        assertEquals(pod + "\n", volumeFile(own, ns, i, "hostname"), "each pod finds its own volume again");
        assertEquals(pod + "\n" + pod + "\n", volumeFile(own, ns, i, "hostnames"), "and has its name on both starts");
        assertEquals(pod + "\n", kubectl.run("exec", pod, "--", "hostname").ok().out());
        assertEquals(pod + ".id." + ns + ".svc.cluster.local\n", kubectl.run("exec", pod, "--", "hostname", "-f").ok().out());
      }

      own.stop(); // the pods keep running, and the next run re-adopts them
      own.start();
      api.awaitConverged(ns, "id", 3, TIMEOUT);
      for (int i = 0; i < 3; i++) {
        assertEquals("id-" + i + "\n", kubectl.run("exec", "id-" + i, "--", "hostname").ok().out());
        assertEquals("id-" + i + "\n" + "id-" + i + "\n", volumeFile(own, ns, i, "hostnames"), "adopted, not restarted");
      }
    }
  }

  private static String volumeFile(OrdinalService service, String ns, int ordinal, String file) throws Exception {
    return Files.readString(service.dataDir.resolve("local/volumes/" + ns + "/data-id-" + ordinal + "/" + file));
  }

  @Test
  void rollingUpdateReplacesProcessesHighestFirstKeepsVolumesAndUndoRecoversFromABrokenRevision(@Namespace String ns) throws Exception {
    ObjectNode set = Manifests.httpSet("roll", 3);
    setCommand(set, "v1");
    api.createSet(ns, set);
    String v1 = api.awaitConverged(ns, "roll", 3, TIMEOUT).at("/status/currentRevision").asText();

    setCommand(set, "v2");
    assertEquals(200, api.put(Paths.set(ns, "roll"), "application/json", KubeJson.write(set)).code());
    JsonNode rolled = api.await(Paths.set(ns, "roll") + "/rollout/status", TIMEOUT,
        r -> r.json().path("phase").asText().equals("Complete") && !r.json().path("currentRevision").asText().equals(v1));
    String v2 = rolled.path("currentRevision").asText();
    assertEquals(List.of("-roll-2", "+roll-2", "-roll-1", "+roll-1", "-roll-0", "+roll-0"),
        api.podOperations(ns).subList(3, 9));
    for (int i = 0; i < 3; i++) {
      String ip = api.pod(ns, "roll-" + i).at("/status/podIP").asText();
      assertEquals("v2", fetch("http://" + ip + ":8080/version").trim());
      assertEquals("v1\nv2\n", fetch("http://" + ip + ":8080/versions"), "the PVC outlived the v1 process");
    }

    // A revision whose server never starts: the rollout gets stuck on roll-2, and undo recovers.
    ((ArrayNode) set.at("/spec/template/spec/containers/0/command")).set(2,
        KubeJson.JSON.getNodeFactory().textNode("exec sleep 100000"));
    assertEquals(200, api.put(Paths.set(ns, "roll"), "application/json", KubeJson.write(set)).code());
    api.await(Paths.pod(ns, "roll-2"), TIMEOUT, r -> r.code() == 200
        && !r.json().at("/metadata/labels/controller-revision-hash").asText().equals(v2)
        && r.json().at("/status/phase").asText().equals("Running"));
    Api.sleep(2_000);
    assertEquals("v2", fetch("http://" + api.pod(ns, "roll-1").at("/status/podIP").asText() + ":8080/version").trim(),
        "roll-1 is not touched while roll-2 is not Ready");
    assertEquals(200, api.post(Paths.set(ns, "roll") + "/rollout/undo", null, null).code());
    JsonNode back = api.awaitConverged(ns, "roll", 3, TIMEOUT);
    assertEquals(v2, back.at("/status/currentRevision").asText());
    assertEquals("v2", fetch("http://" + api.pod(ns, "roll-2").at("/status/podIP").asText() + ":8080/version").trim());
  }

  /** Each start records its version in the pod's volume, then serves the volume. */
  static void setCommand(ObjectNode set, String version) {
    ((ArrayNode) set.at("/spec/template/spec/containers/0/command")).set(2, KubeJson.JSON.getNodeFactory().textNode(
        "echo $(POD_NAME) > /data/whoami; echo " + version + " > /data/version; echo " + version + " >> /data/versions;"
            + " cd /data && exec python3 -m http.server 8080 --bind $(POD_IP)"));
  }

  @Test
  void crashedContainerRestartsWithBackOffAndCountsRestarts(@Namespace String ns) {
    api.createSet(ns, Manifests.commandSet("crash", 1, "/bin/sh", "-c", "echo run $(POD_NAME); sleep 1; exit 3"));
    JsonNode backingOff = api.await(Paths.pod(ns, "crash-0"), TIMEOUT,
        r -> r.code() == 200 && "CrashLoopBackOff".equals(r.json().at("/status/containerStatuses/0/state/waiting/reason").asText()));
    assertEquals(3, backingOff.at("/status/containerStatuses/0/lastState/terminated/exitCode").asInt());
    JsonNode restarted = api.await(Paths.pod(ns, "crash-0"), TIMEOUT,
        r -> r.code() == 200 && r.json().at("/status/containerStatuses/0/restartCount").asInt() >= 1
            && r.json().at("/status/containerStatuses/0/state/running").isObject());
    Instant finished = Instant.parse(restarted.at("/status/containerStatuses/0/lastState/terminated/finishedAt").asText());
    Instant started = Instant.parse(restarted.at("/status/containerStatuses/0/state/running/startedAt").asText());
    assertTrue(Duration.between(finished, started).toMillis() >= 9_900, "restarted after " + Duration.between(finished, started));
    Api.Reply previous = api.get(Paths.pod(ns, "crash-0") + "/log?previous=true");
    assertEquals(200, previous.code());
    assertEquals("run crash-0\n", previous.body());
    // The restarted shell may not have printed yet: wait for this run's line.
    String current = Paths.pod(ns, "crash-0") + "/log?container=nginx&tailLines=1";
    for (int i = 0; i < 100 && !api.get(current).body().equals("run crash-0\n"); i++) {
      Api.sleep(100);
    }
    assertEquals("run crash-0\n", api.get(current).body());
    assertEquals(400, api.get(Paths.pod(ns, "crash-0") + "/log?container=nope").code());
    api.delete(Paths.set(ns, "crash"));
  }

  @Test
  void aContainerDiedIsStartedAgainAsANewContainerOfTheRuntime(@Namespace String ns) throws Exception {
    api.createSet(ns, Manifests.commandSet("stray", 1, "/bin/sleep", "100000"));
    api.awaitConverged(ns, "stray", 1, TIMEOUT);
    String first = api.pod(ns, "stray-0").at("/status/containerStatuses/0/containerID").asText();
    assertTrue(first.startsWith("runc://" + ns + "_stray-0_nginx_"), first);
    ProcessHandle.of(service.containerPid(first)).orElseThrow().destroyForcibly(); // the container dies: it is restarted
    JsonNode restarted = api.await(Paths.pod(ns, "stray-0"), TIMEOUT, r -> r.code() == 200
        && r.json().at("/status/containerStatuses/0/restartCount").asInt() == 1
        && r.json().at("/status/containerStatuses/0/state/running").isObject());
    String second = restarted.at("/status/containerStatuses/0/containerID").asText();
    assertNotEquals(first, second, "a new container");
    // The status shows the runtime started; the container appears in its list a moment later.
    List<String> expected = List.of(second.substring("runc://".length()));
    List<String> ids = List.of();
    for (Instant deadline = Instant.now().plusSeconds(10); !ids.equals(expected) && Instant.now().isBefore(deadline); ) {
      ids = service.localContainers().stream().map(c -> c.path("id").asText())
          .filter(id -> id.startsWith(ns + "_stray-0_nginx_")).toList();
      Api.sleep(50);
    }
    assertEquals(expected, ids, "one container of stray-0's nginx");
  }

  @Test
  void failingLivenessProbeRestartsTheContainer(@Namespace String ns) {
    ObjectNode set = Manifests.commandSet("live", 1, "/bin/sleep", "1000");
    ((ObjectNode) set.at("/spec/template/spec/containers/0")).putObject("livenessProbe")
        .put("periodSeconds", 1).put("failureThreshold", 2).put("initialDelaySeconds", 1)
        .putObject("exec").putArray("command").add("/bin/false");
    api.createSet(ns, set);
    api.await(Paths.pod(ns, "live-0"), TIMEOUT,
        r -> r.code() == 200 && r.json().at("/status/containerStatuses/0/lastState/terminated").isObject());
    assertTrue(api.events(ns).stream().anyMatch(e -> e.path("reason").asText().equals("Unhealthy")));
    api.delete(Paths.set(ns, "live"));
  }

  @Test
  void failingReadinessProbeBlocksTheNextOrdinal(@Namespace String ns) {
    ObjectNode set = Manifests.commandSet("never", 2, "/bin/sleep", "1000");
    ((ObjectNode) set.at("/spec/template/spec/containers/0")).putObject("readinessProbe")
        .put("periodSeconds", 1).putObject("tcpSocket").put("port", 9);
    api.createSet(ns, set);
    api.await(Paths.pod(ns, "never-0"), TIMEOUT,
        r -> r.code() == 200 && r.json().at("/status/phase").asText().equals("Running"));
    Api.sleep(4_000);
    JsonNode first = api.pod(ns, "never-0");
    assertFalse(first.at("/status/containerStatuses/0/ready").asBoolean());
    assertEquals(404, api.get(Paths.pod(ns, "never-1")).code());
    api.delete(Paths.set(ns, "never"));
  }

  @Test
  void terminationRunsPreStopThenSigtermAndKillsAfterTheGracePeriod(@Namespace String ns) throws Exception {
    // The container logs SIGTERM but does not exit: it must be killed when the 2 s grace period ends.
    ObjectNode set = Manifests.commandSet("term", 1, "/bin/sh", "-c",
        "trap 'echo TERM >> /data/trace' TERM; while true; do sleep 0.1; done");
    ObjectNode container = (ObjectNode) set.at("/spec/template/spec/containers/0");
    container.putArray("volumeMounts").addObject().put("name", "www").put("mountPath", "/data");
    container.putObject("lifecycle").putObject("preStop").putObject("exec").putArray("command")
        .add("/bin/sh").add("-c").add("echo preStop >> /data/trace");
    api.createSet(ns, set);
    api.awaitConverged(ns, "term", 1, TIMEOUT);
    Instant deleted = Instant.now();
    assertEquals(200, api.delete(Paths.pod(ns, "term-0")).code());
    api.await(Paths.core(ns, "events"), TIMEOUT, r -> r.body().contains("did not stop within the grace period"));
    assertTrue(Duration.between(deleted, Instant.now()).toMillis() >= 2_000);
    assertEquals("preStop\nTERM\n", Files.readString(service.dataDir.resolve("local/volumes/" + ns + "/www-term-0/trace")));
    api.delete(Paths.set(ns, "term"));
  }

  @Test
  void followStreamsTheLogAsItIsWritten(@Namespace String ns) throws Exception {
    api.createSet(ns, Manifests.commandSet("tick", 1,
        "/bin/sh", "-c", "i=0; while true; do i=$((i+1)); echo tick $i; sleep 0.2; done"));
    api.awaitConverged(ns, "tick", 1, TIMEOUT);
    var response = api.client().send(api.request(Paths.pod(ns, "tick-0") + "/log?follow=true&tailLines=1")
        .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofLines());
    assertEquals(200, response.statusCode());
    try (var lines = response.body()) {
      List<Integer> ticks = lines.limit(5).map(l -> Integer.parseInt(l.substring("tick ".length()))).toList();
      for (int i = 1; i < ticks.size(); i++) {
        assertEquals(ticks.get(i - 1) + 1, ticks.get(i), ticks.toString()); // consecutive: streamed, not re-read
      }
    }
    api.delete(Paths.set(ns, "tick"));
  }

  @Test
  void memoryAndCpuLimitsAreEnforcedWithCgroups(@Namespace String ns) throws Exception {
    ObjectNode set = Manifests.commandSet("hog", 1, "/usr/bin/python3", "-c",
        "import time; time.sleep(0.5); a = bytearray(400 * 1024 * 1024); time.sleep(1000)");
    ((ObjectNode) set.at("/spec/template/spec/containers/0")).putObject("resources").putObject("limits")
        .put("memory", "64Mi").put("cpu", "500m");
    api.createSet(ns, set);
    JsonNode killed = api.await(Paths.pod(ns, "hog-0"), TIMEOUT,
        r -> r.code() == 200 && r.json().at("/status/containerStatuses/0/lastState/terminated").isObject());
    assertEquals("OOMKilled", killed.at("/status/containerStatuses/0/lastState/terminated/reason").asText());
    assertEquals(137, killed.at("/status/containerStatuses/0/lastState/terminated/exitCode").asInt());
    Path cpu = Path.of("/sys/fs/cgroup/cpu/ordinal");
    if (Files.isDirectory(cpu)) { // cgroup v1 (cgroup v2 writes cpu.max instead)
      try (var groups = Files.list(cpu)) {
        Path group = groups.filter(p -> p.getFileName().toString().startsWith(ns + "_hog-0_nginx_")).findFirst().orElseThrow();
        assertEquals("50000", Files.readString(group.resolve("cpu.cfs_quota_us")).trim());
      }
    }
    api.delete(Paths.set(ns, "hog"));
  }

  @Test
  void initContainersRunInOrderBeforeTheAppAndAStartupProbeGatesReadiness(@Namespace String ns) throws Exception {
    ObjectNode set = Manifests.commandSet("init", 1, "/bin/sh", "-c",
        "cat /work/steps > /work/seen-by-app; sleep 1; touch /work/started; exec sleep 1000");
    ObjectNode spec = (ObjectNode) set.at("/spec/template/spec");
    ObjectNode app = (ObjectNode) spec.at("/containers/0");
    app.putArray("volumeMounts").addObject().put("name", "www").put("mountPath", "/work");
    app.putObject("startupProbe").put("periodSeconds", 1).put("failureThreshold", 30)
        .putObject("exec").putArray("command").add("/usr/bin/test").add("-f").add("/work/started");
    ArrayNode inits = spec.putArray("initContainers");
    for (String step : List.of("first", "second")) {
      ObjectNode init = inits.addObject().put("name", step).put("image", "busybox");
      init.putArray("command").add("/bin/sh").add("-c").add("sleep 0.3; echo " + step + " >> /work/steps");
      init.putArray("volumeMounts").addObject().put("name", "www").put("mountPath", "/work");
    }
    api.createSet(ns, set);
    JsonNode ready = api.awaitConverged(ns, "init", 1, TIMEOUT);
    assertEquals(1, ready.at("/status/readyReplicas").asInt());
    Path volume = service.dataDir.resolve("local/volumes/" + ns + "/www-init-0");
    assertEquals("first\nsecond\n", Files.readString(volume.resolve("seen-by-app")));
    JsonNode pod = api.pod(ns, "init-0");
    long readyAfter = Pods.readySince(pod) - Pods.started(pod);
    assertTrue(readyAfter >= 1_000, "Ready " + readyAfter + " ms after start, before the startup probe could pass");
    api.delete(Paths.set(ns, "init"));
  }

  @Test
  void podsAreRejectedWithoutACommand(@Namespace String ns) {
    ObjectNode set = Manifests.web("nocmd", 1, 0, Map.of());
    ((ObjectNode) set.get("metadata")).putObject("annotations").put("ordinal.io/driver", "local");
    Api.Reply reply = api.post(Paths.sets(ns), "application/json", KubeJson.write(set));
    assertEquals(422, reply.code());
    assertEquals("spec.template.spec.containers[0].command", reply.json().at("/details/causes/0/field").asText());
    assertNotEquals("", reply.json().at("/details/causes/0/message").asText());
  }
}
