package io.ordinal.api;

import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.EndpointAddress;
import io.fabric8.kubernetes.api.model.EndpointAddressBuilder;
import io.fabric8.kubernetes.api.model.EndpointPort;
import io.fabric8.kubernetes.api.model.EndpointSubsetBuilder;
import io.fabric8.kubernetes.api.model.Endpoints;
import io.fabric8.kubernetes.api.model.EndpointsBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.ordinal.apimachinery.ApiException;
import io.ordinal.kube.StatefulSetFields;
import io.ordinal.store.ObjectStore;
import io.ordinal.store.ObjectTable;
import io.ordinal.store.PodRow;
import io.ordinal.store.PodStore;
import io.ordinal.store.StatefulSetStore;
import jakarta.inject.Singleton;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Endpoints, made when read. For a Service with a selector, as upstream's endpoints controller makes
 * them: the pods of its namespace the selector matches that have an address, Ready ones as
 * addresses, the others as notReadyAddresses (all as addresses with publishNotReadyAddresses), the
 * Service's ports with each targetPort resolved (a name through the first selected pod's container
 * ports). Without a Service of that name, the members of the sets whose serviceName it is, as
 * before Services existed here: a governing Service need not be created.
 */
@Singleton
public class ServiceEndpoints {
  private final PodStore pods;
  private final StatefulSetStore sets;
  private final ObjectStore objects;

  public ServiceEndpoints(PodStore pods, StatefulSetStore sets, ObjectStore objects) {
    this.pods = pods;
    this.sets = sets;
    this.objects = objects;
  }

  public Endpoints get(String namespace, String name) {
    Optional<Service> service = objects.find(ObjectTable.SERVICES, Service.class, namespace, name);
    if (service.isPresent()) {
      return ofService(namespace, name, service.get());
    }
    return ofGoverningSets(namespace, name);
  }

  private Endpoints ofService(String namespace, String name, Service service) {
    Map<String, String> selector = service.getSpec().getSelector();
    if (selector == null || selector.isEmpty() || "ExternalName".equals(service.getSpec().getType())) {
      throw ApiException.notFound("endpoints", name);
    }
    boolean publishNotReady = Boolean.TRUE.equals(service.getSpec().getPublishNotReadyAddresses());
    List<EndpointAddress> ready = new ArrayList<>();
    List<EndpointAddress> notReady = new ArrayList<>();
    Pod first = null;
    for (PodRow row : pods.inNamespace(namespace)) {
      if (row.podIp() == null || row.terminating()) {
        continue;
      }
      Pod pod = PodStore.toObject(row);
      Map<String, String> labels = pod.getMetadata().getLabels() == null ? Map.of() : pod.getMetadata().getLabels();
      if (!labels.entrySet().containsAll(selector.entrySet())) {
        continue;
      }
      first = first == null ? pod : first;
      // A hostname only for a pod whose subdomain is this Service, as upstream's DNS names it.
      String hostname = name.equals(pod.getSpec().getSubdomain()) ? pod.getSpec().getHostname() : null;
      (row.ready() || publishNotReady ? ready : notReady).add(address(namespace, row, hostname));
    }
    List<EndpointPort> ports = new ArrayList<>();
    for (ServicePort port : service.getSpec().getPorts() == null ? List.<ServicePort>of() : service.getSpec().getPorts()) {
      Integer target = targetPort(port, first);
      if (target != null) {
        ports.add(new EndpointPort(null, port.getName(), target, port.getProtocol()));
      }
    }
    return endpoints(namespace, name, ready, notReady, ports);
  }

  /** A targetPort's number: itself, or the named container port of the pod (none when no pod names it). */
  private static Integer targetPort(ServicePort port, Pod pod) {
    if (port.getTargetPort() == null) {
      return port.getPort();
    }
    if (port.getTargetPort().getIntVal() != null) {
      return port.getTargetPort().getIntVal();
    }
    if (pod == null) {
      return null;
    }
    String wanted = port.getTargetPort().getStrVal();
    return pod.getSpec().getContainers().stream().flatMap(c -> StatefulSetFields.nullSafe(c.getPorts()).stream())
        .filter(p -> wanted.equals(p.getName())).map(ContainerPort::getContainerPort).findFirst().orElse(null);
  }

  private Endpoints ofGoverningSets(String namespace, String name) {
    var governed = sets.list(namespace).stream().filter(s -> name.equals(s.getSpec().getServiceName())).toList();
    if (governed.isEmpty()) {
      throw ApiException.notFound("endpoints", name);
    }
    Set<String> setNames = governed.stream().map(s -> s.getMetadata().getName()).collect(Collectors.toSet());
    Set<String> setUids = governed.stream().map(s -> s.getMetadata().getUid()).collect(Collectors.toSet());
    List<EndpointAddress> ready = new ArrayList<>();
    List<EndpointAddress> notReady = new ArrayList<>();
    for (PodRow row : pods.inNamespace(namespace)) {
      // A pod its set released (its labels no longer match) is no member either.
      if (!setNames.contains(row.setName()) || row.podIp() == null || row.terminating()
          || setUids.stream().noneMatch(uid -> PodStore.controlledBy(row, uid))) {
        continue;
      }
      (row.ready() ? ready : notReady).add(address(namespace, row, row.name()));
    }
    Map<String, EndpointPort> ports = new LinkedHashMap<>();
    governed.stream().flatMap(set -> set.getSpec().getTemplate().getSpec().getContainers().stream())
        .flatMap(container -> StatefulSetFields.nullSafe(container.getPorts()).stream())
        .forEach((ContainerPort port) -> ports.putIfAbsent(port.getName() + "/" + port.getContainerPort(),
            new EndpointPort(null, port.getName(), port.getContainerPort(), port.getProtocol())));
    return endpoints(namespace, name, ready, notReady, List.copyOf(ports.values()));
  }

  private static EndpointAddress address(String namespace, PodRow row, String hostname) {
    return new EndpointAddressBuilder().withIp(row.podIp()).withHostname(hostname)
        .withNodeName("localhost").withNewTargetRef().withKind("Pod").withName(row.name())
        .withNamespace(namespace).withUid(row.uid()).endTargetRef().build();
  }

  private static Endpoints endpoints(String namespace, String name, List<EndpointAddress> ready,
      List<EndpointAddress> notReady, List<EndpointPort> ports) {
    Endpoints endpoints = new EndpointsBuilder().withApiVersion("v1").withKind("Endpoints")
        .withNewMetadata().withName(name).withNamespace(namespace).endMetadata()
        .build();
    if (!ready.isEmpty() || !notReady.isEmpty()) {
      endpoints.setSubsets(List.of(new EndpointSubsetBuilder().withAddresses(ready).withNotReadyAddresses(notReady)
          .withPorts(ports).build()));
    }
    return endpoints;
  }
}
