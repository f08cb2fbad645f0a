package io.ordinal.driver.local;

import com.sun.jna.LastErrorException;
import com.sun.jna.Library;
import com.sun.jna.Native;
import java.io.IOException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Sockets of another network namespace, for this JVM: a socket belongs to the namespace of the
 * thread that creates it, and setns(2) moves only the calling thread. So one platform thread of
 * ours enters the namespace once and creates every socket asked of it; the sockets are then used
 * from any thread. No other code runs on that thread.
 */
public final class NetnsSockets implements AutoCloseable {
  private static final int CLONE_NEWNET = 0x40000000;
  private static final int O_RDONLY_CLOEXEC = 02000000;

  private interface LibC extends Library {
    int open(String path, int flags) throws LastErrorException;

    int setns(int fd, int nstype) throws LastErrorException;

    int close(int fd) throws LastErrorException;
  }

  private static final class Holder {
    static final LibC C = Native.load("c", LibC.class);
  }

  private final ExecutorService thread;

  /** Enters {@code netns} (a {@code /run/netns} path) on a thread of its own; throws if it cannot. */
  public NetnsSockets(Path netns) throws IOException {
    thread = Executors.newSingleThreadExecutor(Thread.ofPlatform().daemon().name("netns-" + netns.getFileName()).factory());
    call(() -> {
      int fd = Holder.C.open(netns.toString(), O_RDONLY_CLOEXEC);
      try {
        Holder.C.setns(fd, CLONE_NEWNET);
      } finally {
        Holder.C.close(fd);
      }
      return null;
    });
  }

  public ServerSocketChannel server() throws IOException {
    return call(ServerSocketChannel::open);
  }

  public SocketChannel client() throws IOException {
    return call(SocketChannel::open);
  }

  private <T> T call(Callable<T> task) throws IOException {
    try {
      return thread.submit(task).get();
    } catch (ExecutionException e) {
      if (e.getCause() instanceof IOException io) {
        throw io;
      }
      throw new IOException("in the network namespace: " + e.getCause(), e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
  }

  @Override
  public void close() {
    thread.shutdownNow();
  }
}
