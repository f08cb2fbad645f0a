package io.ordinal.api.watch;

import java.io.InputStream;
import java.util.concurrent.LinkedBlockingQueue;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;

/**
 * A stream of chunks as an InputStream, each chunk readable as soon as it is produced. The HTTP
 * server writes an InputStream body chunk by chunk as it reads it, without framing of its own (a
 * Publisher body of type application/json would be sent as one JSON array, not a watch stream).
 */
final class StreamBody extends InputStream {
  private static final byte[] END = new byte[0];
  private final LinkedBlockingQueue<byte[]> chunks = new LinkedBlockingQueue<>();
  private final Disposable subscription;
  private byte[] current = new byte[0];
  private int position;
  private boolean ended;

  StreamBody(Flux<byte[]> source) {
    // The server sends the status line and headers with the first chunk it reads; a watch may have
    // no event for minutes, and clients wait for the headers. So the stream starts with a space:
    // whitespace before a JSON value to every decoder. Not a newline: clients that read a watch line
    // by line (the official Python client) take an empty line for an event without an object.
    chunks.add(new byte[] {' '});
    subscription = source.subscribe(chunks::add, error -> chunks.add(END), () -> chunks.add(END));
  }

  @Override
  public int read() {
    byte[] one = new byte[1];
    return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
  }

  @Override
  public int read(byte[] buffer, int offset, int length) {
    if (length == 0) {
      return 0;
    }
    while (position == current.length) {
      if (ended) {
        return -1;
      }
      try {
        current = chunks.take();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return -1;
      }
      position = 0;
      if (current == END) {
        ended = true;
        return -1;
      }
    }
    int n = Math.min(length, current.length - position);
    System.arraycopy(current, position, buffer, offset, n);
    position += n;
    return n;
  }

  @Override
  public int available() {
    return current.length - position;
  }

  /** The client went away (or the response ended): stop watching. */
  @Override
  public void close() {
    subscription.dispose();
  }
}
