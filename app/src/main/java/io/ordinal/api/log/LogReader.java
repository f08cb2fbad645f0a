package io.ordinal.api.log;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * Answers {@code kubectl logs} from a container's log file as the kubelet does: lines before
 * {@code since} left out, then the last {@code tailLines} lines, each as its text (after its time with
 * {@code timestamps}), the whole cut at {@code limitBytes}.
 */
public final class LogReader {
  /** The kubelet's output format (RFC3339 with nine fraction digits, so that lines align). */
  static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSSSSSSSXXX")
      .withZone(ZoneOffset.UTC);

  private LogReader() {}

  /** The log as it is now. */
  public static byte[] read(Path file, LogOptions options) throws IOException {
    byte[] log = Files.readAllBytes(file);
    Output output = new Output(options);
    for (LogEntry entry : select(entries(log, 0, log.length), options)) {
      if (!output.write(entry)) {
        break;
      }
    }
    return output.take();
  }

  /**
   * The log as it is now, then each line appended to it until {@code running} says no or
   * {@code maxDuration} has passed ({@code follow=true}).
   */
  public static InputStream follow(Path file, LogOptions options, BooleanSupplier running, Duration maxDuration)
      throws IOException {
    byte[] log = Files.readAllBytes(file);
    int complete = lastIndexOf(log, (byte) '\n') + 1; // an unfinished last line is read when it is finished
    Output output = new Output(options);
    for (LogEntry entry : select(entries(log, 0, complete), options)) {
      if (!output.write(entry)) {
        break;
      }
    }
    return new FollowingLogStream(file, complete, output, options, running, maxDuration);
  }

  /** The entries of {@code log[start, end)}; a last line without newline is printed without one. */
  static List<LogEntry> entries(byte[] log, int start, int end) {
    List<LogEntry> entries = new ArrayList<>();
    int lineStart = start;
    for (int i = start; i < end; i++) {
      if (log[i] == '\n') {
        entries.add(LogEntry.parse(log, lineStart, i));
        lineStart = i + 1;
      }
    }
    if (lineStart < end) {
      entries.add(LogEntry.parse(log, lineStart, end).unterminated());
    }
    return entries;
  }

  /** The entries {@code since} and then {@code tailLines} keep. */
  static List<LogEntry> select(List<LogEntry> entries, LogOptions options) {
    List<LogEntry> recent = options.since() == null ? entries
        : entries.stream().filter(e -> isRecent(e, options)).toList();
    if (options.tailLines() == null) {
      return recent;
    }
    // A line split into partial entries counts once; so does an unfinished one at the end.
    int lines = 0;
    for (int i = recent.size() - 1; i >= 0; i--) {
      boolean endsALine = !recent.get(i).partial() || i == recent.size() - 1;
      if (endsALine && lines++ == options.tailLines()) {
        return recent.subList(i + 1, recent.size());
      }
    }
    return recent;
  }

  /** Whether {@code since} keeps the entry. Bare text (no time) is kept: nothing says it is older. */
  static boolean isRecent(LogEntry entry, LogOptions options) {
    return options.since() == null || entry.time() == null || !entry.time().isBefore(options.since());
  }

  private static int lastIndexOf(byte[] log, byte b) {
    for (int i = log.length - 1; i >= 0; i--) {
      if (log[i] == b) {
        return i;
      }
    }
    return -1;
  }

  /** Entries rendered for the client, up to {@code limitBytes} in all. */
  static final class Output {
    private final boolean timestamps;
    private long remaining;
    private boolean atLineStart = true;
    private ByteArrayOutputStream pending = new ByteArrayOutputStream();

    Output(LogOptions options) {
      this.timestamps = options.timestamps();
      this.remaining = options.limitBytes() == null ? Long.MAX_VALUE : options.limitBytes();
    }

    /** Renders one entry; false once {@code limitBytes} is reached (nothing more may be written). */
    boolean write(LogEntry entry) {
      if (remaining <= 0) {
        return false;
      }
      // The time goes before a line's first part only, as the kubelet does with partial lines.
      byte[] time = timestamps && atLineStart && entry.time() != null
          ? (TIME.format(entry.time()) + " ").getBytes(StandardCharsets.US_ASCII) : new byte[0];
      append(time, time.length);
      append(entry.text(), entry.text().length);
      if (!entry.partial()) {
        append(new byte[] {'\n'}, 1);
      }
      atLineStart = !entry.partial();
      return remaining > 0;
    }

    private void append(byte[] bytes, int length) {
      int allowed = (int) Math.min(length, remaining);
      pending.write(bytes, 0, allowed);
      remaining -= allowed;
    }

    boolean exhausted() {
      return remaining <= 0;
    }

    /** What was rendered since the last call. */
    byte[] take() {
      byte[] bytes = pending.toByteArray();
      pending = new ByteArrayOutputStream();
      return bytes;
    }
  }
}
