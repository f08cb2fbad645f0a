package io.ordinal.api.log;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Arrays;

/**
 * One line of a container's log file. The local driver writes {@code <RFC3339 time> <stream> <F|P>
 * <text>} (the CRI format; {@code P}: a part of a long line, continued by the stream's next entry);
 * a log written before it stamped lines (a container started by an older version and still
 * running) holds bare text, which is an entry without time or stream.
 *
 * @param time when the line was written; null for bare text
 * @param stream {@code stdout} or {@code stderr}; null for bare text
 * @param partial the line goes on in the next entry
 * @param text the line without its newline
 */
record LogEntry(Instant time, String stream, boolean partial, byte[] text) {

  /** The entry in {@code log[start, end)}, a line without its newline. */
  static LogEntry parse(byte[] log, int start, int end) {
    int timeEnd = indexOf(log, (byte) ' ', start, end);
    // The shortest RFC3339 time is 20 characters (2006-01-02T15:04:05Z), the longest 35.
    if (timeEnd - start >= 20 && timeEnd - start <= 35 && log[start + 10] == 'T') {
      Instant time = time(log, start, timeEnd);
      int streamEnd = indexOf(log, (byte) ' ', timeEnd + 1, end);
      String stream = new String(log, timeEnd + 1, Math.max(0, streamEnd - timeEnd - 1), StandardCharsets.US_ASCII);
      int tag = streamEnd + 1;
      if (time != null && (stream.equals("stdout") || stream.equals("stderr")) && tag < end
          && (log[tag] == 'F' || log[tag] == 'P') && (tag + 1 == end || log[tag + 1] == ' ')) {
        int textStart = Math.min(tag + 2, end);
        return new LogEntry(time, stream, log[tag] == 'P', Arrays.copyOfRange(log, textStart, end));
      }
    }
    return new LogEntry(null, null, false, Arrays.copyOfRange(log, start, end));
  }

  /** The same entry printed without a newline: the file's last line, still without one. */
  LogEntry unterminated() {
    return new LogEntry(time, stream, true, text);
  }

  private static Instant time(byte[] log, int start, int end) {
    try {
      return Instant.parse(new String(log, start, end - start, StandardCharsets.US_ASCII));
    } catch (DateTimeParseException e) {
      return null;
    }
  }

  /** The index of {@code b} in {@code log[from, end)}, or {@code end}. */
  private static int indexOf(byte[] log, byte b, int from, int end) {
    for (int i = from; i < end; i++) {
      if (log[i] == b) {
        return i;
      }
    }
    return end;
  }
}
