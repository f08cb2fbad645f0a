package io.ordinal.driver.local;

import io.micronaut.data.exceptions.DataAccessException;
import io.ordinal.kube.Labels;
import io.ordinal.kube.PodHostname;
import io.ordinal.store.PodAddressRow;
import io.ordinal.store.Repositories;
import io.ordinal.store.StatefulSetStore;
import jakarta.inject.Singleton;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Stable network identity: each pod identity gets an address of this installation's block of the
 * pod network ({@link PodNetwork}) the first time it is created; the address is persisted and stays
 * with the identity while its set exists. An identity whose address lies outside the block (given by
 * a release that used loopback addresses, or before the block was claimed again) gets a new one.
 * An address this machine uses otherwise (on another interface, or routed elsewhere) is skipped.
 * Every pod of a namespace gets a hosts file naming all its members.
 */
@Singleton
public class AddressBook {
  public static final String CLUSTER_DOMAIN = Labels.CLUSTER_DOMAIN;
  private final Repositories.PodAddresses addresses;
  private final LocalPaths paths;
  private final PodNetwork network;

  public AddressBook(Repositories.PodAddresses addresses, LocalPaths paths, PodNetwork network) {
    this.addresses = addresses;
    this.paths = paths;
    this.network = network;
  }

  /**
   * The pod's address, allocated on first use. Synchronized: one allocator per service; another
   * instance sharing the database may take the same free address (or this identity) at the same
   * moment, and the unique keys refuse the second insert: then it looks again.
   */
  public synchronized String addressOf(String namespace, String setName, String podName) {
    for (int attempt = 1; ; attempt++) {
      try {
        return allocate(namespace, setName, podName);
      } catch (DataAccessException e) {
        if (attempt >= 10) {
          throw e;
        }
      }
    }
  }

  private String allocate(String namespace, String setName, String podName) {
    String id = StatefulSetStore.id(namespace, podName);
    PodNetwork.Block block = network.block();
    var kept = addresses.findById(id);
    if (kept.isPresent() && block.contains(kept.get().ip())) {
      return kept.get().ip();
    }
    Set<String> taken = new HashSet<>(addresses.listIp());
    for (String ip : block.podAddresses()) {
      // Asked only of the address about to be given: the block was free of the machine's networks
      // when claimed, so this is rarely more than one look.
      if (!taken.contains(ip) && !network.inUse(ip)) {
        PodAddressRow row = new PodAddressRow(id, namespace, setName, podName, ip);
        if (kept.isPresent()) {
          addresses.update(row);
        } else {
          addresses.save(row);
        }
        return ip;
      }
    }
    throw new IllegalStateException("no free address left in " + PodNetwork.format(block.base()) + "/" + block.prefix());
  }

  public List<PodAddressRow> members(String namespace) {
    return addresses.findByNamespaceOrderByPodName(namespace);
  }

  /**
   * Writes the hosts file of every pod of the namespace. Rewritten in place (not replaced), so that
   * a file already bind-mounted over a running pod's /etc/hosts shows the new entries.
   *
   * @param serviceNames each set's serviceName
   * @param hostnames each member's own name inside it, by pod name (absent: derived from its pod
   *     name and its set's serviceName, as PodFactory sets spec.hostname and spec.subdomain)
   */
  public synchronized void writeHostsFiles(String namespace, Map<String, String> serviceNames,
      Map<String, PodHostname> hostnames) {
    List<PodAddressRow> members = members(namespace);
    for (PodAddressRow member : members) {
      PodHostname self = hostnames.getOrDefault(member.podName(),
          PodHostname.of(namespace, member.podName(), null, serviceNames.get(member.setName())));
      byte[] bytes = hostsFile(namespace, members, serviceNames, member, self).getBytes(StandardCharsets.UTF_8);
      Path file = paths.hosts(namespace, member.podName());
      try {
        Files.createDirectories(file.getParent());
        Files.write(file, bytes, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
            StandardOpenOption.TRUNCATE_EXISTING);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  /**
   * The hosts file of pod {@code self}: localhost, then its own line as the kubelet writes it
   * ({@code <ip>\t<fqdn>\t<hostname>}: the FQDN first, so that {@code hostname -f} finds it as the
   * canonical name of the hostname) followed by its other names, then every other member of the
   * namespace by {@code <pod> <pod>.<service> <pod>.<service>.<ns>.svc.<domain>}.
   */
  static String hostsFile(String namespace, List<PodAddressRow> members, Map<String, String> serviceNames,
      PodAddressRow self, PodHostname hostname) {
    StringBuilder text = new StringBuilder("127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n");
    Set<String> own = new LinkedHashSet<>();
    own.add(hostname.fqdn());
    own.add(hostname.hostname());
    own.addAll(names(namespace, self, serviceNames));
    text.append(self.ip()).append('\t').append(String.join("\t", own)).append('\n');
    for (PodAddressRow member : members) {
      if (!member.podName().equals(self.podName())) {
        text.append(member.ip()).append('\t').append(String.join(" ", names(namespace, member, serviceNames))).append('\n');
      }
    }
    return text.toString();
  }

  /** {@code <pod>}, and with a governing service {@code <pod>.<service>} and {@code <pod>.<service>.<ns>.svc.<domain>}. */
  private static List<String> names(String namespace, PodAddressRow member, Map<String, String> serviceNames) {
    String service = serviceNames.get(member.setName());
    if (service == null || service.isEmpty()) {
      return List.of(member.podName());
    }
    String inService = member.podName() + "." + service;
    return List.of(member.podName(), inService, inService + "." + namespace + ".svc." + CLUSTER_DOMAIN);
  }

  public void release(String namespace, String setName) {
    addresses.deleteByNamespaceAndSetName(namespace, setName);
  }
}
