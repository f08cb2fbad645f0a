package io.ordinal.api.log;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.RandomAccessFile;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.function.BooleanSupplier;

/**
 * A log's rendered lines from {@code offset} on that, at the file's end, waits for more while the
 * container runs ({@code ?follow=true}). Lines are rendered once they are complete; an unfinished
 * last one is rendered when the container is gone.
 */
final class FollowingLogStream extends InputStream {
  private static final Duration POLL = Duration.ofMillis(200);
  private final RandomAccessFile file;
  private final LogReader.Output output;
  private final LogOptions options;
  private final BooleanSupplier running;
  private final Instant deadline;
  private final byte[] chunk = new byte[64 * 1024];
  /** Read from the file, not yet a complete line. */
  private final ByteArrayOutputStream unfinished = new ByteArrayOutputStream();
  private byte[] ready;
  private int readyOffset;
  private boolean ended;

  FollowingLogStream(Path path, long offset, LogReader.Output output, LogOptions options, BooleanSupplier running,
      Duration maxDuration) throws IOException {
    this.file = new RandomAccessFile(path.toFile(), "r");
    this.file.seek(offset);
    this.output = output;
    this.options = options;
    this.running = running;
    this.deadline = Instant.now().plus(maxDuration);
    this.ready = output.take();
  }

  @Override
  public int read() throws IOException {
    byte[] one = new byte[1];
    return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
  }

  @Override
  public int read(byte[] buffer, int offset, int length) throws IOException {
    if (length == 0) {
      return 0;
    }
    while (readyOffset == ready.length) {
      if (ended || output.exhausted()) {
        return -1;
      }
      if (!readMore()) {
        if (!running.getAsBoolean() || Instant.now().isAfter(deadline)) {
          finish();
        } else {
          try {
            Thread.sleep(POLL.toMillis());
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
          }
        }
      }
      ready = output.take();
      readyOffset = 0;
    }
    int n = Math.min(length, ready.length - readyOffset);
    System.arraycopy(ready, readyOffset, buffer, offset, n);
    readyOffset += n;
    return n;
  }

  /** Renders the complete lines appended since the last call; false when nothing was appended. */
  private boolean readMore() throws IOException {
    if (file.getFilePointer() > file.length()) {
      file.seek(0); // the log was capped (truncated) under us
      unfinished.reset();
    }
    int n = file.read(chunk);
    if (n <= 0) {
      return false;
    }
    int lineStart = 0;
    for (int i = 0; i < n; i++) {
      if (chunk[i] == '\n') {
        unfinished.write(chunk, lineStart, i - lineStart);
        render(unfinished.toByteArray());
        unfinished.reset();
        lineStart = i + 1;
      }
    }
    unfinished.write(chunk, lineStart, n - lineStart);
    return true;
  }

  /** The container is gone (or the time is up): what is left of an unfinished line is its last. */
  private void finish() {
    if (unfinished.size() > 0) {
      byte[] line = unfinished.toByteArray();
      LogEntry entry = LogEntry.parse(line, 0, line.length).unterminated();
      if (LogReader.isRecent(entry, options)) {
        output.write(entry);
      }
      unfinished.reset();
    }
    ended = true;
  }

  private void render(byte[] line) {
    LogEntry entry = LogEntry.parse(line, 0, line.length);
    if (LogReader.isRecent(entry, options)) {
      output.write(entry);
    }
  }

  @Override
  public void close() throws IOException {
    file.close();
  }
}
