package io.ordinal.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;
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
   * A ClusterIP Service's TCP port carries connections to its ready endpoints in turn, by the
   * Service's name and by its address; with sessionAffinity ClientIP a client keeps its endpoint; a
   * member that goes takes no more connections. The proxy answers in a network namespace of its own:
   * the machine's port of the same number stays free.
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
    int port = OrdinalService.freePort();
    Api.Reply created = api.post(Paths.core(ns, "services"), "application/json",
        "{\"metadata\":{\"name\":\"echo\"},\"spec\":{\"selector\":{\"app\":\"echo\"},"
            + "\"ports\":[{\"name\":\"http\",\"port\":" + port + ",\"targetPort\":\"echo\"}]}}");
    assertEquals(201, created.code(), created.body());
    String clusterIp = created.json().at("/spec/clusterIP").asText();
    api.awaitConverged(ns, "echo", 2, Duration.ofSeconds(120));

    // By name (the cluster DNS answers the ClusterIP) and by address: both members, in turn.
    for (String host : List.of("echo", clusterIp)) {
      List<String> answers = connections(kubectl, host, port, all -> all.stream().allMatch(a -> a.matches("echo-\\d")));
      assertEquals(List.of("echo-0", "echo-1"), answers.stream().distinct().sorted().toList(), answers.toString());
    }
    try (ServerSocket machine = new ServerSocket(port)) {
      assertTrue(machine.isBound(), "the machine's own port " + port + " is not held by the Service");
    }

    // ClientIP affinity: the pod keeps one member.
    assertEquals(200, api.patch(Paths.core(ns, "services") + "/echo", "application/merge-patch+json",
        "{\"spec\":{\"sessionAffinity\":\"ClientIP\"}}").code());
    connections(kubectl, clusterIp, port, all -> all.stream().allMatch(a -> a.matches("echo-\\d"))
        && all.stream().distinct().count() == 1);

    // A member that goes is passed over.
    assertEquals(200, api.patch(Paths.set(ns, "echo") + "/scale", "application/merge-patch+json",
        "{\"spec\":{\"replicas\":1}}").code());
    api.awaitConverged(ns, "echo", 1, Duration.ofSeconds(120));
    connections(kubectl, clusterIp, port, all -> all.stream().allMatch("echo-0"::equals));
  }

  /**
   * Four connections from pod echo-0 to {@code host:port}, each answer its first line, tried until
   * {@code done} holds of them (the proxy reads the Services every 2 s, the Endpoints follow probes).
   */
  private static List<String> connections(Kubectl kubectl, String host, int port, Predicate<List<String>> done) {
    String script = """
        import socket, sys
        for _ in range(4):
            try:
                print(socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=5).makefile().readline().strip())
            except Exception as e:
                print(type(e).__name__)
        """;
    List<String> answers = List.of();
    for (int attempt = 0; attempt < 40; attempt++) {
      Kubectl.Result run = kubectl.run("exec", "echo-0", "--", "python3", "-c", script, host, Integer.toString(port));
      answers = run.out().lines().toList();
      if (run.code() == 0 && answers.size() == 4 && done.test(answers)) {
        return answers;
      }
      Api.sleep(500);
    }
    throw new AssertionError("never done: " + answers);
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
