package io.ordinal.api.core;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.LoadBalancerStatus;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.ServiceSpec;
import io.fabric8.kubernetes.api.model.ServiceStatus;
import io.ordinal.api.discovery.ApiResources;
import io.ordinal.api.registry.Resource;
import io.ordinal.api.registry.Strategy;
import io.ordinal.apimachinery.ApiException;
import io.ordinal.apimachinery.FieldError;
import io.ordinal.apimachinery.KubeCodec;
import io.ordinal.apimachinery.ObjectMetaValidation;
import io.ordinal.store.ClusterIps;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Services (upstream's pkg/registry/core/service and ValidateService, cut to what Ordinal serves):
 * ClusterIP Services, headless ones ({@code clusterIP: None}) and ExternalName ones. Defaults as
 * upstream's (type ClusterIP, sessionAffinity None, protocol TCP, targetPort the port, IPv4 single
 * stack, internalTrafficPolicy Cluster); a ClusterIP Service gets a free address of the service
 * network unless it names one, which must be free and in it (the local driver's ServiceProxy routes
 * its TCP ports; a warning says so of the others). NodePort and LoadBalancer Services are refused:
 * Ordinal has no node ports and no load balancers.
 */
public final class ServiceStrategy implements Strategy<Service> {
  public static final Resource<Service> RESOURCE = new Resource<>(ApiResources.SERVICES, Service.class);
  private static final Pattern DNS1035_LABEL = Pattern.compile("[a-z]([-a-z0-9]*[a-z0-9])?");
  private static final Pattern SERVICE_PORT_NAME = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
  private static final Pattern IANA_SVC_NAME = Pattern.compile("[-a-z0-9]*[a-z][-a-z0-9]*");

  private final ClusterIps clusterIps;

  public ServiceStrategy(ClusterIps clusterIps) {
    this.clusterIps = clusterIps;
  }

  @Override
  public Resource<Service> resource() {
    return RESOURCE;
  }

  @Override
  public void prepareForCreate(Service service) {
    service.setStatus(new ServiceStatus(List.of(), new LoadBalancerStatus()));
    defaults(service);
    ServiceSpec spec = service.getSpec();
    if (spec.getType().equals("ClusterIP") && isEmpty(spec.getClusterIP())) {
      String ip = clusterIps.free().orElseThrow(() -> ApiException.of(500, "InternalError",
          "failed to allocate a serviceIP: range is full"));
      spec.setClusterIP(ip);
      spec.setClusterIPs(List.of(ip));
    }
    if (spec.getType().equals("ClusterIP") && !"None".equals(spec.getClusterIP())) {
      // Said, not silent: the proxy routes TCP ports only.
      for (ServicePort port : spec.getPorts() == null ? List.<ServicePort>of() : spec.getPorts()) {
        if (!"TCP".equals(port.getProtocol())) {
          KubeCodec.warn("port " + port.getPort() + "/" + port.getProtocol() + " of ClusterIP " + spec.getClusterIP()
              + " is not routed: Ordinal's Service proxy carries TCP only; reach the pods by a headless Service's names");
        }
      }
    }
  }

  @Override
  public void prepareForUpdate(Service service, Service old) {
    service.setStatus(old.getStatus());
    defaults(service);
    ServiceSpec spec = service.getSpec();
    // An update that leaves the address out keeps it, as upstream's PrepareForUpdate does.
    if (isEmpty(spec.getClusterIP()) && old.getSpec() != null && spec.getType().equals(old.getSpec().getType())) {
      spec.setClusterIP(old.getSpec().getClusterIP());
      spec.setClusterIPs(old.getSpec().getClusterIPs());
    }
  }

  @Override
  public List<FieldError> validate(Service service) {
    List<FieldError> errors = validateMeta(service);
    ServiceSpec spec = service.getSpec();
    errors.addAll(validateSpec(spec));
    String ip = spec.getClusterIP();
    if (spec.getType().equals("ClusterIP") && !isEmpty(ip) && !ip.equals("None")) {
      if (!clusterIps.inRange(ip)) {
        errors.add(FieldError.invalid("spec.clusterIPs", List.of(ip), "failed to allocate IP " + ip
            + ": provided IP is not in the valid range. The range of valid IPs is the service network"));
      } else {
        String self = service.getMetadata().getNamespace() + "/" + service.getMetadata().getName();
        clusterIps.holder(ip).filter(holder -> !holder.equals(self)).ifPresent(holder -> errors.add(FieldError.invalid(
            "spec.clusterIPs", List.of(ip), "failed to allocate IP " + ip + ": provided IP is already allocated")));
      }
    }
    return errors;
  }

  @Override
  public List<FieldError> validateUpdate(Service service, Service old) {
    List<FieldError> errors = new ArrayList<>();
    ServiceSpec spec = service.getSpec();
    ServiceSpec was = old.getSpec();
    if (was != null && spec.getType().equals(was.getType()) && !isEmpty(was.getClusterIP())
        && !Objects.equals(spec.getClusterIP(), was.getClusterIP())) {
      errors.add(FieldError.invalid("spec.clusterIPs[0]", spec.getClusterIP(), "may not change once set"));
    }
    errors.addAll(validate(service));
    return errors;
  }

  private static List<FieldError> validateMeta(Service service) {
    var meta = service.getMetadata();
    String name = meta == null ? null : meta.getName();
    List<FieldError> errors = new ArrayList<>();
    if (name == null || name.isEmpty()) {
      errors.add(FieldError.required("metadata.name", "name or generateName is required"));
    } else if (name.length() > 63 || !DNS1035_LABEL.matcher(name).matches()) {
      errors.add(FieldError.invalid("metadata.name", name, "a DNS-1035 label must consist of lower case alphanumeric"
          + " characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g."
          + " 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"));
    }
    if (meta != null) {
      errors.addAll(ObjectMetaValidation.validateLabelsAndAnnotations(meta));
    }
    return errors;
  }

  private static List<FieldError> validateSpec(ServiceSpec spec) {
    List<FieldError> errors = new ArrayList<>();
    String type = spec.getType();
    switch (type) {
      case "ClusterIP", "ExternalName" -> { }
      case "NodePort", "LoadBalancer" -> errors.add(FieldError.forbidden("spec.type", type
          + " Services are not served by Ordinal (it has no node ports and no load balancers): use ClusterIP"));
      default -> errors.add(FieldError.notSupported("spec.type", type, "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"));
    }
    if (type.equals("ExternalName")) {
      if (isEmpty(spec.getExternalName())) {
        errors.add(FieldError.required("spec.externalName", ""));
      } else {
        errors.addAll(ObjectMetaValidation.validateDnsSubdomain("spec.externalName", spec.getExternalName()));
      }
    }
    List<ServicePort> ports = spec.getPorts() == null ? List.of() : spec.getPorts();
    boolean headless = "None".equals(spec.getClusterIP());
    if (ports.isEmpty() && type.equals("ClusterIP") && !headless) {
      errors.add(FieldError.required("spec.ports", ""));
    }
    Set<String> names = new HashSet<>();
    Set<String> portsSeen = new HashSet<>();
    for (int i = 0; i < ports.size(); i++) {
      ServicePort port = ports.get(i);
      String path = "spec.ports[" + i + "]";
      if (ports.size() > 1 && isEmpty(port.getName())) {
        errors.add(FieldError.required(path + ".name", ""));
      } else if (!isEmpty(port.getName())) {
        if (port.getName().length() > 63 || !SERVICE_PORT_NAME.matcher(port.getName()).matches()) {
          errors.add(FieldError.invalid(path + ".name", port.getName(), "a lowercase RFC 1123 label must consist of lower"
              + " case alphanumeric characters or '-', and must start and end with an alphanumeric character"));
        } else if (!names.add(port.getName())) {
          errors.add(FieldError.duplicate(path + ".name", port.getName()));
        }
      }
      if (port.getPort() == null || port.getPort() < 1 || port.getPort() > 65535) {
        errors.add(FieldError.invalid(path + ".port", port.getPort(), "must be between 1 and 65535, inclusive"));
      }
      if (!Set.of("TCP", "UDP", "SCTP").contains(port.getProtocol())) {
        errors.add(FieldError.notSupported(path + ".protocol", port.getProtocol(), "SCTP", "TCP", "UDP"));
      }
      IntOrString target = port.getTargetPort();
      if (target != null && target.getIntVal() != null && (target.getIntVal() < 1 || target.getIntVal() > 65535)) {
        errors.add(FieldError.invalid(path + ".targetPort", target.getIntVal(), "must be between 1 and 65535, inclusive"));
      } else if (target != null && target.getStrVal() != null && (target.getStrVal().length() > 15
          || !IANA_SVC_NAME.matcher(target.getStrVal()).matches())) {
        errors.add(FieldError.invalid(path + ".targetPort", target.getStrVal(), "must contain only alpha-numeric"
            + " characters (a-z, 0-9), and hyphens (-), contain at least one letter, and be at most 15 characters"));
      }
      if (!portsSeen.add(port.getPort() + "/" + port.getProtocol())) {
        errors.add(FieldError.duplicate(path, port.getPort() + "/" + port.getProtocol()));
      }
    }
    errors.addAll(ObjectMetaValidation.validateLabels("spec.selector", spec.getSelector()));
    if (!Set.of("None", "ClientIP").contains(spec.getSessionAffinity())) {
      errors.add(FieldError.notSupported("spec.sessionAffinity", spec.getSessionAffinity(), "ClientIP", "None"));
    }
    return errors;
  }

  /** Upstream's SetDefaults_Service and the registry's defaults for what Ordinal serves. */
  private static void defaults(Service service) {
    if (service.getSpec() == null) {
      service.setSpec(new ServiceSpec());
    }
    ServiceSpec spec = service.getSpec();
    if (isEmpty(spec.getType())) {
      spec.setType("ClusterIP");
    }
    if (isEmpty(spec.getSessionAffinity())) {
      spec.setSessionAffinity("None");
    }
    if (spec.getPorts() != null) {
      for (ServicePort port : spec.getPorts()) {
        if (isEmpty(port.getProtocol())) {
          port.setProtocol("TCP");
        }
        if (port.getTargetPort() == null || (port.getTargetPort().getIntVal() == null && isEmpty(port.getTargetPort().getStrVal()))
            || Integer.valueOf(0).equals(port.getTargetPort().getIntVal())) {
          port.setTargetPort(new IntOrString(port.getPort()));
        }
      }
    }
    if (spec.getType().equals("ClusterIP")) {
      if (!isEmpty(spec.getClusterIP()) && (spec.getClusterIPs() == null || spec.getClusterIPs().isEmpty())) {
        spec.setClusterIPs(List.of(spec.getClusterIP()));
      }
      if (spec.getIpFamilies() == null || spec.getIpFamilies().isEmpty()) {
        spec.setIpFamilies(List.of("IPv4"));
      }
      if (isEmpty(spec.getIpFamilyPolicy())) {
        spec.setIpFamilyPolicy("SingleStack");
      }
      if (isEmpty(spec.getInternalTrafficPolicy())) {
        spec.setInternalTrafficPolicy("Cluster");
      }
    }
  }

  private static boolean isEmpty(String value) {
    return value == null || value.isEmpty();
  }
}
