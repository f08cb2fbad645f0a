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
 * Local pods resolve Service names as in a cluster: their resolv.conf names the installation's cluster
 * DNS (the pod network's gateway) with the kubelet's searches and ndots, and it answers a headless
 * Service with its ready members, each member by {@code <hostname>.<service>}, SRV per named port,
 * a ClusterIP Service with its address, an ExternalName with its CNAME; NXDOMAIN for what does not
 * exist and NODATA for AAAA.
 */
@E2eTest
class ClusterDnsIT {
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
