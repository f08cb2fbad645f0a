package io.ordinal.api.exec;

import io.micronaut.websocket.CloseReason;
import io.micronaut.websocket.WebSocketSession;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.websocketx.BinaryWebSocketFrame;
import io.ordinal.driver.ExecProcess;
import io.ordinal.driver.ExecRequest;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One kubectl exec connection: starts the command, copies its stdout and stderr to the client as
 * they come, feeds it the client's stdin and terminal sizes in the order they arrived, and ends with
 * the status on the error stream and a normal close, after which kubectl exits with the command's code.
 * The client's messages are queued as they arrive (on the event loop) and handled on a thread of
 * this connection, so a slow command never blocks the server.
 */
final class ExecStream {
  private static final Logger log = LoggerFactory.getLogger(ExecStream.class);
  /** client-go reads with 32 KiB buffers; frames of that size keep both ends simple. */
  private static final int CHUNK = 32 * 1024;

  private final WebSocketSession session;
  private final String protocol;
  private final BlockingQueue<ExecFrames.Inbound> inbound = new LinkedBlockingQueue<>();
  private final AtomicBoolean clientGone = new AtomicBoolean();
  private volatile ExecProcess process;

  private ExecStream(WebSocketSession session) {
    this.session = session;
    this.protocol = session.getSubprotocol().orElse(ExecFrames.V4);
  }

  /**
   * Opens the stream; {@code prepare} (which reads the store) and the command's start run on a
   * thread of the connection's own, never on the event loop.
   */
  static ExecStream open(WebSocketSession session, Supplier<PreparedCommand> prepare) {
    ExecStream stream = new ExecStream(session);
    Thread.ofVirtual().name("exec-" + session.getId()).start(() -> stream.run(prepare));
    return stream;
  }

  /** What {@code open} runs: a started command, or a Status for the error stream when it could not start. */
  sealed interface PreparedCommand {
    record Started(ExecRequest request, ExecProcess process) implements PreparedCommand {}

    record Refused(int code, String reason, String message) implements PreparedCommand {}
  }

  /** A message from the client, in the order of arrival. */
  void received(byte[] message) {
    inbound.add(ExecFrames.parse(message, protocol));
  }

  /** The client closed the connection or it broke: the command goes with it. */
  void closed() {
    clientGone.set(true);
    inbound.add(new ExecFrames.Inbound.Ignored("client gone"));
    ExecProcess running = process;
    if (running != null && running.alive()) {
      log.debug("exec {}: client gone, killing the command", session.getId());
      running.kill();
    }
  }

  private void run(Supplier<PreparedCommand> prepare) {
    switch (prepare.get()) {
      case PreparedCommand.Refused refused -> finish(ExecFrames.failureStatus(refused.code(), refused.reason(),
          refused.message()));
      case PreparedCommand.Started started -> {
        process = started.process();
        if (clientGone.get()) {
          process.kill();
          return;
        }
        List<Thread> pumps = new ArrayList<>();
        started.process().stdout().ifPresent(out -> pumps.add(pump(out, ExecFrames.STDOUT)));
        started.process().stderr().ifPresent(err -> pumps.add(pump(err, ExecFrames.STDERR)));
        Thread.ofVirtual().name("exec-stdin-" + session.getId()).start(() -> feed(started.process()));
        try {
          int exitCode = started.process().waitFor();
          for (Thread pump : pumps) {
            pump.join(); // all output is sent before the status that ends the stream
          }
          finish(ExecFrames.exitStatus(exitCode, started.request().command()));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          started.process().kill();
        } finally {
          inbound.add(new ExecFrames.Inbound.Ignored("command done"));
        }
      }
    }
  }

  /** Copies one output of the command to its stream of the connection until the command closes it. */
  private Thread pump(InputStream output, int stream) {
    return Thread.ofVirtual().name("exec-out-" + stream + "-" + session.getId()).start(() -> {
      byte[] buffer = new byte[CHUNK];
      boolean sending = true;
      try (output) {
        int n;
        while ((n = output.read(buffer)) >= 0) {
          if (n > 0 && sending) {
            sending = send(ExecFrames.frame(stream, buffer, n));
          }
        }
      } catch (IOException e) {
        // A terminal reports its end as an I/O error once the command has exited: that is EOF.
      }
    });
  }

  /** Applies the client's messages to the command, in order, until the command is done or the client gone. */
  private void feed(ExecProcess command) {
    OutputStream stdin = command.stdin().orElse(null); // null once closed, or when not attached
    try {
      while (command.alive() && !clientGone.get()) {
        switch (inbound.take()) {
          case ExecFrames.Inbound.Stdin data -> {
            if (stdin != null) {
              write(stdin, data.data());
            }
          }
          case ExecFrames.Inbound.Resize size -> command.resize(size.columns(), size.rows());
          case ExecFrames.Inbound.CloseStream close -> {
            if (close.stream() == ExecFrames.STDIN && stdin != null) {
              closeQuietly(stdin); // EOF for the command: `echo hi | kubectl exec -i ... -- cat` ends
              stdin = null;
            }
          }
          case ExecFrames.Inbound.Ignored ignored -> { }
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      if (stdin != null) {
        closeQuietly(stdin);
      }
    }
  }

  private static void write(OutputStream stdin, byte[] data) {
    try {
      stdin.write(data);
      stdin.flush();
    } catch (IOException e) {
      // The command closed its stdin (or exited): the rest of the client's input has nowhere to go.
    }
  }

  private static void closeQuietly(OutputStream stream) {
    try {
      stream.close();
    } catch (IOException e) {
      // already closed
    }
  }

  /** Sends one binary message; false once the client is gone. */
  private boolean send(byte[] frame) {
    if (clientGone.get() || !session.isOpen()) {
      return false;
    }
    try {
      session.sendSync(new BinaryWebSocketFrame(Unpooled.wrappedBuffer(frame)));
      return true;
    } catch (RuntimeException e) {
      log.debug("exec {}: send failed: {}", session.getId(), e.toString());
      return false;
    }
  }

  /** The status on the error stream, then a normal close: kubectl reads the status once the connection ends. */
  private void finish(byte[] status) {
    if (send(status)) {
      session.close(CloseReason.NORMAL);
    }
  }
}
