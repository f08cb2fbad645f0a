package io.ordinal.api;

import java.io.IOException;
import java.io.InputStream;
import java.io.RandomAccessFile;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.function.BooleanSupplier;

/** A log file read from {@code offset} that, at its end, waits for more while the container runs ({@code ?follow=true}). */
final class FollowingInputStream extends InputStream {
  private static final Duration POLL = Duration.ofMillis(200);
  private final RandomAccessFile file;
  private final BooleanSupplier running;
  private final Instant deadline;

  FollowingInputStream(Path path, long offset, BooleanSupplier running, Duration maxDuration) throws IOException {
    this.file = new RandomAccessFile(path.toFile(), "r");
    this.file.seek(offset);
    this.running = running;
    this.deadline = Instant.now().plus(maxDuration);
  }

  @Override
  public int read() throws IOException {
    byte[] one = new byte[1];
    return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
  }

  @Override
  public int read(byte[] buffer, int offset, int length) throws IOException {
    while (true) {
      if (file.getFilePointer() > file.length()) {
        file.seek(0); // the log was capped (truncated) under us
      }
      int n = file.read(buffer, offset, length);
      if (n > 0) {
        return n;
      }
      if (!running.getAsBoolean() || Instant.now().isAfter(deadline)) {
        return -1;
      }
      try {
        Thread.sleep(POLL.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return -1;
      }
    }
  }

  @Override
  public void close() throws IOException {
    file.close();
  }
}
