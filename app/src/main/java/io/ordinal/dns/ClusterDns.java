package io.ordinal.dns;

import io.micronaut.context.event.ShutdownEvent;
import io.micronaut.context.event.StartupEvent;
import io.micronaut.runtime.event.annotation.EventListener;
import io.ordinal.driver.local.PodNetwork;
import io.ordinal.driver.local.Runc;
import jakarta.inject.Singleton;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.xbill.DNS.Message;

/**
 * The cluster DNS of the {@code local} driver's pods, as CoreDNS serves a cluster: UDP and TCP port
 * 53 at the pod network's gateway (the bridge's address, so only this installation's pods and the
 * machine reach it; another installation has a bridge and address of its own). Pods are pointed at
 * it by their resolv.conf ({@code PodDns}). What it answers is {@link ClusterRecords}'s.
 */
@Singleton
public class ClusterDns {
  private static final Logger log = LoggerFactory.getLogger(ClusterDns.class);
  /** TCP connections served at once, and how long one may sit idle (RFC 7766 suggests seconds). */
  /** Not a setting: a resolv.conf cannot name a port, so pods ask port 53 of their nameserver. */
  private static final int PORT = 53;
  private static final int MAX_TCP_CONNECTIONS = 64;
  /** UDP queries answered at once (a forwarded one waits up to 2 s); more are dropped, as a busy server's are. */
  private static final int MAX_UDP_QUERIES = 256;
  private static final Duration TCP_IDLE = Duration.ofSeconds(10);

  private final PodNetwork network;
  private final Runc runc;
  private final ClusterRecords records;
  private final ExecutorService workers = Executors.newVirtualThreadPerTaskExecutor();
  private final Semaphore tcpConnections = new Semaphore(MAX_TCP_CONNECTIONS);
  private final Semaphore udpQueries = new Semaphore(MAX_UDP_QUERIES);
  private volatile DatagramSocket udp;
  private volatile ServerSocket tcp;

  public ClusterDns(PodNetwork network, Runc runc, ClusterRecords records) {
    this.network = network;
    this.runc = runc;
    this.records = records;
  }

  @EventListener
  void start(StartupEvent event) {
    if (runc.unavailable().isPresent()) {
      return; // no local pods on this machine, so no pod network to serve
    }
    String address;
    try {
      address = network.gateway();
    } catch (RuntimeException e) {
      log.warn("cluster DNS: no pod network ({}); local pods will not resolve Service names", e.getMessage());
      return;
    }
    try {
      InetSocketAddress at = new InetSocketAddress(InetAddress.getByName(address), PORT);
      udp = new DatagramSocket(at);
      tcp = new ServerSocket();
      tcp.bind(at);
      Thread.ofPlatform().daemon().name("cluster-dns-udp").start(this::serveUdp);
      Thread.ofPlatform().daemon().name("cluster-dns-tcp").start(this::serveTcp);
      network.clusterDnsServing(true);
      log.info("cluster DNS serving {} at {}:{} (UDP and TCP)", ClusterRecords.ZONE, address, PORT);
    } catch (IOException e) {
      network.clusterDnsServing(false);
      log.error("cluster DNS: cannot listen at {}:{}: {}; local pods keep the machine's resolv.conf and do not"
          + " resolve Service names", address, PORT, e.getMessage());
    }
  }

  @EventListener
  void stop(ShutdownEvent event) {
    try {
      if (udp != null) {
        udp.close();
      }
      if (tcp != null) {
        tcp.close();
      }
    } catch (IOException e) {
      log.debug("cluster DNS: closing: {}", e.getMessage());
    }
    workers.shutdownNow();
  }

  private void serveUdp() {
    byte[] buffer = new byte[ClusterRecords.MAX_UDP_PAYLOAD];
    while (!udp.isClosed()) {
      try {
        DatagramPacket packet = new DatagramPacket(buffer, buffer.length);
        udp.receive(packet);
        if (!udpQueries.tryAcquire()) {
          continue; // the client asks again, as it would a lost datagram
        }
        byte[] query = Arrays.copyOf(packet.getData(), packet.getLength());
        var from = packet.getSocketAddress();
        workers.submit(() -> {
          try {
            byte[] answer = answer(query, true);
            if (answer != null) {
              udp.send(new DatagramPacket(answer, answer.length, from));
            }
          } catch (IOException e) {
            log.debug("cluster DNS: could not answer {}: {}", from, e.getMessage());
          } finally {
            udpQueries.release();
          }
        });
      } catch (SocketException e) {
        return; // closed
      } catch (IOException e) {
        log.warn("cluster DNS: UDP: {}", e.getMessage());
      }
    }
  }

  private void serveTcp() {
    while (!tcp.isClosed()) {
      try {
        Socket connection = tcp.accept();
        if (!tcpConnections.tryAcquire()) {
          connection.close();
          continue;
        }
        workers.submit(() -> {
          try (connection) {
            connection.setSoTimeout((int) TCP_IDLE.toMillis());
            DataInputStream in = new DataInputStream(connection.getInputStream());
            DataOutputStream out = new DataOutputStream(connection.getOutputStream());
            while (true) {
              int length = in.readUnsignedShort(); // RFC 1035 4.2.2: each message after its two-byte length
              byte[] answer = answer(in.readNBytes(length), false);
              if (answer == null) {
                return;
              }
              out.writeShort(answer.length);
              out.write(answer);
              out.flush();
            }
          } catch (IOException e) {
            // the client closed, went idle or sent garbage: the connection ends
          } finally {
            tcpConnections.release();
          }
        });
      } catch (SocketException e) {
        return; // closed
      } catch (IOException e) {
        log.warn("cluster DNS: TCP: {}", e.getMessage());
      }
    }
  }

  /** The wire answer to a wire query, or null for what is not a query at all (it gets no answer). */
  private byte[] answer(byte[] wire, boolean udp) {
    Message query;
    try {
      query = new Message(wire);
    } catch (IOException e) {
      return null;
    }
    Message response = records.answer(query);
    return udp ? response.toWire(ClusterRecords.udpLimit(query)) : response.toWire();
  }
}
