package io.ordinal.kube;

import io.fabric8.kubernetes.api.model.Pod;

/**
 * A pod's name as seen from inside it, as the kubelet derives it (GeneratePodHostNameAndDomain):
 * {@code hostname} is {@code spec.hostname}, else the pod's name, cut to what the kernel allows; the
 * domain is {@code <spec.subdomain>.<namespace>.svc.<clusterDomain>} when the pod has a subdomain.
 *
 * @param hostname what {@code hostname} prints in the pod (and its {@code HOSTNAME})
 * @param domain the pod's DNS domain, or null without a subdomain
 */
public record PodHostname(String hostname, String domain) {
  /** The kernel's limit is 64 bytes with the terminating NUL. */
  public static final int MAX_LENGTH = 63;

  public static PodHostname of(Pod pod) {
    var spec = pod.getSpec();
    return of(pod.getMetadata().getNamespace(), pod.getMetadata().getName(),
        spec == null ? null : spec.getHostname(), spec == null ? null : spec.getSubdomain());
  }

  public static PodHostname of(String namespace, String podName, String specHostname, String subdomain) {
    String hostname = specHostname == null || specHostname.isEmpty() ? podName : specHostname;
    String domain = subdomain == null || subdomain.isEmpty() ? null
        : subdomain + "." + namespace + ".svc." + Labels.CLUSTER_DOMAIN;
    return new PodHostname(truncate(podName, hostname), domain);
  }

  /** What {@code hostname -f} prints: the hostname in the pod's domain, or the bare hostname without one. */
  public String fqdn() {
    return domain == null ? hostname : hostname + "." + domain;
  }

  /**
   * The kubelet's truncatePodHostnameIfNeeded: a hostname over 63 characters is cut to 63, then
   * trailing '-' and '.' are trimmed (a hostname may not end with them).
   */
  static String truncate(String podName, String hostname) {
    if (hostname.length() <= MAX_LENGTH) {
      return hostname;
    }
    String truncated = hostname.substring(0, MAX_LENGTH);
    int end = truncated.length();
    while (end > 0 && (truncated.charAt(end - 1) == '-' || truncated.charAt(end - 1) == '.')) {
      end--;
    }
    if (end == 0) {
      throw new IllegalArgumentException("hostname for pod \"" + podName + "\" was invalid: \"" + hostname + "\"");
    }
    return truncated.substring(0, end);
  }
}
