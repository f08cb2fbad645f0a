package io.ordinal.driver.local;

import io.micronaut.context.annotation.Value;
import io.ordinal.store.KubeJson;
import jakarta.inject.Singleton;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The pods' network on this machine, as the CNI bridge plugin makes it: a bridge of this
 * installation's with the first address of its block as the gateway, and per pod a network
 * namespace joined to it by a veth pair, with the pod's stable address on its {@code eth0}. Pods
 * reach each other and are reached from the machine at their addresses; the machine's loopback
 * services (PostgreSQL, Temporal, the Web UI) are not in a pod's namespace.
 *
 * <p>{@code ORDINAL_POD_NETWORK} (default 10.224.0.0/12) is cut into blocks of {@value #BLOCK_PREFIX}
 * bits (1 022 pods each); each data dir claims one for good in a registry of the machine's ({@code
 * /var/lib/ordinal/networks}, one file per block naming its data dir), so that two installations
 * (a development server and the tests beside it) never hand out the same address. A block whose
 * data dir is gone is free again. A block this machine already uses otherwise (an address of one
 * of its interfaces or a route in it, but for its own bridge's) is skipped, and so is an address in
 * use when a pod identity is given one ({@link #inUse}).
 */
@Singleton
public class PodNetwork {
  private static final Logger log = LoggerFactory.getLogger(PodNetwork.class);
  static final int BLOCK_PREFIX = 22;
  static final Path REGISTRY = Path.of("/var/lib/ordinal/networks");
  private static final List<String> IP = List.of("/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip");

  /** This installation's block: its bridge, first address (the gateway) and prefix length. */
  record Block(int slot, int base, int prefix) {
    String bridge() {
      return "ordinal" + slot;
    }

    String gateway() {
      return format(base + 1);
    }

    int size() {
      return 1 << (32 - prefix);
    }

    boolean contains(String ip) {
      Integer address = parse(ip);
      return address != null && Integer.compareUnsigned(address - base, size()) < 0;
    }

    /** The service namespace's address (the proxy's, ServiceProxy): the last before the broadcast address. */
    String serviceAddress() {
      return format(base + size() - 2);
    }

    /** The addresses pods get, in order: after the gateway, before the service namespace's. */
    List<String> podAddresses() {
      List<String> all = new ArrayList<>();
      for (int i = 2; i < size() - 2; i++) {
        all.add(format(base + i));
      }
      return all;
    }
  }

  /** What a data dir keeps of its claim. */
  record Claim(int slot, String network, String id) {}

  private final Path dataDir;
  private final String network;
  private final String serviceNetwork;
  private Block block;

  @jakarta.inject.Inject
  public PodNetwork(@Value("${ordinal.data-dir:var}") String dataDir,
      @Value("${ordinal.pod.network:10.224.0.0/12}") String network,
      @Value("${ordinal.service.network:10.96.0.0/12}") String serviceNetwork) {
    this.dataDir = Path.of(dataDir).toAbsolutePath().normalize();
    this.network = network;
    this.serviceNetwork = serviceNetwork;
    parseCidr(network); // refuse a bad setting at start
    parseCidr(serviceNetwork);
  }

  public PodNetwork(String dataDir, String network) {
    this(dataDir, network, "10.96.0.0/12");
  }

  /** This installation's block, claimed (and its bridge made) on first use. */
  public synchronized Block block() {
    if (block == null) {
      try {
        block = claim();
        ensureBridge(block);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return block;
  }

  /** The bridge's own address: pods' default route, and where the cluster DNS answers them. */
  public String gateway() {
    return block().gateway();
  }

  /** Whether the cluster DNS could listen at the gateway (null: not tried yet); ClusterDns says. */
  private volatile Boolean clusterDnsServing;

  public void clusterDnsServing(boolean serving) {
    clusterDnsServing = serving;
  }

  /**
   * The nameserver pods are given: the cluster DNS at the gateway, unless it could not listen there
   * (then pods keep the machine's resolv.conf rather than a nameserver that never answers).
   */
  public java.util.Optional<String> clusterDns() {
    return Boolean.FALSE.equals(clusterDnsServing) ? java.util.Optional.empty() : java.util.Optional.of(gateway());
  }

  /**
   * The network namespace where this installation's Service proxy answers (made, with its veth on the
   * bridge at {@link Block#serviceAddress}, if it is not already): the ClusterIPs are /32s of its
   * loopback, and pods route the service network there. Apart from the machine's own namespace, so a
   * Service's port never holds a port of the machine, no address the machine reaches is taken over,
   * and two installations may hand out the same ClusterIPs.
   */
  public synchronized Path serviceNamespace() throws IOException {
    Block b = block();
    String namespace = b.bridge() + "-svc";
    Path path = Path.of("/run/netns", namespace);
    if (!Files.exists(path)) {
      ip("netns", "add", namespace);
    }
    String host = "os" + b.slot();
    if (!Files.exists(Path.of("/sys/class/net", host))) {
      ip("link", "add", host, "type", "veth", "peer", "name", "eth0", "address", mac(b.serviceAddress()), "netns", namespace);
    }
    ip("link", "set", host, "master", b.bridge(), "up");
    ip("-n", namespace, "addr", "replace", b.serviceAddress() + "/" + b.prefix(), "dev", "eth0");
    ip("-n", namespace, "link", "set", "lo", "up");
    ip("-n", namespace, "link", "set", "eth0", "up");
    return path;
  }

  /** The ClusterIPs the service namespace answers at (the /32s of its loopback). */
  public java.util.Set<String> serviceAddresses() throws IOException {
    String namespace = block().bridge() + "-svc";
    java.util.Set<String> held = new java.util.TreeSet<>();
    for (String line : ip("-n", namespace, "-4", "-o", "addr", "show", "dev", "lo").output().split("\n")) {
      java.util.regex.Matcher m = java.util.regex.Pattern.compile("inet (\\S+)/32 ").matcher(line);
      if (m.find()) {
        held.add(m.group(1));
      }
    }
    return held;
  }

  public void addServiceAddress(String ip) throws IOException {
    ip("-n", block().bridge() + "-svc", "addr", "replace", ip + "/32", "dev", "lo");
  }

  public void removeServiceAddress(String ip) throws IOException {
    ip("-n", block().bridge() + "-svc", "addr", "del", ip + "/32", "dev", "lo");
  }

  /** The pod's network namespace, made and attached at {@code ip} if it is not already (idempotent). */
  public Path attach(String podUid, String ip) throws IOException {
    Block b = block();
    String namespace = namespaceName(podUid);
    Path path = Path.of("/run/netns", namespace);
    if (!Files.exists(path)) {
      ip("netns", "add", namespace);
    }
    String host = vethName(podUid);
    if (!Files.exists(Path.of("/sys/class/net", host))) {
      // The pod's MAC follows from its address (0a:58 and its four bytes, as the CNI bridge plugin
      // did): a pod that replaces another at the same address has its MAC too, so no neighbour on
      // the bridge sends to a MAC that is gone until its ARP entry times out.
      ip("link", "add", host, "type", "veth", "peer", "name", "eth0", "address", mac(ip), "netns", namespace);
    }
    ip("link", "set", host, "master", b.bridge(), "up");
    ip("-n", namespace, "addr", "replace", ip + "/" + b.prefix(), "dev", "eth0");
    ip("-n", namespace, "link", "set", "lo", "up");
    ip("-n", namespace, "link", "set", "eth0", "up");
    ip("-n", namespace, "route", "replace", "default", "via", b.gateway());
    // ClusterIPs are answered in the service namespace, not by the machine (serviceNamespace)
    ip("-n", namespace, "route", "replace", serviceNetwork, "via", b.serviceAddress());
    return path;
  }

  /**
   * Removes the pod's namespace and both ends of its veth pair. The veth goes even when the
   * namespace cannot: it is what answers for the pod's address (and MAC) on the bridge.
   */
  public void detach(String podUid) {
    String namespace = namespaceName(podUid);
    try {
      if (Files.exists(Path.of("/run/netns", namespace))) {
        ip("netns", "delete", namespace); // the kernel removes the veth pair with it, a moment later
      }
    } catch (IOException e) {
      log.warn("pod {}: could not remove its network namespace: {}", podUid, e.getMessage());
    }
    try {
      deleteLink(vethName(podUid));
    } catch (IOException e) {
      if (Files.exists(Path.of("/sys/class/net", vethName(podUid)))) {
        log.warn("pod {}: could not remove its veth: {}", podUid, e.getMessage());
      }
    }
  }

  /**
   * Detaches from this installation's bridge every veth of a pod not in {@code podUids} (a pod whose
   * namespace outlived it: removed from the database while the service was down), so that nothing
   * but a running pod answers for an address of the block. The pods are asked for after the ports
   * are listed: a pod exists before its veth does.
   */
  public void detachAllBut(java.util.function.Supplier<java.util.Set<String>> podUids) {
    Path ports = Path.of("/sys/class/net", block().bridge(), "brif");
    try (var links = Files.list(ports)) {
      List<Path> attached = links.toList();
      java.util.Set<String> kept = new java.util.HashSet<>();
      podUids.get().forEach(uid -> kept.add(vethName(uid)));
      for (Path port : attached) {
        String name = port.getFileName().toString();
        if (name.startsWith("ov") && !kept.contains(name)) {
          log.info("pod network: removing {}, which no pod of this installation owns", name);
          deleteLink(name);
        }
      }
    } catch (IOException e) {
      log.warn("pod network: could not list the ports of {}: {}", block().bridge(), e.getMessage());
    }
  }

  static String mac(String ip) {
    int address = parse(ip);
    return String.format("0a:58:%02x:%02x:%02x:%02x", address >>> 24, address >>> 16 & 0xff, address >>> 8 & 0xff, address & 0xff);
  }

  static String namespaceName(String podUid) {
    return "ordinal-" + podUid;
  }

  /** The machine's end of the pod's veth pair: at most 15 characters, unique by the pod's uid. */
  static String vethName(String podUid) {
    return "ov" + podUid.replace("-", "").substring(0, 12);
  }

  private Block claim() throws IOException {
    int[] cidr = parseCidr(network);
    int blockPrefix = Math.max(BLOCK_PREFIX, cidr[1]);
    int slots = 1 << (blockPrefix - cidr[1]);
    Path own = dataDir.resolve("local").resolve("network.json");
    Claim kept = Files.exists(own) ? KubeJson.JSON.readValue(own.toFile(), Claim.class) : null;
    Files.createDirectories(REGISTRY);
    try (FileChannel lockFile = FileChannel.open(REGISTRY.resolve(".lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock ignored = lockFile.lock()) {
      int slot = -1;
      if (kept != null && kept.network().equals(network) && kept.slot() < slots) {
        String owner = ownerOf(kept.slot());
        String registered = registeredDataDir(kept.slot());
        if (owner == null ? registered == null || registered.equals(dataDir.toString()) || !carriesRunningPods(kept.slot())
            : owner.equals(dataDir.toString())) {
          slot = kept.slot(); // ours, or free again: the addresses already handed out stay valid
        }
      }
      List<Route> machine = machineNetworks();
      if (slot >= 0 && overlapping(machine, slot, cidr[0] + slot * (1 << (32 - blockPrefix)), blockPrefix) != null) {
        // Kept all the same: its pods' addresses are their identities. New ones skip what is in use.
        log.warn("pod network: block {} overlaps {}, which this machine uses otherwise", slot,
            overlapping(machine, slot, cidr[0] + slot * (1 << (32 - blockPrefix)), blockPrefix));
      }
      for (int s = 0; slot < 0 && s < slots; s++) {
        if (ownerOf(s) == null) {
          Route used = overlapping(machine, s, cidr[0] + s * (1 << (32 - blockPrefix)), blockPrefix);
          if (used != null) {
            log.info("pod network: skipping block {}: this machine uses {} (dev {})", s, used.network(), used.dev());
          } else if (carriesRunningPods(s)) {
            // Its data dir is gone (or made anew), not its pods: they outlive the service, and answer
            // at the block's addresses until someone removes them.
            log.warn("pod network: skipping block {}: its data dir {} is gone, but pods of it still run on bridge ordinal{}"
                + " (runc delete and ip netns delete theirs to free it)", s, registeredDataDir(s), s);
          } else {
            slot = s;
          }
        }
      }
      if (slot < 0) {
        throw new IOException("no free block of /" + blockPrefix + " left in ORDINAL_POD_NETWORK " + network
            + ": every one is claimed in " + REGISTRY + " or overlaps a network of this machine's (ip -4 addr, ip -4 route):"
            + " set ORDINAL_POD_NETWORK to a range it does not use");
      }
      String registered = registeredDataDir(slot);
      if (registered != null && !registered.equals(dataDir.toString())) {
        // A block given up by a data dir that is gone: its bridge may still carry the veths of pods
        // nobody removed, answering for addresses this installation is about to hand out again.
        deleteLink("ordinal" + slot);
      }
      Claim claim = new Claim(slot, network, kept != null && kept.slot() == slot ? kept.id() : UUID.randomUUID().toString());
      Files.createDirectories(own.getParent());
      KubeJson.JSON.writeValue(own.toFile(), claim);
      Files.writeString(REGISTRY.resolve(Integer.toString(slot)), dataDir + "\n" + claim.id() + "\n");
      log.info("pod network: block {} of {} ({}), bridge ordinal{}", slot, network,
          format(cidr[0] + slot * (1 << (32 - blockPrefix))) + "/" + blockPrefix, slot);
      return new Block(slot, cidr[0] + slot * (1 << (32 - blockPrefix)), blockPrefix);
    }
  }

  /** An IPv4 network this machine uses (an interface's address or a route), and on which device. */
  record Route(String network, int base, int prefix, String dev) {
    boolean overlaps(int otherBase, int otherPrefix) {
      int shorter = Math.min(prefix, otherPrefix);
      int mask = shorter == 0 ? 0 : -1 << (32 - shorter);
      return (base & mask) == (otherBase & mask);
    }
  }

  /** What of {@code machine} overlaps block {@code slot} (its base and prefix), but for the slot's own bridge; or null. */
  static Route overlapping(List<Route> machine, int slot, int base, int prefix) {
    return machine.stream().filter(r -> !r.dev().equals("ordinal" + slot) && r.overlaps(base, prefix)).findFirst()
        .orElse(null);
  }

  /**
   * Whether {@code ip} is used by this machine other than through this installation's bridge: an
   * address of an interface or in a route of another device (a network added after the block was
   * claimed). Such an address is skipped when a pod identity is given one.
   */
  public boolean inUse(String ip) {
    try {
      return inUse(machineNetworks(), block(), ip);
    } catch (IOException e) {
      log.warn("pod network: could not list this machine's addresses and routes: {}", e.getMessage());
      return false;
    }
  }

  /**
   * Whether {@code ip} of {@code block} is in {@code machine} but for the block's own bridge. Only
   * what is narrower than the block counts: a route as wide as the block or wider (a VPN's
   * 10.0.0.0/8) loses to the bridge's own, more specific, route; the claim passed over such blocks,
   * and one kept all the same was warned about at start.
   */
  static boolean inUse(List<Route> machine, Block block, String ip) {
    Integer address = parse(ip);
    return address != null && machine.stream().anyMatch(r -> !r.dev().equals(block.bridge()) && r.prefix() > block.prefix()
        && r.overlaps(address, 32));
  }

  /** This machine's IPv4 addresses and routes of the main table (the default route aside). */
  static List<Route> machineNetworks() throws IOException {
    return machineNetworks(ip("-4", "-o", "addr", "show").output(), ip("-4", "-o", "route", "show").output());
  }

  /**
   * {@code ip -4 -o addr show} and {@code ip -4 -o route show} as networks: each interface's address
   * (as a /32: the address itself; its subnet comes as a route) and each route's destination.
   */
  static List<Route> machineNetworks(String addresses, String routes) {
    List<Route> found = new ArrayList<>();
    for (String line : addresses.split("\n")) {
      String[] f = line.trim().split("\s+");
      for (int i = 0; i + 1 < f.length; i++) {
        if (f[i].equals("inet")) {
          add(found, f[i + 1].replaceAll("/.*", ""), f.length > 1 ? f[1] : "");
          break;
        }
      }
    }
    for (String line : routes.split("\n")) {
      List<String> f = new ArrayList<>(List.of(line.trim().split("\s+")));
      if (!f.isEmpty() && List.of("unicast", "blackhole", "unreachable", "prohibit", "throw").contains(f.get(0))) {
        f.remove(0);
      }
      if (f.isEmpty() || f.get(0).isEmpty() || f.get(0).equals("default")) {
        continue;
      }
      int dev = f.indexOf("dev");
      add(found, f.get(0), dev >= 0 && dev + 1 < f.size() ? f.get(dev + 1) : "");
    }
    return found;
  }

  private static void add(List<Route> found, String network, String dev) {
    String[] parts = network.split("/");
    Integer base = parse(parts[0]);
    int prefix;
    try {
      prefix = parts.length == 2 ? Integer.parseInt(parts[1]) : 32;
    } catch (NumberFormatException e) {
      return;
    }
    if (base != null && prefix >= 0 && prefix <= 32) {
      found.add(new Route(network, base, prefix, dev));
    }
  }

  /**
   * Whether a process still runs in the network namespace of a pod on the bridge of {@code slot}: a
   * pod whose address answers there. A port of the bridge is a pod's veth ({@link #vethName}), whose
   * peer is in the pod's named namespace; one whose namespace nothing runs in any more is a leftover.
   */
  static boolean carriesRunningPods(int slot) {
    Path ports = Path.of("/sys/class/net", "ordinal" + slot, "brif");
    if (!Files.isDirectory(ports)) {
      return false;
    }
    try (var links = Files.list(ports); var named = Files.list(Path.of("/run/netns"))) {
      List<String> veths = links.map(p -> p.getFileName().toString()).filter(n -> n.startsWith("ov")).toList();
      if (veths.isEmpty()) {
        return false;
      }
      java.util.Set<Object> attached = new java.util.HashSet<>();
      for (Path netns : named.toList()) {
        String name = netns.getFileName().toString();
        if (name.startsWith("ordinal-") && veths.contains(vethName(name.substring("ordinal-".length()) + "000000000000"))) {
          attached.add(Files.getAttribute(netns, "unix:ino"));
        }
      }
      return !attached.isEmpty() && namespacesInUse().stream().anyMatch(attached::contains);
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }

  /** The inode of every process's network namespace. */
  private static java.util.Set<Object> namespacesInUse() throws IOException {
    java.util.Set<Object> inodes = new java.util.HashSet<>();
    try (var processes = Files.list(Path.of("/proc"))) {
      for (Path process : processes.filter(p -> p.getFileName().toString().matches("\\d+")).toList()) {
        try {
          inodes.add(Files.getAttribute(process.resolve("ns/net"), "unix:ino"));
        } catch (IOException | RuntimeException e) {
          // gone meanwhile, or not ours to read
        }
      }
    }
    return inodes;
  }

  private static String registeredDataDir(int slot) {
    try {
      List<String> lines = Files.readAllLines(REGISTRY.resolve(Integer.toString(slot)));
      return lines.isEmpty() ? null : lines.get(0);
    } catch (IOException e) {
      return null;
    }
  }

  private static void deleteLink(String name) throws IOException {
    if (Files.exists(Path.of("/sys/class/net", name))) {
      ip("link", "delete", name);
    }
  }

  /** The data dir whose claim on {@code slot} still stands (it exists and names the same claim), or null. */
  private static String ownerOf(int slot) {
    Path entry = REGISTRY.resolve(Integer.toString(slot));
    try {
      if (!Files.exists(entry)) {
        return null;
      }
      List<String> lines = Files.readAllLines(entry);
      if (lines.size() < 2) {
        return null;
      }
      Path claimFile = Path.of(lines.get(0)).resolve("local").resolve("network.json");
      if (!Files.exists(claimFile)) {
        return null;
      }
      Claim claim = KubeJson.JSON.readValue(claimFile.toFile(), Claim.class);
      return claim.slot() == slot && Objects.equals(claim.id(), lines.get(1)) ? lines.get(0) : null;
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  private void ensureBridge(Block b) throws IOException {
    if (!Files.exists(Path.of("/sys/class/net", b.bridge()))) {
      ip("link", "add", b.bridge(), "type", "bridge");
    }
    ip("addr", "replace", b.gateway() + "/" + b.prefix(), "dev", b.bridge());
    ip("link", "set", b.bridge(), "up");
  }

  private static HostCommand.Result ip(String... args) throws IOException {
    String binary = IP.stream().filter(c -> Files.isExecutable(Path.of(c))).findFirst()
        .orElseThrow(() -> new IOException("the local driver needs ip (Debian package iproute2)"));
    List<String> argv = new ArrayList<>(List.of(binary));
    argv.addAll(List.of(args));
    return HostCommand.check(argv);
  }

  /** {@code a.b.c.d/n} as {address, prefix}; the address masked to its network. */
  static int[] parseCidr(String cidr) {
    String[] parts = cidr.split("/");
    Integer address = parts.length == 2 ? parse(parts[0]) : null;
    int prefix;
    try {
      prefix = parts.length == 2 ? Integer.parseInt(parts[1]) : -1;
    } catch (NumberFormatException e) {
      prefix = -1;
    }
    if (address == null || prefix < 8 || prefix > 30) {
      throw new IllegalArgumentException("ORDINAL_POD_NETWORK must be an IPv4 network a.b.c.d/n with n from 8 to 30, not \""
          + cidr + "\"");
    }
    int mask = prefix == 0 ? 0 : -1 << (32 - prefix);
    return new int[] {address & mask, prefix};
  }

  static Integer parse(String ip) {
    String[] parts = ip == null ? new String[0] : ip.split("\\.");
    if (parts.length != 4) {
      return null;
    }
    int value = 0;
    for (String part : parts) {
      try {
        int octet = Integer.parseInt(part);
        if (octet < 0 || octet > 255) {
          return null;
        }
        value = value << 8 | octet;
      } catch (NumberFormatException e) {
        return null;
      }
    }
    return value;
  }

  static String format(int address) {
    return (address >>> 24) + "." + (address >>> 16 & 0xff) + "." + (address >>> 8 & 0xff) + "." + (address & 0xff);
  }
}
