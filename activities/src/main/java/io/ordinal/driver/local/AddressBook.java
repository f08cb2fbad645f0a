package io.ordinal.driver.local;

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
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Stable network identity: each pod identity gets a loopback address (127.0.1.1 upwards) the first
 * time it is created; the address is persisted and stays with the identity while its set exists.
 * Every pod of a namespace gets a hosts file naming all its members.
 */
@Singleton
public class AddressBook {
  public static final String CLUSTER_DOMAIN = "cluster.local";
  private final Repositories.PodAddresses addresses;
  private final LocalPaths paths;

  public AddressBook(Repositories.PodAddresses addresses, LocalPaths paths) {
    this.addresses = addresses;
    this.paths = paths;
  }

  /** The pod's address, allocated on first use. Synchronized: one allocator per service. */
  public synchronized String addressOf(String namespace, String setName, String podName) {
    String id = StatefulSetStore.id(namespace, podName);
    return addresses.findById(id).map(PodAddressRow::ip).orElseGet(() -> {
      Set<String> taken = new HashSet<>(addresses.listIp());
      for (int n = 1 << 8; n < 1 << 24; n++) { // 127.0.1.0 upwards; 127.0.0.x stays for the host
        if ((n & 0xff) == 0 || (n & 0xff) == 0xff) {
          continue;
        }
        String ip = "127." + ((n >> 16) & 0xff) + "." + ((n >> 8) & 0xff) + "." + (n & 0xff);
        if (!taken.contains(ip)) {
          addresses.save(new PodAddressRow(id, namespace, setName, podName, ip));
          return ip;
        }
      }
      throw new IllegalStateException("no free loopback address");
    });
  }

  public List<PodAddressRow> members(String namespace) {
    return addresses.findByNamespaceOrderByPodName(namespace);
  }

  /**
   * Writes the hosts file of every pod of the namespace. Rewritten in place (not replaced), so that
   * a file already bind-mounted over a running pod's /etc/hosts shows the new entries.
   */
  public synchronized void writeHostsFiles(String namespace, Map<String, String> serviceNames) {
    StringBuilder text = new StringBuilder("127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n");
    for (PodAddressRow member : members(namespace)) {
      String service = serviceNames.get(member.setName());
      text.append(member.ip()).append('\t').append(member.podName());
      if (service != null && !service.isEmpty()) {
        text.append(' ').append(member.podName()).append('.').append(service)
            .append(' ').append(member.podName()).append('.').append(service).append('.').append(namespace)
            .append(".svc.").append(CLUSTER_DOMAIN);
      }
      text.append('\n');
    }
    byte[] bytes = text.toString().getBytes(StandardCharsets.UTF_8);
    for (PodAddressRow member : members(namespace)) {
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

  public void release(String namespace, String setName) {
    addresses.deleteByNamespaceAndSetName(namespace, setName);
  }
}
