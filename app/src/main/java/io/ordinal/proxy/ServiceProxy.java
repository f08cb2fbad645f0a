package io.ordinal.proxy;

import io.fabric8.kubernetes.api.model.EndpointAddress;
import io.fabric8.kubernetes.api.model.EndpointPort;
import io.fabric8.kubernetes.api.model.EndpointSubset;
import io.fabric8.kubernetes.api.model.Endpoints;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.micronaut.context.event.ShutdownEvent;
import io.micronaut.context.event.StartupEvent;
import io.micronaut.runtime.event.annotation.EventListener;
import io.ordinal.api.ServiceEndpoints;
import io.ordinal.apimachinery.ApiException;
import io.ordinal.driver.local.NetnsSockets;
import io.ordinal.driver.local.PodNetwork;
import io.ordinal.driver.local.Runc;
import io.ordinal.store.ObjectStore;
import io.ordinal.store.ObjectTable;
import jakarta.inject.Singleton;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * ClusterIP Services of the {@code local} driver's pods, routed as kube-proxy's userspace mode did,
 * from a network namespace of this installation's own (PodNetwork.serviceNamespace): each ClusterIP
 * is a /32 of its loopback, pods route the service network to it over the bridge, and each TCP port
 * is a listener of this service there that hands every connection to a ready endpoint (the
 * Service's Endpoints at that moment): in turn, or by client address with {@code sessionAffinity:
 * ClientIP}. An endpoint that refuses is passed over for the next; with no ready endpoint the
 * connection is closed at once. Being out of the machine's namespace, a Service's port never holds
 * a port of the machine and a ClusterIP never shadows an address the machine reaches; the machine
 * itself does not reach ClusterIPs. The Services are read again every {@value #RESYNC_SECONDS} s.
 * UDP and SCTP ports are not routed (the API says so when they are written).
 */
@Singleton
public class ServiceProxy {
  private static final Logger log = LoggerFactory.getLogger(ServiceProxy.class);
  static final int RESYNC_SECONDS = 2;
  /** Connections proxied at once: pods must not be able to use up the service's file descriptors. */
  private static final int MAX_CONNECTIONS = 2048;
  private static final int CONNECT_TIMEOUT_MILLIS = 2000;
  private static final int ATTEMPTS = 3;

  private final ObjectStore objects;
  private final ServiceEndpoints endpoints;
  private final PodNetwork network;
  private final Runc runc;
  private final Map<Address, Listener> listeners = new ConcurrentHashMap<>();
  private final Set<Address> refused = ConcurrentHashMap.newKeySet();
  private final Semaphore connections = new Semaphore(MAX_CONNECTIONS);
  private ScheduledExecutorService resync;
  private volatile NetnsSockets sockets;

  public ServiceProxy(ObjectStore objects, ServiceEndpoints endpoints, PodNetwork network,
      Runc runc) {
    this.objects = objects;
    this.endpoints = endpoints;
    this.network = network;
    this.runc = runc;
  }

  /** A Service port as the proxy answers it: the ClusterIP and port. */
  record Address(String ip, int port) {}

  /** Where connections to an Address go: a port of a Service. */
  record Target(String namespace, String service, String portName, boolean clientAffinity) {}

  @EventListener
  void start(StartupEvent event) {
    if (runc.unavailable().isPresent()) {
      return; // no local pods here, so nothing to route to
    }
    resync = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().name("service-proxy").factory());
    resync.scheduleWithFixedDelay(this::resync, 0, RESYNC_SECONDS, TimeUnit.SECONDS);
  }

  @EventListener
  void stop(ShutdownEvent event) {
    if (resync != null) {
      resync.shutdownNow();
    }
    listeners.values().forEach(Listener::close);
    if (sockets != null) {
      sockets.close();
    }
  }

  /** The TCP ports of ClusterIP Services with a selector, by address. */
  static Map<Address, Target> wanted(List<Service> services) {
    Map<Address, Target> wanted = new HashMap<>();
    for (Service service : services) {
      var spec = service.getSpec();
      String ip = spec.getClusterIP();
      if (!"ClusterIP".equals(spec.getType()) || ip == null || ip.isEmpty() || ip.equals("None")
          || spec.getSelector() == null || spec.getSelector().isEmpty()) {
        continue;
      }
      boolean affinity = "ClientIP".equals(spec.getSessionAffinity());
      for (ServicePort port : spec.getPorts() == null ? List.<ServicePort>of() : spec.getPorts()) {
        if (port.getProtocol() == null || port.getProtocol().equals("TCP")) {
          wanted.put(new Address(ip, port.getPort()), new Target(service.getMetadata().getNamespace(),
              service.getMetadata().getName(), port.getName(), affinity));
        }
      }
    }
    return wanted;
  }

  private void resync() {
    try {
      if (sockets == null) {
        sockets = new NetnsSockets(network.serviceNamespace());
      }
      Map<Address, Target> wanted = wanted(objects.list(ObjectTable.SERVICES, Service.class, null));
      Set<String> addresses = new HashSet<>();
      wanted.keySet().forEach(a -> addresses.add(a.ip()));
      Set<String> held = network.serviceAddresses();
      for (String ip : addresses) {
        if (!held.contains(ip)) {
          addressQuietly(ip, true);
        }
      }
      listeners.entrySet().removeIf(entry -> {
        boolean gone = !entry.getValue().target().equals(wanted.get(entry.getKey()));
        if (gone) {
          entry.getValue().close();
        }
        return gone;
      });
      refused.retainAll(wanted.keySet());
      wanted.forEach((address, target) -> {
        if (!listeners.containsKey(address)) {
          open(address, target);
        }
      });
      for (String ip : held) {
        if (!addresses.contains(ip)) {
          addressQuietly(ip, false);
        }
      }
    } catch (IOException | RuntimeException e) {
      log.warn("service proxy: resync failed: {}", e.toString());
    }
  }

  /** Adds or removes a ClusterIP of the service namespace; one that fails leaves the others be. */
  private void addressQuietly(String ip, boolean add) {
    try {
      if (add) {
        network.addServiceAddress(ip);
      } else {
        network.removeServiceAddress(ip);
      }
    } catch (IOException e) {
      log.warn("service proxy: could not {} {}: {}", add ? "add" : "remove", ip, e.getMessage());
    }
  }

  private void open(Address address, Target target) {
    try {
      ServerSocketChannel server = sockets.server();
      try {
        server.bind(new InetSocketAddress(InetAddress.getByName(address.ip()), address.port()), 256);
      } catch (IOException e) {
        server.close();
        throw e;
      }
      Listener listener = new Listener(server, target, new AtomicInteger());
      listeners.put(address, listener);
      refused.remove(address);
      Thread.ofVirtual().name("service-proxy-" + address.ip() + ":" + address.port()).start(() -> accept(listener));
      log.info("service proxy: {}:{} -> {}/{} port {}", address.ip(), address.port(), target.namespace(),
          target.service(), target.portName());
    } catch (IOException e) {
      if (refused.add(address)) {
        log.warn("service proxy: cannot listen at {}:{} for {}/{}: {}", address.ip(), address.port(), target.namespace(),
            target.service(), e.getMessage());
      }
    }
  }

  /** A listening port and the Service port it serves. */
  private record Listener(ServerSocketChannel server, Target target, AtomicInteger next) {
    void close() {
      try {
        server.close();
      } catch (IOException e) {
        log.debug("service proxy: closing {}: {}", server, e.getMessage());
      }
    }
  }

  private void accept(Listener listener) {
    while (listener.server().isOpen()) {
      try {
        SocketChannel client = listener.server().accept();
        if (!connections.tryAcquire()) {
          client.close();
          continue;
        }
        Thread.ofVirtual().start(() -> {
          try {
            proxy(client, listener);
          } finally {
            connections.release();
          }
        });
      } catch (IOException e) {
        if (listener.server().isOpen()) {
          log.debug("service proxy: accept: {}", e.getMessage());
          pause(); // an error that lasts (no file descriptor left) must not spin
        }
      }
    }
  }

  private static void pause() {
    try {
      Thread.sleep(100);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void proxy(SocketChannel client, Listener listener) {
    try (client; SocketChannel backend = connect(client, listener)) {
      if (backend == null) {
        return; // no ready endpoint would take it: closed, as a rejected connection
      }
      Thread upstream = Thread.ofVirtual().start(() -> copy(client, backend));
      copy(backend, client);
      upstream.join();
    } catch (IOException e) {
      log.debug("service proxy: {}", e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** A connection to a ready endpoint of the target: the next in turn (or the client's), then the ones after it. */
  private SocketChannel connect(SocketChannel client, Listener listener) throws IOException {
    List<InetSocketAddress> ready = ready(listener.target());
    if (ready.isEmpty()) {
      return null;
    }
    String from = client.getRemoteAddress() instanceof InetSocketAddress remote ? remote.getHostString() : "";
    int first = listener.target().clientAffinity()
        ? Math.floorMod(Objects.hashCode(from), ready.size())
        : Math.floorMod(listener.next().getAndIncrement(), ready.size());
    for (int i = 0; i < Math.min(ATTEMPTS, ready.size()); i++) {
      SocketChannel backend = sockets.client();
      try {
        backend.socket().connect(ready.get((first + i) % ready.size()), CONNECT_TIMEOUT_MILLIS);
        return backend;
      } catch (IOException e) {
        backend.close();
      }
    }
    return null;
  }

  /** The ready endpoints of the target's Service, at the port its Endpoints name for the target's port. */
  private List<InetSocketAddress> ready(Target target) {
    Endpoints current;
    try {
      current = endpoints.get(target.namespace(), target.service());
    } catch (ApiException e) {
      return List.of();
    }
    List<InetSocketAddress> ready = new ArrayList<>();
    for (EndpointSubset subset : current.getSubsets() == null ? List.<EndpointSubset>of() : current.getSubsets()) {
      Integer port = subset.getPorts().stream()
          .filter(p -> Objects.equals(emptyToNull(p.getName()), emptyToNull(target.portName())))
          .map(EndpointPort::getPort).findFirst().orElse(null);
      if (port == null) {
        continue;
      }
      for (EndpointAddress address : subset.getAddresses()) {
        ready.add(new InetSocketAddress(address.getIp(), port));
      }
    }
    return ready;
  }

  private static String emptyToNull(String name) {
    return name == null || name.isEmpty() ? null : name;
  }

  /** Bytes one way until the source ends, then the end passed on (a half-close, so the other way goes on). */
  private static void copy(SocketChannel from, SocketChannel to) {
    try {
      InputStream in = from.socket().getInputStream();
      OutputStream out = to.socket().getOutputStream();
      in.transferTo(out);
      to.shutdownOutput();
    } catch (IOException e) {
      try {
        from.close();
        to.close();
      } catch (IOException ignored) {
        // both are going
      }
    }
  }
}
