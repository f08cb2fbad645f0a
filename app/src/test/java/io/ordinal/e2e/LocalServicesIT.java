package io.ordinal.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;
import org.xbill.DNS.SimpleResolver;
import org.xbill.DNS.Type;

/**
 * Services of local pods as in a cluster: DNS names and ClusterIPs. Pods resolve Service names: their resolv.conf names the installation's cluster
 * DNS (the pod network's gateway) with the kubelet's searches and ndots, and it answers a headless
 * Service with its ready members, each member by {@code <hostname>.<service>}, SRV per named port,
 * a ClusterIP Service with its address, an ExternalName with its CNAME; NXDOMAIN for what does not
 * exist and NODATA for AAAA.
 */
@E2eTest
class LocalServicesIT {
  static Api api;

  @Test
  void podsResolveTheirHeadlessServiceItsMembersAndPortsThroughTheClusterDns(@Namespace String ns) throws Exception {
    Kubectl kubectl = new Kubectl(api.base(), api.caCertificate(), api.token(), ns);
    kubectl.run("""
        apiVersion: v1
        kind: Service
        metadata: {name: peers}
        spec:
          clusterIP: None
          selector: {app: dns}
          ports: [{name: client, port: 2379}]
        ---
        apiVersion: v1
        kind: Service
        metadata: {name: front}
        spec:
          selector: {app: dns}
          ports: [{name: http, port: 80, targetPort: 2379}]
        ---
        apiVersion: v1
        kind: Service
        metadata: {name: ext}
        spec: {type: ExternalName, externalName: example.com}
        """, Map.of(), "apply", "-f", "-").ok();
    ObjectNode set = Manifests.commandSet("dns", 2, "sleep", "3600");
    ((ObjectNode) set.get("spec")).put("serviceName", "peers");
    ((ObjectNode) set.at("/spec/template/spec/containers/0")).putArray("ports").addObject()
        .put("name", "client").put("containerPort", 2379);
    api.createSet(ns, set);
    api.awaitConverged(ns, "dns", 2, Duration.ofSeconds(120));
    String ip0 = api.pod(ns, "dns-0").at("/status/podIP").asText();
    String ip1 = api.pod(ns, "dns-1").at("/status/podIP").asText();

    String resolvConf = kubectl.run("exec", "dns-0", "--", "cat", "/etc/resolv.conf").ok().out();
    assertTrue(resolvConf.contains("search " + ns + ".svc.cluster.local svc.cluster.local cluster.local\n"), resolvConf);
    assertTrue(resolvConf.contains("options ndots:5\n"), resolvConf);
    Matcher nameserver = Pattern.compile("(?m)^nameserver (\\S+)$").matcher(resolvConf);
    assertTrue(nameserver.find(), resolvConf);
    String dns = nameserver.group(1);

    // Inside the pod, through glibc: the short name by the search path.
    assertEquals(Set.of(ip0, ip1), addresses(kubectl.run("exec", "dns-0", "--", "getent", "ahostsv4", "peers").ok().out()));
    assertEquals(Set.of(ip1), addresses(kubectl.run("exec", "dns-0", "--", "getent", "ahostsv4",
        "dns-1.peers." + ns + ".svc.cluster.local").ok().out()));

    // From the machine, record by record, over UDP and TCP.
    String zone = ns + ".svc.cluster.local.";
    SimpleResolver udp = new SimpleResolver(dns);
    SimpleResolver tcp = new SimpleResolver(dns);
    tcp.setTCP(true);
    for (SimpleResolver resolver : List.of(udp, tcp)) {
      Message peers = query(resolver, "peers." + zone, Type.A);
      assertEquals(Set.of(ip0, ip1), answers(peers, Type.A), peers.toString());
      assertTrue(peers.getHeader().getFlag(org.xbill.DNS.Flags.AA), peers.toString());
    }
    Message srv = query(udp, "_client._tcp.peers." + zone, Type.SRV);
    assertEquals(Set.of("0 50 2379 dns-0.peers." + zone, "0 50 2379 dns-1.peers." + zone), answers(srv, Type.SRV),
        srv.toString());
    String clusterIp = api.get(Paths.core(ns, "services") + "/front").json().at("/spec/clusterIP").asText();
    assertEquals(Set.of(clusterIp), answers(query(udp, "front." + zone, Type.A), Type.A));
    assertEquals(Set.of("0 100 80 front." + zone), answers(query(udp, "_http._tcp.front." + zone, Type.SRV), Type.SRV));
    assertEquals(Set.of("example.com."), answers(query(udp, "ext." + zone, Type.A), Type.CNAME));
    Message aaaa = query(udp, "peers." + zone, Type.AAAA);
    assertEquals(Rcode.NOERROR, aaaa.getRcode(), "AAAA of a name that exists is NODATA: " + aaaa);
    assertEquals(0, aaaa.getSection(Section.ANSWER).size(), aaaa.toString());
    assertEquals(Rcode.NXDOMAIN, query(udp, "nothing." + zone, Type.A).getRcode());
    assertEquals(Rcode.NXDOMAIN, query(udp, "dns-7.peers." + zone, Type.A).getRcode());

    // A member that goes is no longer an answer: the names follow the Endpoints, without a cache to expire.
    assertEquals(200, api.patch(Paths.set(ns, "dns") + "/scale", "application/merge-patch+json",
        "{\"spec\":{\"replicas\":1}}").code());
    api.awaitConverged(ns, "dns", 1, Duration.ofSeconds(120));
    assertEquals(Set.of(ip0), answers(query(udp, "peers." + zone, Type.A), Type.A));
  }

  /**
   * A ClusterIP Service's TCP port carries connections to its ready endpoints in turn, from a pod by
   * the Service's name and from the machine at the address; with sessionAffinity ClientIP a client
   * keeps its endpoint; a member that goes takes no more connections.
   */
  @Test
  void aClusterIpCarriesConnectionsToTheReadyEndpointsInTurn(@Namespace String ns) throws Exception {
    Kubectl kubectl = new Kubectl(api.base(), api.caCertificate(), api.token(), ns);
    ObjectNode set = Manifests.commandSet("echo", 2, "python3", "-c", """
        import os, socket
        server = socket.socket()
        server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        server.bind(('0.0.0.0', 8080))
        server.listen(16)
        while True:
            client, _ = server.accept()
            client.sendall(os.environ['HOSTNAME'].encode() + b'\\n')
            client.close()
        """);
    ObjectNode container = (ObjectNode) set.at("/spec/template/spec/containers/0");
    container.putArray("ports").addObject().put("name", "echo").put("containerPort", 8080);
    container.putObject("readinessProbe").put("periodSeconds", 1).putObject("tcpSocket").put("port", 8080);
    api.createSet(ns, set);
    Api.Reply created = api.post(Paths.core(ns, "services"), "application/json",
        "{\"metadata\":{\"name\":\"echo\"},\"spec\":{\"selector\":{\"app\":\"echo\"},"
            + "\"ports\":[{\"name\":\"http\",\"port\":80,\"targetPort\":\"echo\"}]}}");
    assertEquals(201, created.code(), created.body());
    String clusterIp = created.json().at("/spec/clusterIP").asText();
    api.awaitConverged(ns, "echo", 2, Duration.ofSeconds(120));

    // From a pod, by name (the cluster DNS answers the ClusterIP), four connections: both members, in turn.
    String fromPod = awaitOutput(kubectl, "echo-0", """
        import socket
        for _ in range(4):
            print(socket.create_connection(('echo', 80), timeout=5).makefile().readline().strip())
        """, out -> out.lines().count() == 4);
    assertEquals(List.of("echo-0", "echo-1"), fromPod.lines().distinct().sorted().toList(), fromPod);

    // From the machine, at the address.
    List<String> fromMachine = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      fromMachine.add(readLine(clusterIp, 80));
    }
    assertEquals(List.of("echo-0", "echo-1"), fromMachine.stream().distinct().sorted().toList(), fromMachine.toString());

    // ClientIP affinity: the machine keeps one member.
    assertEquals(200, api.patch(Paths.core(ns, "services") + "/echo", "application/merge-patch+json",
        "{\"spec\":{\"sessionAffinity\":\"ClientIP\"}}").code());
    awaitConnections(clusterIp, answers -> answers.stream().distinct().count() == 1);

    // A member that goes is passed over.
    assertEquals(200, api.patch(Paths.set(ns, "echo") + "/scale", "application/merge-patch+json",
        "{\"spec\":{\"replicas\":1}}").code());
    api.awaitConverged(ns, "echo", 1, Duration.ofSeconds(120));
    awaitConnections(clusterIp, answers -> answers.stream().allMatch("echo-0"::equals));
  }

  /** Runs python {@code script} in the pod until its output satisfies {@code done} (the endpoints may lag a probe). */
  private static String awaitOutput(Kubectl kubectl, String pod, String script, java.util.function.Predicate<String> done) {
    String out = "";
    for (int attempt = 0; attempt < 30; attempt++) {
      Kubectl.Result run = kubectl.run("exec", pod, "--", "python3", "-c", script);
      out = run.out();
      if (run.code() == 0 && done.test(out)) {
        return out;
      }
      Api.sleep(500);
    }
    throw new AssertionError("never done: " + out);
  }

  private static List<String> awaitConnections(String ip, java.util.function.Predicate<List<String>> done) {
    List<String> answers = List.of();
    for (int attempt = 0; attempt < 40; attempt++) {
      answers = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        try {
          answers.add(readLine(ip, 80));
        } catch (java.io.IOException e) {
          answers.add(e.toString());
        }
      }
      if (done.test(answers)) {
        return answers;
      }
      Api.sleep(500);
    }
    throw new AssertionError("never done: " + answers);
  }

  private static String readLine(String ip, int port) throws java.io.IOException {
    try (java.net.Socket socket = new java.net.Socket()) {
      socket.connect(new java.net.InetSocketAddress(ip, port), 5000);
      socket.setSoTimeout(5000);
      String line = new java.io.BufferedReader(new java.io.InputStreamReader(socket.getInputStream(),
          java.nio.charset.StandardCharsets.UTF_8)).readLine();
      return line == null ? "(closed)" : line;
    }
  }

  private static Message query(SimpleResolver resolver, String name, int type) throws Exception {
    return resolver.send(Message.newQuery(Record.newRecord(Name.fromString(name), type, DClass.IN)));
  }

  /** The answer section's records of {@code type}, as text (an address, a target, "priority weight port target"). */
  private static Set<String> answers(Message message, int type) {
    Set<String> found = new TreeSet<>();
    for (Record record : message.getSection(Section.ANSWER)) {
      if (record.getType() == type) {
        found.add(record.rdataToString());
      }
    }
    return found;
  }

  /** The addresses of {@code getent ahostsv4}'s lines. */
  private static Set<String> addresses(String getent) {
    List<String> all = new ArrayList<>();
    getent.lines().filter(line -> !line.isBlank()).forEach(line -> all.add(line.split("\\s+")[0]));
    return new TreeSet<>(all);
  }
}
