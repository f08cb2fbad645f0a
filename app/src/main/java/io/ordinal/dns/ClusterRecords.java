package io.ordinal.dns;

import io.fabric8.kubernetes.api.model.EndpointAddress;
import io.fabric8.kubernetes.api.model.EndpointPort;
import io.fabric8.kubernetes.api.model.EndpointSubset;
import io.fabric8.kubernetes.api.model.Endpoints;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.ordinal.api.ServiceEndpoints;
import io.ordinal.apimachinery.ApiException;
import io.ordinal.kube.Labels;
import io.ordinal.store.ObjectStore;
import io.ordinal.store.ObjectTable;
import jakarta.inject.Singleton;
import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.xbill.DNS.ARecord;
import org.xbill.DNS.CNAMERecord;
import org.xbill.DNS.DClass;
import org.xbill.DNS.ExtendedResolver;
import org.xbill.DNS.Flags;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.OPTRecord;
import org.xbill.DNS.Opcode;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.Resolver;
import org.xbill.DNS.SOARecord;
import org.xbill.DNS.SRVRecord;
import org.xbill.DNS.Section;
import org.xbill.DNS.TextParseException;
import org.xbill.DNS.Type;

/**
 * What the cluster DNS answers, after the Kubernetes DNS specification (kubernetes/dns,
 * docs/specification.md) as CoreDNS's kubernetes plugin serves it, in {@code cluster.local}:
 * <ul>
 *   <li>{@code <svc>.<ns>.svc}: a ClusterIP Service's address; a headless Service's ready
 *       endpoints (the not-ready ones too with publishNotReadyAddresses); an ExternalName's CNAME;
 *   <li>{@code <hostname>.<svc>.<ns>.svc}: the endpoint of that hostname (a pod whose
 *       spec.hostname and subdomain name it, so a StatefulSet's {@code web-0.nginx}), or of the
 *       address written with dashes;
 *   <li>{@code _<port>._<proto>.<svc>.<ns>.svc}: SRV per named port (per endpoint when headless);
 * </ul>
 * and the Endpoints come from {@link ServiceEndpoints}, so a set's serviceName without a Service
 * object answers as a headless Service. A name of the zone that is none of these is NXDOMAIN; a
 * name that exists but has no record of the type asked (AAAA: pods have IPv4 only) is NODATA, so
 * that a resolver asking A and AAAA at once takes the A. Other names are forwarded to the
 * machine's resolvers.
 */
@Singleton
public class ClusterRecords {
  private static final Logger log = LoggerFactory.getLogger(ClusterRecords.class);
  static final Name ZONE = name(Labels.CLUSTER_DOMAIN + ".");
  /** CoreDNS's kubernetes plugin's default TTL. */
  static final long TTL = 5;
  /** The largest UDP answer given to an EDNS client (the 2020 DNS flag day's 1232), 512 to others (RFC 1035). */
  static final int MAX_UDP_PAYLOAD = 1232;
  private static final SOARecord SOA = new SOARecord(ZONE, DClass.IN, TTL, name("ns.dns." + ZONE),
      name("hostmaster." + ZONE), 1, 7200, 1800, 86400, TTL);

  private final ObjectStore objects;
  private final ServiceEndpoints endpoints;
  private final Resolver upstream;

  public ClusterRecords(ObjectStore objects, ServiceEndpoints endpoints) {
    this.objects = objects;
    this.endpoints = endpoints;
    ExtendedResolver machine = new ExtendedResolver(); // the machine's resolv.conf
    machine.setTimeout(Duration.ofSeconds(2));
    this.upstream = machine;
  }

  static int udpLimit(Message query) {
    OPTRecord opt = query.getOPT();
    return opt == null ? 512 : Math.max(512, Math.min(opt.getPayloadSize(), MAX_UDP_PAYLOAD));
  }

  public Message answer(Message query) {
    Message response = new Message(query.getHeader().getID());
    response.getHeader().setFlag(Flags.QR);
    if (query.getHeader().getFlag(Flags.RD)) {
      response.getHeader().setFlag(Flags.RD);
    }
    response.getHeader().setFlag(Flags.RA);
    Record question = query.getQuestion();
    if (query.getHeader().getOpcode() != Opcode.QUERY) {
      response.getHeader().setRcode(Rcode.NOTIMP);
      return response;
    }
    if (question == null || query.getSectionArray(Section.QUESTION).length != 1) {
      response.getHeader().setRcode(Rcode.FORMERR);
      return response;
    }
    response.addRecord(question, Section.QUESTION);
    if (query.getOPT() != null) {
      response.addRecord(new OPTRecord(MAX_UDP_PAYLOAD, 0, 0), Section.ADDITIONAL);
    }
    Name asked = question.getName();
    if (!asked.subdomain(ZONE)) {
      return forward(query, response);
    }
    response.getHeader().setFlag(Flags.AA);
    try {
      Optional<List<Record>> found = records(asked, question.getType());
      if (found.isEmpty()) {
        response.getHeader().setRcode(Rcode.NXDOMAIN);
        response.addRecord(SOA, Section.AUTHORITY);
      } else if (found.get().isEmpty()) {
        response.addRecord(SOA, Section.AUTHORITY); // NODATA
      } else {
        for (Record record : found.get()) {
          response.addRecord(record, record.getName().equals(asked) ? Section.ANSWER : Section.ADDITIONAL);
        }
      }
    } catch (RuntimeException e) {
      log.warn("cluster DNS: {} {}: {}", asked, Type.string(question.getType()), e.toString());
      response.getHeader().setRcode(Rcode.SERVFAIL);
    }
    return response;
  }

  /** The records of {@code asked} (ANSWER, then ADDITIONAL ones); empty list: NODATA; empty: NXDOMAIN. */
  private Optional<List<Record>> records(Name asked, int type) {
    List<String> labels = new ArrayList<>();
    for (int i = 0; i < asked.labels() - ZONE.labels(); i++) {
      labels.add(asked.getLabelString(i).toLowerCase(Locale.ROOT));
    }
    int n = labels.size();
    if (n == 0 || n <= 2 && labels.get(n - 1).equals("svc")) {
      return Optional.of(List.of()); // the zone, svc, <ns>.svc: names that exist, with no records here
    }
    if (n < 3 || !labels.get(n - 1).equals("svc") || n > 5) {
      return Optional.empty();
    }
    String namespace = labels.get(n - 2);
    String service = labels.get(n - 3);
    Optional<Target> target = target(namespace, service);
    if (target.isEmpty()) {
      return Optional.empty();
    }
    Name serviceName = name(service + "." + namespace + ".svc." + ZONE);
    return switch (n) {
      case 3 -> Optional.of(serviceRecords(asked, type, target.get()));
      case 4 -> endpointRecords(asked, type, target.get(), labels.get(0));
      default -> srvRecords(asked, type, target.get(), serviceName, labels.get(0), labels.get(1));
    };
  }

  /** A Service as DNS sees it: its object (none for a set's serviceName alone) and its Endpoints. */
  private record Target(Service service, Endpoints endpoints) {
    boolean headless() {
      return service == null || "None".equals(service.getSpec().getClusterIP());
    }

    boolean externalName() {
      return service != null && "ExternalName".equals(service.getSpec().getType());
    }

    List<EndpointAddress> addresses() {
      List<EndpointAddress> all = new ArrayList<>();
      for (EndpointSubset subset : endpoints == null || endpoints.getSubsets() == null ? List.<EndpointSubset>of()
          : endpoints.getSubsets()) {
        all.addAll(subset.getAddresses());
      }
      return all;
    }

    List<EndpointPort> ports() {
      return endpoints == null || endpoints.getSubsets() == null || endpoints.getSubsets().isEmpty() ? List.of()
          : endpoints.getSubsets().get(0).getPorts();
    }
  }

  private Optional<Target> target(String namespace, String service) {
    Optional<Service> object = objects.find(ObjectTable.SERVICES, Service.class, namespace, service);
    if (object.isPresent() && ("ExternalName".equals(object.get().getSpec().getType())
        || !"None".equals(object.get().getSpec().getClusterIP()))) {
      return Optional.of(new Target(object.get(), null));
    }
    try {
      return Optional.of(new Target(object.orElse(null), endpoints.get(namespace, service)));
    } catch (ApiException e) {
      if (e.code() == 404) {
        return object.map(s -> new Target(s, null)); // a headless Service without a selector
      }
      throw e;
    }
  }

  private static List<Record> serviceRecords(Name asked, int type, Target target) {
    if (target.externalName()) {
      return List.of(new CNAMERecord(asked, DClass.IN, TTL, name(absolute(target.service().getSpec().getExternalName()))));
    }
    if (type != Type.A && type != Type.ANY) {
      return List.of();
    }
    if (!target.headless()) {
      return List.of(a(asked, target.service().getSpec().getClusterIP()));
    }
    return target.addresses().stream().<Record>map(address -> a(asked, address.getIp())).toList();
  }

  private static Optional<List<Record>> endpointRecords(Name asked, int type, Target target, String host) {
    if (!target.headless() || target.externalName()) {
      return Optional.empty();
    }
    for (EndpointAddress address : target.addresses()) {
      if (host.equals(hostLabel(address))) {
        return Optional.of(type == Type.A || type == Type.ANY ? List.of(a(asked, address.getIp())) : List.of());
      }
    }
    return Optional.empty();
  }

  private static Optional<List<Record>> srvRecords(Name asked, int type, Target target, Name serviceName, String port,
      String protocol) {
    if (!port.startsWith("_") || !protocol.startsWith("_") || target.externalName()) {
      return Optional.empty();
    }
    String portName = port.substring(1);
    String proto = protocol.substring(1).toUpperCase(Locale.ROOT);
    List<Record> records = new ArrayList<>();
    if (!target.headless()) {
      for (ServicePort p : target.service().getSpec().getPorts()) {
        if (portName.equals(p.getName()) && proto.equals(protocolOf(p.getProtocol()))) {
          records.add(new SRVRecord(asked, DClass.IN, TTL, 0, 100, p.getPort(), serviceName));
          records.add(a(serviceName, target.service().getSpec().getClusterIP()));
        }
      }
    } else {
      List<EndpointAddress> addresses = target.addresses();
      for (EndpointPort p : target.ports()) {
        if (portName.equals(p.getName()) && proto.equals(protocolOf(p.getProtocol()))) {
          for (EndpointAddress address : addresses) {
            Name host = name(hostLabel(address) + "." + serviceName);
            records.add(new SRVRecord(asked, DClass.IN, TTL, 0, 100 / Math.max(1, addresses.size()), p.getPort(), host));
            records.add(a(host, address.getIp()));
          }
        }
      }
    }
    if (records.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(type == Type.SRV || type == Type.ANY ? records : List.of());
  }

  /** An endpoint's name under its Service: its hostname, else its address with dashes (as CoreDNS). */
  private static String hostLabel(EndpointAddress address) {
    String hostname = address.getHostname();
    return hostname != null && !hostname.isEmpty() ? hostname.toLowerCase(Locale.ROOT) : address.getIp().replace('.', '-');
  }

  private static String protocolOf(String protocol) {
    return protocol == null ? "TCP" : protocol;
  }

  private Message forward(Message query, Message response) {
    try {
      Message answer = upstream.send(query);
      answer.getHeader().setID(query.getHeader().getID());
      return answer;
    } catch (IOException e) {
      response.getHeader().setRcode(Rcode.SERVFAIL);
      return response;
    }
  }

  private static ARecord a(Name name, String ip) {
    try {
      return new ARecord(name, DClass.IN, TTL, InetAddress.getByName(ip));
    } catch (UnknownHostException e) {
      throw new IllegalStateException("not an address: " + ip, e);
    }
  }

  private static String absolute(String name) {
    return name.endsWith(".") ? name : name + ".";
  }

  private static Name name(String text) {
    try {
      return Name.fromString(text);
    } catch (TextParseException e) {
      throw new IllegalArgumentException(text, e);
    }
  }
}
