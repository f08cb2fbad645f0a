package io.ordinal.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.ordinal.store.KubeJson;
import java.io.IOException;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The attacks of issue #27, each replayed by a user bound to {@code edit} in one namespace, under
 * the default Pod Security level (baseline), against local-driver pods (runc sandboxes): each is
 * refused at admission or runs and does no harm. Assertions are on effects: files on the machine,
 * tokens in logs, host uids in /proc, what a pod's connections reached (written to its log).
 *
 * <p>The installation under attack is one of its own: the API listens on every address
 * ({@code ORDINAL_BIND_ADDRESS=0.0.0.0}, so pods reach it, as pods reach a cluster's apiserver) and
 * the Temporal Web UI runs, so every port an installation can have is there to be tried. Attacks 10
 * (codec size) and 11 (a deleted namespace's RoleBindings) are PayloadCodecIT's and
 * NamespaceDeletionIT's; docs/SECURITY.md maps each attack to its test.
 *
 * <p>The last four attacks are the holes this suite found after the first twelve were closed (a
 * subPath swapped after its check, the ownership and deletion walks racing a pod's symlinks, probe
 * hosts): each test asserts the safe behaviour, and failed before its fix.
 */
@E2eTest
class SecurityIT {
  static final Duration TIMEOUT = Duration.ofSeconds(90);
  static final String JSON = "application/json";
  static final int UI_PORT;
  /** The Web UI's codec (plain HTTP, loopback), at a port given, as the other ports are. */
  static final int CODEC_PORT;

  static {
    try {
      UI_PORT = OrdinalService.freePort();
      CODEC_PORT = OrdinalService.freePort();
    } catch (IOException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  /** Not a field of type OrdinalService or Api: the extension would hand it the shared service. */
  private record Installation(OrdinalService service, Api admin) {}

  private static Installation installation;

  @BeforeAll
  static void start() throws Exception {
    OrdinalService service = new OrdinalService("security", Map.of("ORDINAL_BIND_ADDRESS", "0.0.0.0",
        "ORDINAL_TEMPORAL_HEADLESS", "false", "ORDINAL_TEMPORAL_UI_PORT", Integer.toString(UI_PORT),
        "ORDINAL_CODEC_PORT", Integer.toString(CODEC_PORT)));
    service.start();
    installation = new Installation(service, service.api());
  }

  @AfterAll
  static void stop() {
    if (installation != null) {
      installation.service().close();
    }
  }

  private static OrdinalService service() {
    return installation.service();
  }

  private static Api admin() {
    return installation.admin();
  }

  // --- 1. the pod's env reaches only the container

  /**
   * BASH_ENV, LD_PRELOAD, PATH and an exported bash function in the env: before the runtime, the env
   * reached the setup shell, which ran as root (BASH_ENV ran {@code cat admin.token}). Now each
   * payload aims at the machine (paths of the data dir, a PATH into the pod's volume as the machine
   * sees it) and runs only inside the container, as its user, at every start, exec, probe and preStop.
   */
  @Test
  void envPayloadsRunOnlyInTheContainerAsItsUser(@Namespace String ns) throws Exception {
    Editor editor = editor(ns);
    Path volume = volume(ns, "data", "env");
    Path token = service().dataDir.resolve("auth/admin.token");
    String onMachine = volume.resolve("ran-on-the-machine").toString();
    ObjectNode set = localSet("env");
    claim(set, "data");
    // First run: plants programs of every name a machine-side process could look up in the PATH
    // below (the volume as the machine sees it), each leaving its uid in ran-on-the-machine, and a
    // file that is no ELF object where LD_PRELOAD points, then exits to be started again with them there.
    ObjectNode c = container(set, "c", "/bin/bash", "-c", """
        mkdir -p /data/bin
        for b in runc setsid bash sh setpriv ip catatonit env id cat sleep true nsenter; do
          printf '#!/bin/sh\\n/usr/bin/id -u >> %s\\nexec /usr/bin/%s "$@"\\n' "$MACHINE_MARK" "$b" > /data/bin/$b
          chmod 755 /data/bin/$b
        done
        printf 'not an ELF object' > /data/preload.so
        echo "container uid $(id -u)"
        if [ ! -e /data/restarted ]; then touch /data/restarted; exit 1; fi
        echo second-run
        exec sleep 100000
        """);
    mount(c, "data", "/data");
    env(c, "MACHINE_MARK", onMachine);
    env(c, "BASH_ENV", "$(cat " + token + " >&2; id -u >> /data/bash-env-uids; id -u >> " + onMachine + ")");
    env(c, "LD_PRELOAD", volume.resolve("preload.so").toString());
    env(c, "PATH", volume.resolve("bin") + ":/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
    env(c, "BASH_FUNC_exec%%", "() { id -u >> /data/func-uids; id -u >> " + onMachine + "; builtin exec \"$@\"; }");
    c.putObject("readinessProbe").put("periodSeconds", 2).putObject("exec").putArray("command")
        .add("/bin/bash").add("-c").add("true");
    c.putObject("lifecycle").putObject("preStop").putObject("exec").putArray("command")
        .add("/bin/bash").add("-c").add("echo preStop-ran");
    editor.api().createSet(ns, set);

    // The first run exits, the second (with the planted files there) runs.
    JsonNode pod = awaitPod(ns, "env-0", p -> p.at("/status/containerStatuses/0/restartCount").asInt() >= 1
        && p.at("/status/containerStatuses/0/ready").asBoolean());
    awaitLog(editor, ns, "env-0", "c", "second-run");
    Kubectl.Result exec = editor.kubectl().run("exec", "env-0", "--", "/bin/bash", "-c", "echo exec-uid $(id -u)");
    assertEquals(0, exec.code(), exec.toString());
    assertEquals("exec-uid 65534", exec.out().strip(), exec.toString());

    // Every process of the pod, as the machine sees it, is the pod's user.
    long pid = service().containerPid(pod.at("/status/containerStatuses/0/containerID").asText());
    assertAllProcessesOfThePodRunAs(pid, 65534);

    // Delete the pod (preStop runs) and let the set start it again: more runtime calls with the payloads in place.
    String uid = pod.at("/metadata/uid").asText();
    editor.kubectl().run("delete", "pod", "env-0", "--wait=true", "--timeout=60s").ok();
    awaitPod(ns, "env-0", p -> !p.at("/metadata/uid").asText().equals(uid) && p.at("/status/containerStatuses/0/ready").asBoolean());

    String log = editor.api().get(Paths.pod(ns, "env-0") + "/log?container=c").body();
    String previous = exec.err() + editor.api().get(Paths.pod(ns, "env-0") + "/log?container=c&previous=true").body();
    String adminToken = service().adminToken();
    for (String text : List.of(log, previous, exec.out(), exec.err())) {
      assertFalse(text.contains(adminToken), "the admin token leaked: " + text);
      // What the machine's loader says of the planted file; the container's finds none at that path.
      assertFalse(text.contains("invalid ELF header") || text.contains("file too short"), text);
    }
    assertTrue(log.contains(token + ": No such file or directory"), "BASH_ENV ran in the container, which has no data dir: " + log);
    assertTrue(log.contains("cannot be preloaded (cannot open shared object file)"), "LD_PRELOAD reached the container's processes: " + log);
    assertFalse(Files.exists(volume.resolve("ran-on-the-machine"), LinkOption.NOFOLLOW_LINKS),
        "nothing of the env ran on the machine: " + readIfExists(volume.resolve("ran-on-the-machine")));
    // The payloads did run, in the container (its /data), as the pod's user: at each start, exec and probe.
    assertOnly("65534", Files.readAllLines(volume.resolve("bash-env-uids")));
    assertTrue(Files.readAllLines(volume.resolve("bash-env-uids")).size() >= 4, "starts, exec and probes sourced BASH_ENV");
    assertOnly("65534", Files.readAllLines(volume.resolve("func-uids")));
    assertNoFileContains(volume, adminToken);
  }

  // --- 2, 3. ids the kernel would truncate

  @Test
  void runAsUserOutsideZeroTo2147483647IsRefusedNamingTheField(@Namespace String ns) {
    Editor editor = editor(ns);
    for (long id : List.of(-1L, 4294967296L)) {
      ObjectNode containerLevel = localSet("ids");
      container(containerLevel, "c", "/bin/sleep", "100000").putObject("securityContext").put("runAsUser", id);
      assertInvalid(editor.api().post(Paths.sets(ns), JSON, KubeJson.write(containerLevel)),
          "spec.template.spec.containers[0].securityContext.runAsUser");

      ObjectNode podLevel = localSet("ids");
      container(podLevel, "c", "/bin/sleep", "100000");
      podSpec(podLevel).putObject("securityContext").put("runAsUser", id).put("runAsGroup", id);
      assertInvalid(editor.api().post(Paths.sets(ns), JSON, KubeJson.write(podLevel)),
          "spec.template.spec.securityContext.runAsUser", "spec.template.spec.securityContext.runAsGroup");
    }
    assertEquals(404, admin().get(Paths.set(ns, "ids")).code());
  }

  // --- 4. exec cannot make the machine run something else

  @Test
  void execCannotUnshareOrMountAndRunsAsTheContainersUser(@Namespace String ns) throws Exception {
    Editor editor = editor(ns);
    String setprivBefore = sha256(Path.of("/usr/bin/setpriv"));
    ObjectNode set = localSet("ex");
    container(set, "c", "/bin/sleep", "100000");
    editor.api().createSet(ns, set);
    JsonNode pod = awaitPod(ns, "ex-0", p -> p.at("/status/containerStatuses/0/ready").asBoolean());

    // The kernel lets an unprivileged user of this machine make namespaces; the container's seccomp profile does not.
    Kubectl.Result unshare = editor.kubectl().run("exec", "ex-0", "--", "/usr/bin/unshare", "-Urm", "/bin/sh", "-c", "id -u");
    assertNotEquals(0, unshare.code(), unshare.toString());
    assertTrue(unshare.err().contains("Operation not permitted"), unshare.toString());
    // Nor mount(2) directly (util-linux's mount would refuse a non-root user before asking the kernel).
    Kubectl.Result mount = editor.kubectl().run("exec", "ex-0", "--", "/usr/bin/python3", "-c", """
        import ctypes, os
        libc = ctypes.CDLL(None, use_errno=True)
        open('/tmp/setpriv', 'w').write('#!/bin/sh\\necho pwned\\n')
        for name, call in [('unshare', lambda: libc.unshare(0x10000000 | 0x00020000)),
                           ('mount', lambda: libc.mount(b'/tmp/setpriv', b'/usr/bin/setpriv', None, 4096, None))]:
            print(name, call(), os.strerror(ctypes.get_errno()))
        """);
    assertEquals("unshare -1 Operation not permitted\nmount -1 Operation not permitted\n", mount.out(), mount.toString());

    // exec runs as the container's user: id inside, and the exec'd process as the machine sees it.
    assertEquals("65534 65534", editor.kubectl().run("exec", "ex-0", "--", "/bin/sh", "-c", "echo $(id -u) $(id -g)")
        .ok().out().strip());
    String marker = "4" + (System.nanoTime() % 100000);
    Process running = editor.kubectl().startReading("exec", "ex-0", "--", "/bin/sleep", marker);
    try {
      long container = service().containerPid(pod.at("/status/containerStatuses/0/containerID").asText());
      long exec = awaitProcess(container, "/bin/sleep\0" + marker);
      Map<String, String> status = procStatus(exec);
      assertEquals(List.of("65534", "65534", "65534", "65534"), List.of(status.get("Uid").split("\\s+")), status.toString());
      assertEquals("1", status.get("NoNewPrivs"));
      assertEquals("0000000000000000", status.get("CapEff"));
    } finally {
      running.destroyForcibly();
    }
    assertEquals(setprivBefore, sha256(Path.of("/usr/bin/setpriv")), "the machine's setpriv is untouched");
    assertEquals(setprivBefore, editor.kubectl().run("exec", "ex-0", "--", "/usr/bin/sha256sum", "/usr/bin/setpriv")
        .ok().out().split("\\s+")[0], "and so is the container's");
  }

  // --- 5. volumes over the machine's binaries

  @Test
  void aVolumeMountedOverTheMachinesProgramsChangesOnlyTheContainer(@Namespace String ns) throws Exception {
    Editor editor = editor(ns);
    String envBefore = sha256(Path.of("/usr/bin/env"));
    Set<String> localBinBefore = listing(Path.of("/usr/local/bin"));

    // Over a directory of the machine's /usr: the container sees its volume there, and writes to it.
    ObjectNode set = localSet("bins");
    podSpec(set).putArray("volumes").addObject().put("name", "tools").putObject("emptyDir");
    ObjectNode c = container(set, "c", "/bin/sh", "-c",
        "printf '#!/bin/sh\\necho planted-env\\n' > /usr/local/bin/env && chmod 755 /usr/local/bin/env && echo planted; exec sleep 100000");
    mount(c, "tools", "/usr/local/bin");
    editor.api().createSet(ns, set);
    awaitPod(ns, "bins-0", p -> p.at("/status/containerStatuses/0/ready").asBoolean());
    awaitLog(editor, ns, "bins-0", "c", "planted");
    assertEquals("planted-env", editor.kubectl().run("exec", "bins-0", "--", "env").ok().out().strip(),
        "the container runs its own env, first in its PATH");

    // Over a file of the machine's (subPath): the runtime cannot put a directory there; nothing else happens.
    ObjectNode over = localSet("over");
    claim(over, "data");
    ObjectNode o = container(over, "c", "/bin/sleep", "100000");
    mount(o, "data", "/usr/bin/env").put("subPath", "env");
    mount(o, "data", "/usr/sbin/runc").put("subPath", "runc");
    editor.api().createSet(ns, over);
    awaitPod(ns, "over-0", p -> p.at("/status/containerStatuses/0/restartCount").asInt() >= 1
        || "Failed".equals(p.at("/status/phase").asText()));

    assertEquals(envBefore, sha256(Path.of("/usr/bin/env")), "the machine's /usr/bin/env is unchanged");
    assertEquals(localBinBefore, listing(Path.of("/usr/local/bin")), "nothing was added to the machine's /usr/local/bin");
    assertTrue(Files.isDirectory(volume(ns, "data", "over").resolve("env"), LinkOption.NOFOLLOW_LINKS));
    editor.kubectl().run("delete", "statefulset", "bins", "over", "--wait=true", "--timeout=60s").ok();
    assertEquals(envBefore, sha256(Path.of("/usr/bin/env")));
  }

  // --- 6. paths that would create directories on the machine; the machine's shadow group

  @Test
  void workingDirAndMountPathsCreateNothingOnTheMachineAndShadowStaysMasked(@Namespace String ns) throws Exception {
    Editor editor = editor(ns);
    String unique = "ordinal-attack-" + UUID.randomUUID().toString().substring(0, 8);
    Path workingDir = Path.of("/var/tmp", unique, "new");
    Path dotDot = Path.of("/", unique + "-x");

    ObjectNode set = localSet("paths");
    podSpec(set).putArray("volumes").addObject().put("name", "scratch").putObject("emptyDir");
    podSpec(set).putObject("securityContext").putArray("supplementalGroups").add(42);
    ObjectNode c = container(set, "c", "/bin/sh", "-c",
        "echo cwd $(pwd); echo shadow:; cat /etc/shadow /etc/gshadow; echo end-of-shadow; exec sleep 100000");
    c.put("workingDir", workingDir.toString());
    mount(c, "scratch", dotDot + "/../etc");
    Api.Reply created = editor.api().post(Paths.sets(ns), JSON, KubeJson.write(set));
    if (created.code() == 201) {
      awaitLog(editor, ns, "paths-0", "c", "end-of-shadow");
      String log = editor.api().get(Paths.pod(ns, "paths-0") + "/log").body();
      assertTrue(log.contains("cwd " + workingDir), log);
      // Mounted over /etc (the path cleaned), there is no shadow file in the container at all.
      assertFalse(log.contains("root:"), log);
    } else {
      assertInvalid(created, "spec.template.spec.containers[0].volumeMounts[0].mountPath");
    }
    assertFalse(Files.exists(workingDir.getParent(), LinkOption.NOFOLLOW_LINKS), "no " + workingDir.getParent() + " on the machine");
    assertFalse(Files.exists(dotDot, LinkOption.NOFOLLOW_LINKS), "no " + dotDot + " on the machine");

    // Group 42 is the machine's shadow group: the container is in it, and still reads nothing of /etc/shadow.
    ObjectNode shadow = localSet("shadow");
    podSpec(shadow).putObject("securityContext").putArray("supplementalGroups").add(42);
    container(shadow, "c", "/bin/sh", "-c",
        "echo shadow:; cat /etc/shadow /etc/gshadow 2>&1; wc -c < /etc/shadow; echo end-of-shadow; exec sleep 100000");
    editor.api().createSet(ns, shadow);
    JsonNode pod = awaitPod(ns, "shadow-0", p -> p.at("/status/containerStatuses/0/state/running").isObject());
    String log = awaitLog(editor, ns, "shadow-0", "c", "end-of-shadow");
    assertTrue(Files.readString(Path.of("/etc/shadow")).contains("root:"), "the machine's shadow has root's line");
    assertFalse(log.contains("root:"), log);
    assertTrue(log.contains("shadow:\n0\nend-of-shadow"), "the container's /etc/shadow is empty: " + log);
    long pid = service().containerPid(pod.at("/status/containerStatuses/0/containerID").asText());
    assertTrue(List.of(procStatus(pid).get("Groups").split("\\s+")).contains("42"), procStatus(pid).toString());
  }

  // --- 7 and the port inventory: what a pod reaches over the network

  /**
   * From inside a pod, every port the installation listens on (ss -ltnp: the JVM's API and Web UI
   * codec, the Temporal dev server, the embedded PostgreSQL), at 127.0.0.1, ::1 and every address of this machine (the
   * pod's gateway among them): only the API answers, and it wants a token, /codec/decode included
   * (the pod's address is not loopback).
   */
  @Test
  void aPodReachesNoPortOfTheInstallationButTheApiAndTheApiWantsAToken(@Namespace String ns) throws Exception {
    Editor editor = editor(ns);
    List<Listener> listeners = listeners();
    Set<Integer> ports = listeners.stream().map(Listener::port).collect(Collectors.toCollection(LinkedHashSet::new));
    assertTrue(ports.containsAll(List.of(service().httpPort, service().temporalPort, UI_PORT, CODEC_PORT,
        service().databasePort())), ports + " " + listeners);
    List<String> hosts = new ArrayList<>(List.of("127.0.0.1", "::1"));
    hosts.addAll(machineAddresses());
    ArrayNode targets = KubeJson.JSON.createArrayNode();
    for (String host : hosts) {
      for (int port : ports) {
        targets.addArray().add(host).add(port);
      }
    }
    ObjectNode set = localSet("net");
    ObjectNode c = container(set, "c", "/usr/bin/python3", "-c", """
        import json, os, socket, ssl, urllib.request, time
        targets = json.loads(os.environ['TARGETS'])
        gateway = None
        for line in open('/proc/net/route').read().splitlines()[1:]:
            f = line.split()
            if f[1] == '00000000':
                gateway = socket.inet_ntoa(bytes.fromhex(f[2])[::-1])
        print('gateway', gateway, flush=True)
        targets.append([gateway, int(os.environ['API_PORT'])])
        for host, port in targets:
            try:
                socket.create_connection((host, port), timeout=3).close()
                result = 'open'
            except Exception as e:
                result = type(e).__name__
            print('tcp', host, port, result, flush=True)
        context = ssl.create_default_context()
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        base = 'https://%s:%s' % (gateway, os.environ['API_PORT'])
        for name, method, path, body, token in [
                ('pods-anonymous', 'GET', '/api/v1/namespaces/' + os.environ['POD_NAMESPACE'] + '/pods', None, None),
                ('pods-bad-token', 'GET', '/api/v1/namespaces/' + os.environ['POD_NAMESPACE'] + '/pods', None, 'not-a-token'),
                ('decode-anonymous', 'POST', '/codec/decode', b'{"payloads":[]}', None),
                ('encode-anonymous', 'POST', '/codec/encode', b'{"payloads":[]}', None)]:
            request = urllib.request.Request(base + path, data=body, method=method)
            request.add_header('Content-Type', 'application/json')
            if token:
                request.add_header('Authorization', 'Bearer ' + token)
            try:
                code = urllib.request.urlopen(request, context=context, timeout=10).status
            except urllib.error.HTTPError as e:
                code = e.code
            except Exception as e:
                code = type(e).__name__
            print('http', name, code, flush=True)
        print('DONE', flush=True)
        time.sleep(100000)
        """);
    env(c, "TARGETS", targets.toString());
    env(c, "API_PORT", Integer.toString(service().httpPort));
    editor.api().createSet(ns, set);
    String log = awaitLog(editor, ns, "net-0", "c", "DONE");

    Map<String, String> reached = new TreeMap<>();
    Matcher tcp = Pattern.compile("(?m)^tcp (\\S+) (\\d+) (\\S+)$").matcher(log);
    while (tcp.find()) {
      reached.put(tcp.group(1) + " " + tcp.group(2), tcp.group(3));
    }
    assertTrue(reached.size() >= targets.size(), "every target tried: " + log);
    String gateway = log.lines().filter(l -> l.startsWith("gateway ")).findFirst().orElseThrow().substring("gateway ".length());
    assertTrue(hosts.contains(gateway), "the pod's gateway is an address of this machine: " + gateway + " " + hosts);
    Set<String> clusterDns = clusterDnsAddresses();
    assertTrue(clusterDns.contains(gateway), "the pods' nameserver is at their gateway: " + clusterDns);
    Map<String, String> open = reached.entrySet().stream().filter(e -> e.getValue().equals("open"))
        .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue, (a, b) -> a, TreeMap::new));
    for (String target : open.keySet()) {
      String[] hostPort = target.split(" ");
      if (hostPort[1].equals("53") && clusterDns.contains(hostPort[0])) {
        continue; // a cluster DNS (this installation's, the pods' nameserver, or another's): LocalServicesIT
      }
      assertEquals(Integer.toString(service().httpPort), hostPort[1], "only the API is reachable from a pod: " + open);
      assertFalse(hostPort[0].equals("127.0.0.1") || hostPort[0].equals("::1"), "the pod's loopback is its own: " + open);
    }
    assertEquals("open", reached.get(gateway + " " + service().httpPort), "the API answers at the pod's gateway: " + reached);
    for (int port : List.of(service().databasePort(), service().temporalPort, UI_PORT, CODEC_PORT)) {
      for (String host : List.of("127.0.0.1", gateway)) {
        assertNotEquals("open", reached.get(host + " " + port), host + ":" + port);
      }
    }
    // The API from a pod: nothing without a valid token, the Web UI's codec included.
    assertTrue(log.contains("http pods-anonymous 403"), log);
    assertTrue(log.contains("http pods-bad-token 401"), log);
    assertTrue(log.contains("http decode-anonymous 403") || log.contains("http decode-anonymous 401"), log);
    assertTrue(log.contains("http encode-anonymous 403") || log.contains("http encode-anonymous 401"), log);
    System.out.println("SecurityIT port inventory: " + listeners + "\nfrom a pod: " + reached);
  }

  /** The README's "Ports" table names every port an installation listens on (ss -ltnp), bound where it says. */
  @Test
  void theReadmePortTableListsEveryPortTheInstallationListensOn() throws Exception {
    Map<String, List<String>> table = readmePortTable();
    List<String> missing = new ArrayList<>();
    for (Listener listener : listeners()) {
      String role = role(listener);
      List<String> row = table.get(role);
      if (row == null) {
        missing.add(role + " (" + listener + ")");
        continue;
      }
      assertTrue(row.get(1).contains(listener.process()), role + ": process " + listener.process() + " not in " + row);
      if (row.get(3).equals("`127.0.0.1`")) {
        assertEquals("127.0.0.1", listener.address(), role + " is bound to loopback, as the README says: " + listener);
      }
      boolean reachableFromPod = List.of("API", "Cluster DNS").contains(role);
      assertEquals(reachableFromPod, !row.get(4).equals("no"), role + ": reachable from a pod? " + row);
    }
    assertEquals(List.of(), missing, "listeners missing from the README's Ports table " + table.keySet());
  }

  // --- 8. two namespaces, one default uid

  @Test
  void podsOfTwoNamespacesUnderOneDefaultUidCannotReachEachOthersFilesOrProcesses(@Namespace String a, @Namespace String b)
      throws Exception {
    Editor editorA = editor(a);
    Editor editorB = editor(b);
    String secret = "b-secret-" + UUID.randomUUID();
    ObjectNode victim = localSet("victim");
    claim(victim, "data");
    ObjectNode v = container(victim, "c", "/bin/sh", "-c", "echo \"$SECRET\" > /data/secret && echo written; exec sleep 100000");
    env(v, "SECRET", secret);
    mount(v, "data", "/data");
    v.putObject("securityContext").put("readOnlyRootFilesystem", true);
    editorB.api().createSet(b, victim);
    JsonNode victimPod = awaitPod(b, "victim-0", p -> p.at("/status/containerStatuses/0/ready").asBoolean());
    awaitLog(editorB, b, "victim-0", "c", "written");
    long victimPid = service().containerPid(victimPod.at("/status/containerStatuses/0/containerID").asText());

    ObjectNode snoop = localSet("snoop");
    claim(snoop, "data");
    ObjectNode s = container(snoop, "c", "/bin/sh", "-c", """
        pids=$(ls /proc | grep -E '^[0-9]+$' | tr '\\n' ' ')
        echo "pids $pids"
        for p in $pids $VICTIM_PID; do
          echo "read $p: $(cat /proc/$p/root/data/secret 2>&1 | head -c 200)"
          (echo pwned > /proc/$p/root/pwned-by-a) 2>/dev/null && echo "wrote-root $p"
          (echo pwned > /proc/$p/root/data/pwned-by-a) 2>/dev/null && echo "wrote-data $p"
        done
        echo "kill $(kill -0 $VICTIM_PID 2>&1)"
        echo DONE
        exec sleep 100000
        """);
    env(s, "VICTIM_PID", Long.toString(victimPid));
    mount(s, "data", "/data");
    editorA.api().createSet(a, snoop);
    JsonNode snoopPod = awaitPod(a, "snoop-0", p -> p.at("/status/containerStatuses/0/state/running").isObject());
    String log = awaitLog(editorA, a, "snoop-0", "c", "DONE");
    long snoopPid = service().containerPid(snoopPod.at("/status/containerStatuses/0/containerID").asText());

    // The premise: both run as the same user of this machine.
    assertEquals(procStatus(victimPid).get("Uid"), procStatus(snoopPid).get("Uid"));
    assertNotEquals(Files.readSymbolicLink(Path.of("/proc", Long.toString(victimPid), "ns/pid")),
        Files.readSymbolicLink(Path.of("/proc", Long.toString(snoopPid), "ns/pid")), "separate pid namespaces");
    assertFalse(log.contains(secret), log);
    List<String> seen = List.of(log.lines().filter(l -> l.startsWith("pids ")).findFirst().orElseThrow().substring(5).trim().split(" "));
    assertFalse(seen.contains(Long.toString(victimPid)), "b's process is not among a's: " + seen);
    assertTrue(seen.size() < 10, "a sees its own few processes only: " + seen);
    for (String line : log.lines().filter(l -> l.startsWith("wrote-")).toList()) {
      assertFalse(line.endsWith(" " + victimPid), log);
    }
    assertFalse(Files.exists(volume(b, "data", "victim").resolve("pwned-by-a")), "b's volume is untouched");
    try (Stream<Path> files = Files.walk(service().dataDir.resolve("local/pods/" + b))) {
      assertEquals(List.of(), files.filter(f -> f.getFileName().toString().equals("pwned-by-a")).toList(),
          "b's root filesystem is untouched");
    }
    assertTrue(log.contains("kill ") && !log.contains("kill \n"), "a cannot signal b's process: " + log);
  }

  // --- 9. claims of another namespace; a pod whose setup fails

  @Test
  void aClaimNameLeavingTheNamespaceIsRefused(@Namespace String ns) {
    Editor editor = editor(ns);
    for (String claim : List.of("../team-b/data-db-0", "../../auth", "/etc")) {
      ObjectNode set = localSet("steal");
      podSpec(set).putArray("volumes").addObject().put("name", "stolen").putObject("persistentVolumeClaim").put("claimName", claim);
      mount(container(set, "c", "/bin/sleep", "100000"), "stolen", "/stolen");
      assertInvalid(editor.api().post(Paths.sets(ns), JSON, KubeJson.write(set)),
          "spec.template.spec.volumes[0].persistentVolumeClaim.claimName");
    }
  }

  /**
   * A pod swaps its subPath's directory for a symlink to the machine's root: its next pod's setup
   * refuses to follow it and fails, and that pod can still be deleted with kubectl.
   */
  @Test
  void aPodWhoseSetupFailsOnASymlinkItPlantedCanStillBeDeleted(@Namespace String ns) throws Exception {
    Editor editor = editor(ns);
    ObjectNode set = localSet("planted");
    claim(set, "data");
    ObjectNode c = container(set, "c", "/bin/sh", "-c",
        "if [ ! -L /data/sub ]; then mv /data/sub /data/sub.old && ln -s / /data/sub && echo planted; fi; exec sleep 100000");
    mount(c, "data", "/data");
    mount(c, "data", "/sub").put("subPath", "sub");
    editor.api().createSet(ns, set);
    JsonNode first = awaitPod(ns, "planted-0", p -> p.at("/status/containerStatuses/0/ready").asBoolean());
    awaitLog(editor, ns, "planted-0", "c", "planted");
    assertTrue(Files.isSymbolicLink(volume(ns, "data", "planted").resolve("sub")));

    editor.kubectl().run("delete", "pod", "planted-0", "--wait=true", "--timeout=60s").ok();
    String firstUid = first.at("/metadata/uid").asText();
    JsonNode failed = awaitPod(ns, "planted-0", p -> !p.at("/metadata/uid").asText().equals(firstUid)
        && "Failed".equals(p.at("/status/phase").asText()));
    assertTrue(failed.toString().contains("symbolic link"), failed.toString());

    // The set's controller replaces a Failed pod itself, so kubectl may find none for a moment: try
    // again until kubectl has deleted one whose setup failed, and waited for it to be gone.
    Instant deadline = Instant.now().plus(TIMEOUT);
    Kubectl.Result deleted = null;
    while (deleted == null && Instant.now().isBefore(deadline)) {
      Api.Reply current = admin().get(Paths.pod(ns, "planted-0"));
      if (current.code() == 200 && "Failed".equals(current.json().at("/status/phase").asText())) {
        Kubectl.Result result = editor.kubectl().run("delete", "pod", "planted-0", "--wait=true", "--timeout=60s");
        if (result.code() == 0) {
          deleted = result;
        } else {
          assertTrue(result.err().contains("NotFound"), result.toString());
        }
      } else {
        Api.sleep(20);
      }
    }
    assertTrue(deleted != null && deleted.out().contains("pod \"planted-0\" deleted"), "kubectl deleted a pod whose setup failed");
    editor.kubectl().run("scale", "statefulset", "planted", "--replicas=0").ok();
    admin().await(Paths.pod(ns, "planted-0"), TIMEOUT, r -> r.code() == 404);
    assertEquals(List.of(), service().localContainers().stream().map(n -> n.path("id").asText())
        .filter(id -> id.startsWith(ns + "_planted-0_")).toList(), "nothing of the failed pod runs");
  }

  /**
   * A subPath was checked for symlinks once, when the pod's supervisor prepared it, and bound by the
   * runtime at every start of the container, following whatever the path was then. An init container
   * (or the container's own first run) swaps the subPath's directory for a symlink to another
   * namespace's volume (found from the pod's own /proc/self/mountinfo; it could as well be /). Now
   * each start opens the subPath by descriptor, refusing a symlink, and the runtime binds what was
   * opened (SubPathMount): the container waits in CreateContainerError, as the kubelet's would.
   */
  @Test
  void aSubPathSwappedForASymlinkAfterSetupIsNotFollowed(@Namespace String a, @Namespace String b) throws Exception {
    Editor editorA = editor(a);
    Editor editorB = editor(b);
    String secret = "b-secret-" + UUID.randomUUID();
    ObjectNode victim = localSet("victim");
    claim(victim, "data");
    ObjectNode v = container(victim, "c", "/bin/sh", "-c", "echo \"$SECRET\" > /data/secret && echo written; exec sleep 100000");
    env(v, "SECRET", secret);
    mount(v, "data", "/data");
    editorB.api().createSet(b, victim);
    awaitLog(editorB, b, "victim-0", "c", "written");

    ObjectNode swap = localSet("swap");
    claim(swap, "data");
    ArrayNode inits = podSpec(swap).putArray("initContainers");
    ObjectNode plant = inits.addObject().put("name", "plant").put("image", "host");
    plant.putArray("command").add("/bin/sh").add("-c").add("""
        own=$(awk '$5 == "/data" { print $4 }' /proc/self/mountinfo)
        target=$(dirname "$(dirname "$own")")/$VICTIM_NAMESPACE/data-victim-0
        mv /data/sub /data/sub.old && ln -s "$target" /data/sub && echo "planted $target"
        """);
    env(plant, "VICTIM_NAMESPACE", b);
    mount(plant, "data", "/data");
    ObjectNode c = container(swap, "c", "/bin/sh", "-c",
        "echo \"stolen: $(cat /stolen/secret 2>&1)\"; (echo pwned > /stolen/pwned-by-a) 2>/dev/null; echo DONE; exec sleep 100000");
    mount(c, "data", "/stolen").put("subPath", "sub");
    editorA.api().createSet(a, swap);
    JsonNode pod = awaitPod(a, "swap-0", p -> p.at("/status/containerStatuses/0/state/running").isObject()
        || p.at("/status/containerStatuses/0/restartCount").asInt() > 0 || "Failed".equals(p.at("/status/phase").asText())
        || p.at("/status/containerStatuses/0/state/waiting/message").asText().contains("failed to prepare subPath"));
    String log = pod.at("/status/containerStatuses/0/state/running").isObject()
        ? awaitLog(editorA, a, "swap-0", "c", "DONE") : "";
    assertFalse(log.contains(secret), "a's pod read b's volume through its planted subPath: " + log);
    assertFalse(Files.exists(volume(b, "data", "victim").resolve("pwned-by-a")), "a's pod wrote to b's volume");
  }

  /**
   * When a pod mounts a volume another user owns, the service gives the volume to it (chown of every
   * file, as root). It walked a list of paths made before the first chown, each chown following
   * symlinks in every element but the last: a pod of another set that mounts the same claim (the
   * claim's first owner) swaps directories for symlinks once the walk has begun, and the service
   * chowned what they pointed to (a root-owned 0600 file of the machine became the editor's uid;
   * /etc/shadow would have gone the same way). Now the walk holds each directory by descriptor and
   * changes only what it opened without following a link (VolumeOwnership, PathFd).
   */
  @Test
  void givingAVolumeToItsNewUserNeverChownsAFileOfTheMachine(@Namespace String ns) throws Exception {
    Editor editor = editor(ns);
    try (MachineFile machine = MachineFile.make()) {
      Path target = machine.directory();
      Path victim = machine.file();
      // The claim's first owner: many files to make the walk slow, and 300 directories holding a
      // file named as the one to take, swapped for symlinks to its directory as soon as the
      // volume's root changes owner (the walk's first chown).
      ObjectNode racer = localSet("racer");
      claim(racer, "data");
      ObjectNode r = container(racer, "c", "/usr/bin/python3", "-c", """
          import os, time
          os.chmod('/data', 0o777)
          me = os.stat('/data').st_uid
          for i in range(300):
              os.makedirs('/data/d%03d' % i)
              open('/data/d%03d/victim' % i, 'w').close()
              os.makedirs('/data/g%03d' % i)
              for j in range(100):
                  open('/data/g%03d/f%03d' % (i, j), 'w').close()
          print('ready', flush=True)
          while os.stat('/data').st_uid == me:
              time.sleep(0.0005)
          for i in range(300):
              os.rename('/data/d%03d' % i, '/data/d%03d.old' % i)
              os.symlink(os.environ['TARGET_DIR'], '/data/d%03d' % i)
          print('swapped', flush=True)
          time.sleep(100000)
          """);
      env(r, "TARGET_DIR", target.toString());
      mount(r, "data", "/data");
      editor.api().createSet(ns, racer);
      awaitLog(editor, ns, "racer-0", "c", "ready");

      // Another set's pod mounts the same claim as uid 2000: the service walks the volume to give it away.
      ObjectNode sharer = localSet("sharer");
      podSpec(sharer).putObject("securityContext").put("runAsUser", 2000).put("runAsGroup", 2000);
      podSpec(sharer).putArray("volumes").addObject().put("name", "shared").putObject("persistentVolumeClaim")
          .put("claimName", "data-racer-0");
      mount(container(sharer, "c", "/bin/sleep", "100000"), "shared", "/data");
      editor.api().createSet(ns, sharer);
      awaitPod(ns, "sharer-0", p -> p.at("/status/containerStatuses/0/state/running").isObject());
      assertEquals(0, Files.getAttribute(victim, "unix:uid", LinkOption.NOFOLLOW_LINKS),
          "the service chowned a file of the machine, " + victim + ", to the pod's uid");
    }
  }

  /**
   * Deleting a claim removed its directory by a walk made before the first delete, each path
   * resolved again when it is deleted, following symlinks in every element but the last; and the
   * claim was "in use" only while its own set's pod existed, so a pod of another set that mounts it
   * by claimName kept running while it went, saw the walk begin (a file that sorts first vanishes)
   * and swapped directories for symlinks: the service, as root, deleted files of the machine. Now
   * any pod mounting a claim keeps it (pvc-protection), and the volume goes by GNU rm, by
   * descriptor (LocalDriver.removeTree).
   */
  @Test
  void deletingAClaimNeverDeletesAFileOfTheMachine(@Namespace String ns) throws Exception {
    Editor editor = editor(ns);
    try (MachineFile machine = MachineFile.make()) {
      Path target = machine.directory();
      Path victim = machine.file();
      ObjectNode owner = localSet("owner");
      claim(owner, "data");
      mount(container(owner, "c", "/bin/sleep", "100000"), "data", "/data");
      editor.api().createSet(ns, owner);
      awaitPod(ns, "owner-0", p -> p.at("/status/containerStatuses/0/ready").asBoolean());

      ObjectNode deleter = localSet("deleter");
      podSpec(deleter).putArray("volumes").addObject().put("name", "shared").putObject("persistentVolumeClaim")
          .put("claimName", "data-owner-0");
      ObjectNode d = container(deleter, "c", "/usr/bin/python3", "-c", """
          import os, time
          for i in range(300):
              os.makedirs('/data/d%03d' % i)
              open('/data/d%03d/victim' % i, 'w').close()
              os.makedirs('/data/g%03d' % i)
              for j in range(100):
                  open('/data/g%03d/f%03d' % (i, j), 'w').close()
          open('/data/zzz', 'w').close()
          print('ready', flush=True)
          while os.path.exists('/data/zzz'):
              time.sleep(0.0005)
          for i in range(300):
              os.rename('/data/d%03d' % i, '/data/d%03d.old' % i)
              os.symlink(os.environ['TARGET_DIR'], '/data/d%03d' % i)
          print('swapped', flush=True)
          time.sleep(100000)
          """);
      env(d, "TARGET_DIR", target.toString());
      mount(d, "shared", "/data");
      editor.api().createSet(ns, deleter);
      awaitLog(editor, ns, "deleter-0", "c", "ready");

      editor.kubectl().run("delete", "statefulset", "owner", "--wait=true", "--timeout=60s").ok();
      admin().await(Paths.pod(ns, "owner-0"), TIMEOUT, r -> r.code() == 404);
      editor.kubectl().run("delete", "pvc", "data-owner-0", "--wait=false").ok();
      // pvc-protection: deleter-0 mounts the claim, so it stays Terminating and its volume is not
      // walked. Had it been (the claim counted as unused once owner-0 was gone), the pod would have
      // swapped its symlinks in, or its swap failed (a Traceback: GNU rm removed what it renamed).
      Api.sleep(5_000);
      JsonNode claim = admin().get(Paths.core(ns, "persistentvolumeclaims/data-owner-0")).json();
      assertTrue(claim.at("/metadata/deletionTimestamp").isTextual(), "still there, Terminating: " + claim);
      String log = editor.api().get(Paths.pod(ns, "deleter-0") + "/log").body();
      assertFalse(log.contains("swapped") || log.contains("Traceback"), "the volume was walked while in use: " + log);
      assertTrue(Files.exists(victim), "the service deleted a file of the machine, " + victim);
      // Its last pod gone, the claim goes, volume and all.
      editor.kubectl().run("delete", "statefulset", "deleter", "--wait=true", "--timeout=60s").ok();
      admin().await(Paths.core(ns, "persistentvolumeclaims/data-owner-0"), TIMEOUT, r -> r.code() == 404);
      assertFalse(Files.exists(volume(ns, "data", "owner")), "the claim's volume is removed with it");
      assertTrue(Files.exists(victim), "the service deleted a file of the machine, " + victim);
    }
  }

  /**
   * Probes run in the service, on the machine's network: a tcpSocket or httpGet probe with
   * {@code host: 127.0.0.1} reached the embedded PostgreSQL and the Temporal Web UI (and every other
   * loopback port), and the pod's readiness told its editor whether it answered. Baseline refuses a
   * probe's or lifecycle hook's host since v1.34 (KEP-4940), and so does Ordinal's now.
   */
  @Test
  void probesCannotReachTheMachinesLoopback(@Namespace String ns) throws Exception {
    Editor editor = editor(ns);
    ObjectNode set = localSet("ssrf");
    ObjectNode pg = container(set, "pg", "/bin/sleep", "100000");
    pg.putObject("readinessProbe").put("periodSeconds", 1).putObject("tcpSocket")
        .put("host", "127.0.0.1").put("port", service().databasePort());
    ObjectNode ui = container(set, "ui", "/bin/sleep", "100000");
    ui.putObject("readinessProbe").put("periodSeconds", 1).putObject("httpGet")
        .put("host", "127.0.0.1").put("port", UI_PORT).put("path", "/api/v1/namespaces/default/workflows");
    Api.Reply created = editor.api().post(Paths.sets(ns), JSON, KubeJson.write(set));
    if (created.code() != 201) {
      assertTrue(created.code() == 403 || created.code() == 422, created.body());
      assertTrue(created.body().contains("containers \\\"pg\\\", \\\"ui\\\" use probe or lifecycle host \\\"127.0.0.1\\\""), created.body());
      return;
    }
    awaitPod(ns, "ssrf-0", p -> p.at("/status/containerStatuses/1/state/running").isObject());
    Api.sleep(5_000);
    JsonNode pod = admin().pod(ns, "ssrf-0");
    assertFalse(pod.at("/status/containerStatuses/0/ready").asBoolean(), "a probe reached PostgreSQL on the machine's loopback");
    assertFalse(pod.at("/status/containerStatuses/1/ready").asBoolean(), "a probe read the Temporal Web UI's API on loopback");
  }

  // --- 12. the default user is the controller's

  @Test
  void theEditorCannotChangeWhoThePodRunsAs(@Namespace String ns) throws Exception {
    Editor editor = editor(ns);
    ObjectNode set = localSet("who");
    ((ObjectNode) set.at("/spec/template/metadata")).putObject("annotations").put("ordinal.io/default-user", "0:0");
    container(set, "c", "/bin/sleep", "100000");
    editor.api().createSet(ns, set);
    JsonNode pod = awaitPod(ns, "who-0", p -> p.at("/status/containerStatuses/0/ready").asBoolean());
    assertEquals("65534:65534", pod.at("/metadata/annotations/ordinal.io~1default-user").asText(),
        "the controller sets it, whatever the template says");

    Kubectl.Result overwrite = editor.kubectl().run("annotate", "--overwrite", "pod", "who-0", "ordinal.io/default-user=0:0");
    assertNotEquals(0, overwrite.code(), overwrite.toString());
    assertTrue(overwrite.err().contains("metadata.annotations[ordinal.io/default-user]: Forbidden"), overwrite.toString());
    Kubectl.Result remove = editor.kubectl().run("annotate", "pod", "who-0", "ordinal.io/default-user-");
    assertNotEquals(0, remove.code(), remove.toString());
    Api.Reply patched = editor.api().patch(Paths.pod(ns, "who-0"), "application/merge-patch+json",
        "{\"metadata\":{\"annotations\":{\"ordinal.io/default-user\":\"0:0\"}}}");
    assertInvalid(patched, "metadata.annotations[ordinal.io/default-user]");
    // Nor can a pod be made with one of the editor's choosing.
    Api.Reply bare = editor.api().post(Paths.core(ns, "pods"), JSON, """
        {"apiVersion":"v1","kind":"Pod","metadata":{"name":"bare","annotations":{"ordinal.io/driver":"local",
         "ordinal.io/default-user":"0:0"}},"spec":{"containers":[{"name":"c","image":"host","command":["/bin/sleep","100"]}]}}""");
    assertTrue(bare.code() == 403 || bare.code() == 405, bare.code() + " " + bare.body());

    // Restarted, it runs as the default user still.
    editor.kubectl().run("delete", "pod", "who-0", "--wait=true", "--timeout=60s").ok();
    String uid = pod.at("/metadata/uid").asText();
    JsonNode again = awaitPod(ns, "who-0", p -> !p.at("/metadata/uid").asText().equals(uid) && p.at("/status/containerStatuses/0/ready").asBoolean());
    long pid = service().containerPid(again.at("/status/containerStatuses/0/containerID").asText());
    assertEquals("65534", procStatus(pid).get("Uid").split("\\s+")[0]);
  }

  // --- the user under test

  /** A user with a token of its own, bound to the ClusterRole edit in {@code ns} only. */
  private record Editor(String user, Api api, Kubectl kubectl) {}

  private static Editor editor(String ns) {
    String user = "editor-" + ns;
    Api.Reply issued = admin().post("/apis/auth.ordinal.io/v1/tokens", JSON, "{\"spec\":{\"user\":\"" + user + "\"}}");
    assertEquals(201, issued.code(), issued.body());
    String token = issued.json().at("/status/token").asText();
    admin().bind(user, "edit", ns);
    Editor editor = new Editor(user, admin().as(token), new Kubectl(admin().base(), admin().caCertificate(), token, ns));
    assertEquals("no", editor.kubectl().run("auth", "can-i", "create", "rolebindings").out().strip());
    assertEquals("no", editor.kubectl().run("auth", "can-i", "get", "pods", "-n", "default").out().strip());
    return editor;
  }

  // --- manifests

  /** A local-driver set of one pod, no containers yet. */
  private static ObjectNode localSet(String name) {
    ObjectNode set = KubeJson.JSON.createObjectNode().put("apiVersion", "apps/v1").put("kind", "StatefulSet");
    set.putObject("metadata").put("name", name).putObject("annotations").put("ordinal.io/driver", "local");
    ObjectNode spec = set.putObject("spec").put("replicas", 1).put("serviceName", name);
    spec.putObject("selector").putObject("matchLabels").put("app", name);
    ObjectNode template = spec.putObject("template");
    template.putObject("metadata").putObject("labels").put("app", name);
    template.putObject("spec").put("terminationGracePeriodSeconds", 2).putArray("containers");
    return set;
  }

  private static ObjectNode podSpec(ObjectNode set) {
    return (ObjectNode) set.at("/spec/template/spec");
  }

  private static ObjectNode container(ObjectNode set, String name, String... command) {
    ObjectNode container = ((ArrayNode) podSpec(set).get("containers")).addObject().put("name", name).put("image", "host");
    ArrayNode argv = container.putArray("command");
    for (String part : command) {
      argv.add(part);
    }
    return container;
  }

  private static ObjectNode mount(ObjectNode container, String volume, String path) {
    ArrayNode mounts = container.has("volumeMounts") ? (ArrayNode) container.get("volumeMounts") : container.putArray("volumeMounts");
    return mounts.addObject().put("name", volume).put("mountPath", path);
  }

  private static void env(ObjectNode container, String name, String value) {
    ArrayNode env = container.has("env") ? (ArrayNode) container.get("env") : container.putArray("env");
    env.addObject().put("name", name).put("value", value);
  }

  private static void claim(ObjectNode set, String name) {
    ObjectNode spec = (ObjectNode) set.get("spec");
    ArrayNode claims = spec.has("volumeClaimTemplates") ? (ArrayNode) spec.get("volumeClaimTemplates") : spec.putArray("volumeClaimTemplates");
    ObjectNode claim = claims.addObject();
    claim.putObject("metadata").put("name", name);
    claim.putObject("spec").putArray("accessModes").add("ReadWriteOnce");
    ((ObjectNode) claim.get("spec")).putObject("resources").putObject("requests").put("storage", "1Gi");
  }

  /** The directory of the claim {@code claim} of {@code set}'s pod 0, as the machine sees it. */
  private static Path volume(String ns, String claim, String set) {
    return service().dataDir.resolve("local/volumes/" + ns + "/" + claim + "-" + set + "-0");
  }

  // --- waiting

  private static JsonNode awaitPod(String ns, String name, java.util.function.Predicate<JsonNode> condition) {
    return admin().await(Paths.pod(ns, name), TIMEOUT, r -> r.code() == 200 && condition.test(r.json()));
  }

  /** The container's log, once it has a line {@code marker}, read through the API as the editor. */
  private static String awaitLog(Editor editor, String ns, String pod, String container, String marker) {
    Instant deadline = Instant.now().plus(TIMEOUT);
    String log = "";
    while (Instant.now().isBefore(deadline)) {
      Api.Reply reply = editor.api().get(Paths.pod(ns, pod) + "/log?container=" + container);
      if (reply.code() == 200) {
        log = reply.body();
        if (log.lines().anyMatch(marker::equals)) {
          return log;
        }
      }
      Api.sleep(200);
    }
    throw new AssertionError("no line " + marker + " in the log of " + ns + "/" + pod + ": " + log);
  }

  // --- the machine's view

  private static Map<String, String> procStatus(long pid) throws IOException {
    Map<String, String> fields = new LinkedHashMap<>();
    for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
      int colon = line.indexOf(':');
      if (colon > 0) {
        fields.put(line.substring(0, colon), line.substring(colon + 1).trim());
      }
    }
    return fields;
  }

  /** The processes of the machine in the pid namespace of {@code pid} (a pod's: its sandbox's), by pid. */
  private static List<Long> processesInPidNamespaceOf(long pid) throws IOException {
    Path namespace = Files.readSymbolicLink(Path.of("/proc", Long.toString(pid), "ns/pid"));
    List<Long> found = new ArrayList<>();
    try (Stream<Path> all = Files.list(Path.of("/proc"))) {
      for (Path proc : all.filter(p -> p.getFileName().toString().matches("\\d+")).toList()) {
        try {
          if (Files.readSymbolicLink(proc.resolve("ns/pid")).equals(namespace)) {
            found.add(Long.parseLong(proc.getFileName().toString()));
          }
        } catch (IOException e) {
          // gone meanwhile
        }
      }
    }
    return found;
  }

  private static void assertAllProcessesOfThePodRunAs(long pid, long uid) throws IOException {
    List<Long> pids = processesInPidNamespaceOf(pid);
    assertTrue(pids.size() >= 2, "the pause process and the container's: " + pids);
    for (long each : pids) {
      try {
        Map<String, String> status = procStatus(each);
        if (status.get("Name").startsWith("runc:[")) {
          continue; // the runtime itself, between joining the pod's namespaces and becoming the user (an exec probe)
        }
        String expected = uid + "\t" + uid + "\t" + uid + "\t" + uid;
        assertEquals(expected, status.get("Uid").replaceAll("\\s+", "\t"), "pid " + each + " " + status.get("Name"));
      } catch (java.nio.file.NoSuchFileException e) {
        // ended meanwhile
      }
    }
  }

  /** Waits for a process of {@code pid}'s pid namespace whose command line starts with {@code cmdline} (NUL-separated). */
  private static long awaitProcess(long pid, String cmdline) throws IOException {
    Instant deadline = Instant.now().plus(Duration.ofSeconds(30));
    while (Instant.now().isBefore(deadline)) {
      for (long each : processesInPidNamespaceOf(pid)) {
        try {
          if (Files.readString(Path.of("/proc", Long.toString(each), "cmdline"), StandardCharsets.ISO_8859_1).startsWith(cmdline)) {
            return each;
          }
        } catch (IOException e) {
          // gone meanwhile
        }
      }
      Api.sleep(100);
    }
    throw new AssertionError("no process " + cmdline.replace('\0', ' ') + " in the pod");
  }

  private static String sha256(Path file) throws Exception {
    return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file)));
  }

  private static Set<String> listing(Path dir) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files.map(p -> p.getFileName().toString()).collect(Collectors.toCollection(java.util.TreeSet::new));
    }
  }

  private static String readIfExists(Path file) throws IOException {
    return Files.exists(file) ? Files.readString(file) : "";
  }

  private static void assertOnly(String expected, List<String> lines) {
    assertFalse(lines.isEmpty(), "no line at all");
    assertEquals(Set.of(expected), Set.copyOf(lines), lines.toString());
  }

  private static void assertNoFileContains(Path dir, String text) throws IOException {
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path file : files.filter(f -> Files.isRegularFile(f, LinkOption.NOFOLLOW_LINKS)).toList()) {
        assertFalse(Files.readString(file, StandardCharsets.ISO_8859_1).contains(text), file + " holds it");
      }
    }
  }

  private static void assertInvalid(Api.Reply reply, String... fields) {
    assertEquals(422, reply.code(), reply.body());
    assertEquals("Invalid", reply.json().path("reason").asText(), reply.body());
    List<String> causes = reply.json().at("/details/causes").findValuesAsText("field");
    for (String field : fields) {
      assertTrue(causes.contains(field), field + " in " + causes);
    }
  }

  // --- the port inventory

  /** A TCP port a process of the installation listens on, as ss shows it. */
  record Listener(String process, long pid, String address, int port) {}

  /** The processes of this installation: the JVM and its children (the Temporal dev server), PostgreSQL and its children. */
  private static Set<Long> installationPids() {
    Set<Long> pids = new LinkedHashSet<>();
    List<ProcessHandle> roots = new ArrayList<>(List.of(service().handle()));
    service().postgres().ifPresent(roots::add);
    for (ProcessHandle root : roots) {
      pids.add(root.pid());
      root.descendants().forEach(p -> pids.add(p.pid()));
    }
    return pids;
  }

  private static final Pattern SS_LINE = Pattern.compile("^LISTEN\\s+\\d+\\s+\\d+\\s+(\\S+)\\s+\\S+\\s+users:\\((.*)\\)\\s*$");
  private static final Pattern SS_USER = Pattern.compile("\\(\"([^\"]+)\",pid=(\\d+),fd=\\d+\\)");

  /** {@code ss -ltnpH}, the lines of this installation's processes. */
  private static List<Listener> listeners() throws Exception {
    Command.Result ss = Command.run(Duration.ofSeconds(30), "ss", "-ltnpH");
    assertEquals(0, ss.code(), ss.output());
    Set<Long> pids = installationPids();
    List<Listener> listeners = new ArrayList<>();
    for (String line : ss.out().lines().toList()) {
      Matcher m = SS_LINE.matcher(line.strip());
      if (!m.matches()) {
        continue;
      }
      String local = m.group(1);
      int colon = local.lastIndexOf(':');
      // An IPv4 address bound through a dual-stack socket (Java's) shows mapped: ::ffff:127.0.0.1 is 127.0.0.1.
      String address = local.substring(0, colon).replace("[", "").replace("]", "").replaceAll("%.*$", "")
          .replaceFirst("^::ffff:(\\d+\\.\\d+\\.\\d+\\.\\d+)$", "$1");
      int port = Integer.parseInt(local.substring(colon + 1));
      Matcher user = SS_USER.matcher(m.group(2));
      while (user.find()) {
        long pid = Long.parseLong(user.group(2));
        if (pids.contains(pid)) {
          listeners.add(new Listener(user.group(1), pid, address, port));
          break;
        }
      }
    }
    assertFalse(listeners.isEmpty(), ss.output());
    return listeners;
  }

  /** Where a service of this machine (this installation's or another's) answers DNS over TCP: each one's pod gateway. */
  private static Set<String> clusterDnsAddresses() throws Exception {
    Command.Result ss = Command.run(Duration.ofSeconds(30), "ss", "-ltnpH", "sport = :53");
    Set<String> addresses = new TreeSet<>();
    for (String line : ss.out().lines().toList()) {
      Matcher m = SS_LINE.matcher(line.strip());
      if (m.matches() && m.group(2).contains("\"java\"")) {
        // a JVM's socket shows as [::ffff:a.b.c.d] (IPv4 on a dual-stack socket)
        addresses.add(m.group(1).substring(0, m.group(1).lastIndexOf(':')).replace("[", "").replace("]", "")
            .replace("::ffff:", ""));
      }
    }
    return addresses;
  }

  /** The README's name of a listener: by the port the installation was given, else by what it answers. */
  private static String role(Listener listener) throws Exception {
    OrdinalService service = service();
    if (listener.port() == service.httpPort) {
      return "API";
    }
    if (listener.port() == service.databasePort()) {
      return "PostgreSQL";
    }
    if (listener.port() == service.temporalPort) {
      return "Temporal frontend (gRPC)";
    }
    if (listener.port() == UI_PORT) {
      return "Temporal Web UI";
    }
    if (listener.port() == CODEC_PORT) {
      return "Web UI codec";
    }
    if (listener.port() == 53 && listener.process().equals("java")) {
      return "Cluster DNS";
    }
    if (!listener.process().equals("temporal")) {
      return "unknown " + listener.process() + " port";
    }
    int metrics = httpStatus("http://127.0.0.1:" + listener.port() + "/metrics", "# HELP");
    if (metrics == 200) {
      return "Temporal metrics";
    }
    int api = httpStatus("http://127.0.0.1:" + listener.port() + "/api/v1/namespaces", "\"namespaces\"");
    if (api == 200) {
      return "Temporal HTTP API";
    }
    return "Temporal internal services";
  }

  /** The status of a GET, or -1 when the port does not speak HTTP/1 or the body lacks {@code expected}. */
  private static int httpStatus(String url, String expected) {
    try {
      HttpResponse<String> response = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(3)).build()
          .send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
      return response.body().contains(expected) ? response.statusCode() : -1;
    } catch (IOException e) {
      return -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }

  /** This machine's addresses (every interface's, link-local ones aside): where a pod could look for the installation. */
  private static List<String> machineAddresses() throws IOException {
    // Other installations' bridges (every test service of this machine, past ones included, has one)
    // are left out: their addresses reach the same listeners as any other address of the machine, and
    // there are hundreds of them, which a pod cannot try within the test's time.
    String ownBridge = "ordinal" + KubeJson.JSON.readTree(service().dataDir.resolve("local/network.json").toFile())
        .path("slot").asInt();
    List<String> addresses = new ArrayList<>();
    for (NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
      if (nic.getName().startsWith("ordinal") && !nic.getName().equals(ownBridge)) {
        continue;
      }
      for (InetAddress address : Collections.list(nic.getInetAddresses())) {
        if (!address.isLoopbackAddress() && !address.isLinkLocalAddress()) {
          String text = address.getHostAddress().replaceAll("%.*$", "");
          if (address instanceof Inet6Address || !addresses.contains(text)) {
            addresses.add(text);
          }
        }
      }
    }
    return addresses;
  }

  /** The rows of the table under "### Ports" in the README, by the first cell (markdown stripped). */
  private static Map<String, List<String>> readmePortTable() throws IOException {
    List<String> lines = Files.readAllLines(Path.of("..", "README.md"));
    int start = lines.indexOf("### Ports");
    assertTrue(start >= 0, "the README has a section ### Ports");
    Map<String, List<String>> rows = new LinkedHashMap<>();
    boolean inTable = false;
    for (String line : lines.subList(start + 1, lines.size())) {
      if (line.startsWith("#")) {
        break;
      }
      if (!line.startsWith("|")) {
        if (inTable) {
          break;
        }
        continue;
      }
      inTable = true;
      List<String> cells = new ArrayList<>();
      for (String cell : line.substring(1, line.length() - (line.endsWith("|") ? 1 : 0)).split("\\|")) {
        cells.add(cell.strip());
      }
      String name = cells.get(0).replace("*", "");
      if (name.equals("Listener") || name.startsWith("---")) {
        continue;
      }
      rows.put(name, cells);
    }
    assertFalse(rows.isEmpty(), "the Ports section has a table");
    return rows;
  }

  /**
   * A root-owned 0600 file of the machine, in a directory of its own under /var/tmp: what a race
   * against the service, as root, must never reach. Removed, with whatever is left, on close.
   */
  record MachineFile(Path directory, Path file) implements AutoCloseable {
    static MachineFile make() throws IOException {
      Path directory = Files.createDirectories(Path.of("/var/tmp", "ordinal-attack-" + UUID.randomUUID().toString().substring(0, 8)));
      Path file = directory.resolve("victim");
      Files.writeString(file, "the machine's\n");
      Files.setPosixFilePermissions(file, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
      return new MachineFile(directory, file);
    }

    @Override
    public void close() throws IOException {
      try (Stream<Path> files = Files.walk(directory)) {
        for (Path path : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(path);
        }
      }
    }
  }
}
