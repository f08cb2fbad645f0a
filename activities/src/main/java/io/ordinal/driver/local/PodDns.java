package io.ordinal.driver.local;

import io.fabric8.kubernetes.api.model.PodDNSConfig;
import io.fabric8.kubernetes.api.model.PodDNSConfigOption;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.ordinal.kube.Labels;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A pod's {@code /etc/resolv.conf}, as the kubelet makes it (pkg/kubelet/network/dns): under the
 * dnsPolicy ClusterFirst (the default; for a hostNetwork pod only with ClusterFirstWithHostNet) the
 * installation's cluster DNS, the searches {@code <ns>.svc.<domain> svc.<domain> <domain>} and
 * {@code ndots:5}; under Default the machine's own file; under None only the pod's dnsConfig, which
 * is otherwise merged in (nameservers and searches appended, options replacing those of their name).
 */
public final class PodDns {
  /** At most as many nameservers as glibc reads, and searches as the kubelet allows. */
  private static final int MAX_NAMESERVERS = 3;
  private static final int MAX_SEARCHES = 32;

  private PodDns() {}

  /**
   * The file's text, or empty when the pod takes the machine's (dnsPolicy Default, or ClusterFirst
   * with hostNetwork).
   */
  public static Optional<String> resolvConf(String namespace, PodSpec spec, String clusterNameserver) {
    String policy = spec.getDnsPolicy() == null ? "ClusterFirst" : spec.getDnsPolicy();
    boolean hostNetwork = Boolean.TRUE.equals(spec.getHostNetwork());
    List<String> nameservers = new ArrayList<>();
    List<String> searches = new ArrayList<>();
    Map<String, String> options = new LinkedHashMap<>();
    switch (policy) {
      case "None" -> { }
      case "ClusterFirstWithHostNet" -> cluster(namespace, clusterNameserver, nameservers, searches, options);
      case "ClusterFirst" -> {
        if (hostNetwork) {
          return Optional.empty();
        }
        cluster(namespace, clusterNameserver, nameservers, searches, options);
      }
      default -> {
        return Optional.empty(); // Default: the machine's resolv.conf, which the container sees in /etc
      }
    }
    PodDNSConfig config = spec.getDnsConfig();
    if (config != null) {
      if (config.getNameservers() != null) {
        nameservers.addAll(config.getNameservers());
      }
      if (config.getSearches() != null) {
        searches.addAll(config.getSearches());
      }
      for (PodDNSConfigOption option : config.getOptions() == null ? List.<PodDNSConfigOption>of() : config.getOptions()) {
        options.put(option.getName(), option.getValue());
      }
    }
    StringBuilder text = new StringBuilder();
    nameservers.stream().distinct().limit(MAX_NAMESERVERS).forEach(ns -> text.append("nameserver ").append(ns).append('\n'));
    List<String> search = new ArrayList<>(new LinkedHashSet<>(searches));
    if (!search.isEmpty()) {
      text.append("search ").append(String.join(" ", search.subList(0, Math.min(MAX_SEARCHES, search.size())))).append('\n');
    }
    if (!options.isEmpty()) {
      List<String> rendered = new ArrayList<>();
      options.forEach((name, value) -> rendered.add(value == null || value.isEmpty() ? name : name + ":" + value));
      text.append("options ").append(String.join(" ", rendered)).append('\n');
    }
    return Optional.of(text.toString());
  }

  private static void cluster(String namespace, String nameserver, List<String> nameservers, List<String> searches,
      Map<String, String> options) {
    String domain = Labels.CLUSTER_DOMAIN;
    nameservers.add(nameserver);
    searches.addAll(List.of(namespace + ".svc." + domain, "svc." + domain, domain));
    options.put("ndots", "5");
  }
}
