package io.ordinal.e2e;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP proxy on loopback to {@code 127.0.0.1:target}, which a test cuts (every connection closed,
 * new ones refused: a network partition as the client sees it) and restores on the same port.
 */
final class TcpProxy implements AutoCloseable {
  private final int target;
  private final int port;
  private final Set<Socket> open = ConcurrentHashMap.newKeySet();
  private ServerSocket listener;

  TcpProxy(int target) throws IOException {
    this.target = target;
    this.port = OrdinalService.freePort();
    restore();
  }

  int port() {
    return port;
  }

  /** Accepts connections again, on the same port. */
  synchronized void restore() throws IOException {
    if (listener != null) {
      return;
    }
    ServerSocket server = new ServerSocket();
    server.setReuseAddress(true);
    server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
    listener = server;
    Thread.ofVirtual().name("tcp-proxy-" + port).start(() -> accept(server));
  }

  /** Closes every connection through it and refuses new ones. */
  synchronized void cut() throws IOException {
    if (listener != null) {
      listener.close();
      listener = null;
    }
    for (Socket socket : open) {
      socket.close();
    }
    open.clear();
  }

  private void accept(ServerSocket server) {
    while (!server.isClosed()) {
      Socket client;
      try {
        client = server.accept();
      } catch (IOException e) {
        continue; // closed by cut()
      }
      try {
        Socket upstream = new Socket(InetAddress.getLoopbackAddress(), target);
        open.add(client);
        open.add(upstream);
        Thread.ofVirtual().start(() -> pipe(client, upstream));
        Thread.ofVirtual().start(() -> pipe(upstream, client));
      } catch (IOException e) {
        close(client); // the target refused: so does the proxy
      }
    }
  }

  private void pipe(Socket from, Socket to) {
    try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
      in.transferTo(out);
    } catch (IOException e) {
      // one side closed
    } finally {
      close(from);
      close(to);
    }
  }

  private void close(Socket socket) {
    open.remove(socket);
    try {
      socket.close();
    } catch (IOException e) {
      // already closed
    }
  }

  @Override
  public void close() throws IOException {
    cut();
  }
}
