package io.ordinal.api;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodIP;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.ServiceSpec;
import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointPort;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import io.micronaut.context.event.StartupEvent;
import io.micronaut.runtime.event.annotation.EventListener;
import io.ordinal.apimachinery.ChangeFeed;
import io.ordinal.kube.StatefulSetFields;
import io.ordinal.store.KubeJson;
import io.ordinal.store.ObjectStore;
import io.ordinal.store.ObjectTable;
import io.ordinal.store.PodStore;
import io.ordinal.store.StoreException;
import io.ordinal.store.WatchLog.Change;
import jakarta.annotation.PreDestroy;
import jakarta.inject.Singleton;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The endpoint slice controller (upstream's pkg/controller/endpointslice and the reconciler of
 * staging/src/k8s.io/endpointslice): for each Service with a selector, but ExternalName ones, the
 * EndpointSlices of the pods it selects, written to their own table so that they are read, listed
 * and watched, with resourceVersions, as every stored kind is.
 *
 * <p>Content as upstream's: per address type of the Service, the pods that have an address of it and
 * are not finished, grouped by the ports the Service's ports resolve to on each (a named targetPort
 * by the pod's container ports), at most 100 to a slice; with no such pod, one placeholder slice
 * without ports or endpoints. Labels are the Service's with {@code kubernetes.io/service-name},
 * {@code endpointslice.kubernetes.io/managed-by} and, for a Service without a ClusterIP,
 * {@code service.kubernetes.io/headless}; the Service is the controller owner.
 *
 * <p>Names: {@code <service>-} and five characters, as upstream's generateName gives, but drawn from
 * the Service's uid instead of at random, so that instances sharing the database name a new slice
 * alike (one creates it, the other finds it); a slice keeps its name while its content changes, as
 * upstream updates a slice it would otherwise delete and create again. A Service that goes, or stops
 * selecting, has its slices deleted (upstream leaves that to the garbage collector, or keeps them).
 *
 * <p>Runs in every instance, from the change feed: a change of a pod or Service marks its namespace,
 * and one worker brings each marked namespace's slices in line; every 30 seconds every namespace with
 * Services or slices is looked at again, which covers what changed while no instance was running.
 */
@Singleton
public class EndpointSliceController implements ChangeFeed.Subscriber {
  public static final String SERVICE_NAME_LABEL = "kubernetes.io/service-name";
  public static final String MANAGED_BY_LABEL = "endpointslice.kubernetes.io/managed-by";
  public static final String CONTROLLER_NAME = "endpointslice-controller.k8s.io";
  static final String HEADLESS_LABEL = "service.kubernetes.io/headless";
  /** Upstream's default --max-endpoints-per-slice. */
  static final int MAX_ENDPOINTS_PER_SLICE = 100;
  /** Upstream's utilrand alphabet (no vowels, no confusable characters), which generateName draws from. */
  private static final String NAME_CHARACTERS = "bcdfghjklmnpqrstvwxz2456789";
  /** What generateName leaves of a prefix: 63 characters less the five it adds. */
  private static final int MAX_PREFIX = 58;
  private static final Set<String> WATCHED = Set.of("pods", "services");
  private static final Logger log = LoggerFactory.getLogger(EndpointSliceController.class);

  private final ObjectStore objects;
  private final PodStore pods;
  private final ChangeFeed feed;
  private final Set<String> dirty = ConcurrentHashMap.newKeySet();
  private final AtomicBoolean retryPending = new AtomicBoolean();
  private final ScheduledExecutorService worker = Executors.newSingleThreadScheduledExecutor(
      Thread.ofPlatform().daemon().name("endpoint-slices").factory());

  public EndpointSliceController(ObjectStore objects, PodStore pods, ChangeFeed feed) {
    this.objects = objects;
    this.pods = pods;
    this.feed = feed;
  }

  @EventListener
  void onStartup(StartupEvent event) {
    feed.subscribe(this);
    worker.scheduleWithFixedDelay(this::resyncAll, 0, 30, TimeUnit.SECONDS);
  }

  @PreDestroy
  void stop() {
    feed.unsubscribe(this);
    worker.shutdownNow();
  }

  @Override
  public void changed(List<Change> changes) {
    boolean marked = false;
    for (Change change : changes) {
      if (WATCHED.contains(change.resource())) {
        marked |= dirty.add(change.namespace());
      }
    }
    if (marked) {
      worker.execute(this::drain);
    }
  }

  @Override
  public void caughtUp(long resourceVersion) {
  }

  private void resyncAll() {
    try {
      dirty.addAll(objects.namespaces(ObjectTable.SERVICES));
      dirty.addAll(objects.namespaces(ObjectTable.ENDPOINT_SLICES));
      drain();
    } catch (RuntimeException e) {
      log.warn("endpoint slices: {} (tried again in 30 s)", e.toString());
    }
  }

  private void drain() {
    boolean failed = false;
    for (String namespace : List.copyOf(dirty)) {
      dirty.remove(namespace);
      try {
        reconcile(namespace);
      } catch (RuntimeException e) {
        // A slice another instance wrote meanwhile (said only when debugging), or the database away:
        // the namespace is looked at again.
        if (e instanceof WrittenMeanwhile) {
          log.debug("endpoint slices of namespace {}: {} (tried again in 1 s)", namespace, e.getMessage());
        } else {
          log.warn("endpoint slices of namespace {}: {} (tried again in 1 s)", namespace, e.toString());
        }
        dirty.add(namespace);
        failed = true;
      }
    }
    // One retry for the whole pass (it takes every namespace still dirty), and only one pending at a
    // time: a retry per failed namespace, each draining all of them again, would grow without bound
    // while the database is away.
    if (failed && retryPending.compareAndSet(false, true)) {
      worker.schedule(() -> {
        retryPending.set(false);
        drain();
      }, 1, TimeUnit.SECONDS);
    }
  }

  /** Brings the managed slices of one namespace in line with its Services and pods. */
  void reconcile(String namespace) {
    List<Service> services = objects.list(ObjectTable.SERVICES, Service.class, namespace);
    List<EndpointSlice> all = objects.list(ObjectTable.ENDPOINT_SLICES, EndpointSlice.class, namespace);
    List<EndpointSlice> managed = all.stream()
        .filter(s -> CONTROLLER_NAME.equals(labels(s).get(MANAGED_BY_LABEL))).toList();
    if (managed.isEmpty() && services.stream().noneMatch(EndpointSliceController::selecting)) {
      return; // nothing to write: the pods need not be read
    }
    List<Pod> namespacePods = services.stream().anyMatch(EndpointSliceController::selecting)
        ? pods.list(namespace) : List.of();
    Set<String> kept = new HashSet<>();
    Set<String> taken = new HashSet<>();
    all.forEach(s -> taken.add(s.getMetadata().getName()));
    for (Service service : services) {
      List<EndpointSlice> existing = managed.stream()
          .filter(s -> service.getMetadata().getName().equals(labels(s).get(SERVICE_NAME_LABEL))).toList();
      for (Write change : plan(service, desired(service, namespacePods), existing, taken)) {
        apply(change);
      }
      existing.forEach(s -> kept.add(s.getMetadata().getName()));
    }
    for (EndpointSlice orphan : managed) {
      if (!kept.contains(orphan.getMetadata().getName())) {
        apply(new Write(Op.DELETE, orphan, null));
      }
    }
  }

  enum Op { CREATE, UPDATE, DELETE }

  /** A write: the slice to create, the stored one to update (with {@code to}) or delete. */
  record Write(Op op, EndpointSlice slice, EndpointSlice to) {}

  private void apply(Write change) {
    EndpointSlice slice = change.slice();
    String namespace = slice.getMetadata().getNamespace();
    try {
      switch (change.op()) {
        case CREATE -> objects.create(ObjectTable.ENDPOINT_SLICES, slice, Instant.now());
        case UPDATE -> objects.update(ObjectTable.ENDPOINT_SLICES, change.to(),
            Long.parseLong(slice.getMetadata().getResourceVersion()));
        case DELETE -> objects.delete(ObjectTable.ENDPOINT_SLICES, namespace, slice.getMetadata().getName(),
            Long.parseLong(slice.getMetadata().getResourceVersion()));
      }
    } catch (StoreException e) {
      // Another instance wrote it first: whatever it wrote is read again on the next pass.
      throw new WrittenMeanwhile(change.op() + " of endpoint slice " + slice.getMetadata().getName() + ": " + e.reason(), e);
    }
  }

  /** A write that found the slice changed, gone or there already: another instance's doing. */
  private static final class WrittenMeanwhile extends RuntimeException {
    WrittenMeanwhile(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /**
   * The writes that turn a Service's {@code existing} slices into {@code desired} ones (unnamed): a
   * slice that already is as desired stays; the others of the same address type are updated to what
   * is left to write, in name order; what remains is created under new names or deleted. Slices of
   * another Service of that name (an earlier one: another uid) are deleted. A new name is none of
   * {@code taken} (the namespace's slices), which it joins.
   */
  static List<Write> plan(Service service, List<EndpointSlice> desired, List<EndpointSlice> existing,
      Set<String> taken) {
    List<Write> changes = new ArrayList<>();
    String uid = service.getMetadata().getUid();
    List<EndpointSlice> owned = new ArrayList<>();
    for (EndpointSlice slice : existing.stream().sorted(Comparator.comparing(s -> s.getMetadata().getName())).toList()) {
      if (ownedBy(slice, uid)) {
        owned.add(slice);
      } else {
        changes.add(new Write(Op.DELETE, slice, null));
      }
    }
    List<EndpointSlice> toWrite = new ArrayList<>();
    for (EndpointSlice want : desired) {
      EndpointSlice same = owned.stream().filter(s -> content(s).equals(content(want))).findFirst().orElse(null);
      if (same != null) {
        owned.remove(same);
      } else {
        toWrite.add(want);
      }
    }
    int attempt = 0;
    for (EndpointSlice want : toWrite) {
      EndpointSlice reused = owned.stream().filter(s -> Objects.equals(s.getAddressType(), want.getAddressType()))
          .findFirst().orElse(null);
      if (reused != null) {
        owned.remove(reused);
        want.getMetadata().setName(reused.getMetadata().getName());
        long generation = reused.getMetadata().getGeneration() == null ? 1 : reused.getMetadata().getGeneration();
        want.getMetadata().setGeneration(generation + 1);
        changes.add(new Write(Op.UPDATE, reused, want));
        continue;
      }
      String name;
      do {
        name = generatedName(service, attempt++);
      } while (!taken.add(name));
      want.getMetadata().setName(name);
      want.getMetadata().setGeneration(1L);
      changes.add(new Write(Op.CREATE, want, null));
    }
    owned.forEach(s -> changes.add(new Write(Op.DELETE, s, null)));
    return changes;
  }

  /** What the controller writes of a slice, to compare a stored one with a desired one. */
  private static String content(EndpointSlice slice) {
    Map<String, Object> content = new LinkedHashMap<>();
    content.put("labels", new TreeMap<>(labels(slice)));
    content.put("ownerReferences", slice.getMetadata().getOwnerReferences());
    content.put("addressType", slice.getAddressType());
    content.put("endpoints", StatefulSetFields.nullSafe(slice.getEndpoints()));
    content.put("ports", StatefulSetFields.nullSafe(slice.getPorts()));
    return KubeJson.write(content);
  }

  private static boolean ownedBy(EndpointSlice slice, String uid) {
    return StatefulSetFields.nullSafe(slice.getMetadata().getOwnerReferences()).stream()
        .anyMatch(o -> uid.equals(o.getUid()) && "Service".equals(o.getKind()) && "v1".equals(o.getApiVersion()));
  }

  /** Upstream's generateName over {@code <service>-}, its five characters drawn from the Service's uid. */
  static String generatedName(Service service, int attempt) {
    String prefix = generateName(service);
    byte[] digest;
    try {
      digest = MessageDigest.getInstance("SHA-256").digest((service.getMetadata().getUid() + "/" + attempt)
          .getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
    StringBuilder name = new StringBuilder(prefix.length() > MAX_PREFIX ? prefix.substring(0, MAX_PREFIX) : prefix);
    for (int i = 0; i < 5; i++) {
      name.append(NAME_CHARACTERS.charAt(Byte.toUnsignedInt(digest[i]) % NAME_CHARACTERS.length()));
    }
    return name.toString();
  }

  private static String generateName(Service service) {
    return service.getMetadata().getName() + "-";
  }

  /** A Service the controller makes slices for: one with a selector, but ExternalName. */
  static boolean selecting(Service service) {
    ServiceSpec spec = service.getSpec();
    return spec != null && spec.getSelector() != null && !spec.getSelector().isEmpty()
        && !"ExternalName".equals(spec.getType());
  }

  /** The slices a Service should have, unnamed, from the pods of its namespace (upstream's reconcileByAddressType). */
  static List<EndpointSlice> desired(Service service, List<Pod> namespacePods) {
    if (!selecting(service)) {
      return List.of();
    }
    Map<String, String> selector = service.getSpec().getSelector();
    List<Pod> selected = namespacePods.stream()
        .filter(p -> p.getMetadata().getLabels() != null && p.getMetadata().getLabels().entrySet().containsAll(selector.entrySet()))
        .filter(EndpointSliceController::inEndpoints)
        .sorted(Comparator.comparing(p -> p.getMetadata().getName()))
        .toList();
    List<EndpointSlice> slices = new ArrayList<>();
    for (String addressType : addressTypes(service)) {
      // Pods whose ports resolve alike share slices (upstream's PortMapKey), in the order first met.
      Map<String, List<EndpointPort>> portsByKey = new LinkedHashMap<>();
      Map<String, List<Endpoint>> endpointsByKey = new LinkedHashMap<>();
      for (Pod pod : selected) {
        Endpoint endpoint = endpoint(pod, service, addressType);
        if (endpoint.getAddresses().isEmpty()) {
          continue;
        }
        List<EndpointPort> ports = endpointPorts(service, pod);
        String key = ports.stream().map(KubeJson::write).sorted().toList().toString();
        portsByKey.putIfAbsent(key, ports);
        endpointsByKey.computeIfAbsent(key, k -> new ArrayList<>()).add(endpoint);
      }
      endpointsByKey.forEach((key, endpoints) -> {
        for (int from = 0; from < endpoints.size(); from += MAX_ENDPOINTS_PER_SLICE) {
          slices.add(slice(service, addressType, portsByKey.get(key),
              endpoints.subList(from, Math.min(endpoints.size(), from + MAX_ENDPOINTS_PER_SLICE))));
        }
      });
      if (endpointsByKey.isEmpty()) {
        slices.add(slice(service, addressType, List.of(), List.of())); // the placeholder
      }
    }
    return slices;
  }

  /** Upstream's ShouldPodBeInEndpoints with terminating pods included: not finished, and with an address. */
  private static boolean inEndpoints(Pod pod) {
    var status = pod.getStatus();
    if (status == null || "Failed".equals(status.getPhase()) || "Succeeded".equals(status.getPhase())) {
      return false;
    }
    return (status.getPodIP() != null && !status.getPodIP().isEmpty())
        || !StatefulSetFields.nullSafe(status.getPodIPs()).isEmpty();
  }

  /** Upstream's getAddressTypesForService: the Service's IP families, else its ClusterIP's, else both. */
  static Set<String> addressTypes(Service service) {
    ServiceSpec spec = service.getSpec();
    Set<String> types = new LinkedHashSet<>();
    for (String family : StatefulSetFields.nullSafe(spec.getIpFamilies())) {
      if (family.equals("IPv4") || family.equals("IPv6")) {
        types.add(family);
      }
    }
    if (!types.isEmpty()) {
      return types;
    }
    String clusterIp = spec.getClusterIP();
    if (clusterIp != null && !clusterIp.isEmpty() && !clusterIp.equals("None")) {
      return Set.of(clusterIp.contains(":") ? "IPv6" : "IPv4");
    }
    return new LinkedHashSet<>(List.of("IPv4", "IPv6"));
  }

  /** Upstream's podToEndpoint (zone: Ordinal's nodes carry no topology labels, so none). */
  static Endpoint endpoint(Pod pod, Service service, String addressType) {
    boolean serving = StatefulSetFields.nullSafe(pod.getStatus().getConditions()).stream()
        .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
    boolean terminating = pod.getMetadata().getDeletionTimestamp() != null;
    // Never ready while terminating, unless the Service publishes addresses that are not ready.
    boolean ready = Boolean.TRUE.equals(service.getSpec().getPublishNotReadyAddresses()) || (serving && !terminating);
    List<String> addresses = new ArrayList<>();
    List<String> ips = new ArrayList<>(StatefulSetFields.nullSafe(pod.getStatus().getPodIPs()).stream()
        .map(PodIP::getIp).toList());
    if (ips.isEmpty() && pod.getStatus().getPodIP() != null) {
      ips.add(pod.getStatus().getPodIP());
    }
    for (String ip : ips) {
      if (ip.contains(":") == addressType.equals("IPv6")) {
        addresses.add(ip);
      }
    }
    EndpointBuilder endpoint = new EndpointBuilder().withAddresses(addresses)
        .withNewConditions().withReady(ready).withServing(serving).withTerminating(terminating).endConditions()
        .withTargetRef(new ObjectReferenceBuilder().withKind("Pod").withNamespace(pod.getMetadata().getNamespace())
            .withName(pod.getMetadata().getName()).withUid(pod.getMetadata().getUid()).build());
    String nodeName = pod.getSpec().getNodeName();
    if (nodeName != null && !nodeName.isEmpty()) {
      endpoint.withNodeName(nodeName);
    }
    // Upstream's ShouldSetHostname: the pod names a hostname and this Service as its subdomain.
    String hostname = pod.getSpec().getHostname();
    if (hostname != null && !hostname.isEmpty() && service.getMetadata().getName().equals(pod.getSpec().getSubdomain())) {
      endpoint.withHostname(hostname);
    }
    return endpoint.build();
  }

  /** Upstream's getEndpointPorts: each Service port the pod resolves, with the Service port's name and protocol. */
  static List<EndpointPort> endpointPorts(Service service, Pod pod) {
    List<EndpointPort> ports = new ArrayList<>();
    for (ServicePort port : StatefulSetFields.nullSafe(service.getSpec().getPorts())) {
      Integer number = findPort(pod, port);
      if (number != null) {
        ports.add(new EndpointPort(port.getAppProtocol(), port.getName() == null ? "" : port.getName(), number,
            port.getProtocol()));
      }
    }
    return ports;
  }

  /**
   * Upstream's FindPort: a number as it is; a name looked up among the containers' ports of the
   * Service port's protocol, then those of sidecars (init containers that restart always); null when
   * no container names it.
   */
  static Integer findPort(Pod pod, ServicePort port) {
    if (port.getTargetPort() == null) {
      return port.getPort();
    }
    if (port.getTargetPort().getIntVal() != null) {
      return port.getTargetPort().getIntVal();
    }
    String name = port.getTargetPort().getStrVal();
    String protocol = port.getProtocol() == null ? "TCP" : port.getProtocol();
    List<Container> candidates = new ArrayList<>(StatefulSetFields.nullSafe(pod.getSpec().getContainers()));
    StatefulSetFields.nullSafe(pod.getSpec().getInitContainers()).stream()
        .filter(c -> "Always".equals(c.getRestartPolicy())).forEach(candidates::add);
    for (Container container : candidates) {
      for (ContainerPort candidate : StatefulSetFields.nullSafe(container.getPorts())) {
        String candidateProtocol = candidate.getProtocol() == null ? "TCP" : candidate.getProtocol();
        if (name.equals(candidate.getName()) && protocol.equals(candidateProtocol)) {
          return candidate.getContainerPort();
        }
      }
    }
    return null;
  }

  /** Upstream's newEndpointSlice with its endpoints, unnamed (its name is given when it is planned). */
  private static EndpointSlice slice(Service service, String addressType, List<EndpointPort> ports,
      List<Endpoint> endpoints) {
    var meta = service.getMetadata();
    return new EndpointSliceBuilder().withApiVersion("discovery.k8s.io/v1").withKind("EndpointSlice")
        .withNewMetadata().withNamespace(meta.getNamespace()).withGenerateName(generateName(service))
        .withLabels(sliceLabels(service))
        .withOwnerReferences(new OwnerReferenceBuilder().withApiVersion("v1").withKind("Service").withName(meta.getName())
            .withUid(meta.getUid()).withController(true).withBlockOwnerDeletion(true).build())
        .endMetadata()
        .withAddressType(addressType).withPorts(List.copyOf(ports)).withEndpoints(List.copyOf(endpoints)).build();
  }

  /** Upstream's setEndpointSliceLabels: the Service's labels but the reserved ones, then the reserved ones. */
  static Map<String, String> sliceLabels(Service service) {
    Map<String, String> labels = new TreeMap<>();
    Map<String, String> serviceLabels = service.getMetadata().getLabels() == null ? Map.of() : service.getMetadata().getLabels();
    serviceLabels.forEach((key, value) -> {
      if (!Set.of(SERVICE_NAME_LABEL, MANAGED_BY_LABEL, HEADLESS_LABEL).contains(key)) {
        labels.put(key, value);
      }
    });
    String clusterIp = service.getSpec().getClusterIP();
    if (clusterIp == null || clusterIp.isEmpty() || clusterIp.equals("None")) {
      labels.put(HEADLESS_LABEL, "");
    }
    labels.put(SERVICE_NAME_LABEL, service.getMetadata().getName());
    labels.put(MANAGED_BY_LABEL, CONTROLLER_NAME);
    return labels;
  }

  private static Map<String, String> labels(HasMetadata object) {
    return object.getMetadata().getLabels() == null ? Map.of() : object.getMetadata().getLabels();
  }
}
