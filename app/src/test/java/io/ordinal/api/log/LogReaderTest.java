package io.ordinal.api.log;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ordinal.apimachinery.ApiException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LogReaderTest {
  static final String LOG = """
      2024-05-01T10:00:00.100000000Z stdout F one
      2024-05-01T10:00:01.200000000Z stderr F two (stderr)
      2024-05-01T10:00:02.300000000Z stdout P thr
      2024-05-01T10:00:02.300100000Z stdout F ee
      2024-05-01T10:00:03.000000000Z stdout F\s
      2024-05-01T10:00:04.000000000Z stdout F four
      """;
  static final Instant NOW = Instant.parse("2024-05-01T10:00:05Z");

  @TempDir Path dir;

  @Test
  void parsesStampedLinesAndKeepsBareTextAsIs() {
    LogEntry stamped = parse("2016-10-06T00:17:09.669794202Z stdout F message with  spaces ");
    assertEquals(Instant.parse("2016-10-06T00:17:09.669794202Z"), stamped.time());
    assertEquals("stdout", stamped.stream());
    assertFalse(stamped.partial());
    assertEquals("message with  spaces ", text(stamped));

    LogEntry partial = parse("2016-10-06T00:17:09Z stderr P part");
    assertTrue(partial.partial());
    assertEquals("stderr", partial.stream());
    assertEquals("", text(parse("2016-10-06T00:17:09.1+02:00 stdout F")));
    assertEquals(Instant.parse("2016-10-06T00:17:09.1+02:00"), parse("2016-10-06T00:17:09.1+02:00 stdout F").time());

    for (String bare : new String[] {"hello", "", "2016-10-06T00:17:09Z stdin F x", "2016-10-06T00:17:09Z stdout X x",
        "2016-10-06T25:17:09Z stdout F x", "2016-10-06T00:17:09Z stdout Fx", "0000000000T0000000000 stdout F x"}) {
      LogEntry entry = parse(bare);
      assertNull(entry.time(), bare);
      assertEquals(bare, text(entry));
    }
  }

  @Test
  void printsTheTextOfEachLineJoiningPartialOnes() throws IOException {
    assertEquals("one\ntwo (stderr)\nthree\n\nfour\n", read(LOG, options(null, null, null, false)));
  }

  @Test
  void timestampsPrefixEachLineOnceInTheKubeletsFormat() throws IOException {
    assertEquals("""
        2024-05-01T10:00:00.100000000Z one
        2024-05-01T10:00:01.200000000Z two (stderr)
        2024-05-01T10:00:02.300000000Z three
        2024-05-01T10:00:03.000000000Z\s
        2024-05-01T10:00:04.000000000Z four
        """, read(LOG, options(null, null, null, true)));
  }

  @Test
  void sinceLeavesOutOlderLinesAndTailCountsWhatIsLeft() throws IOException {
    assertEquals("three\n\nfour\n", read(LOG, options(Instant.parse("2024-05-01T10:00:02Z"), null, null, false)));
    assertEquals("four\n", read(LOG, options(Instant.parse("2024-05-01T10:00:04Z"), null, null, false)));
    assertEquals("", read(LOG, options(NOW.plusSeconds(60), null, null, false)));
    assertEquals("one\ntwo (stderr)\nthree\n\nfour\n", read(LOG, options(Instant.EPOCH, null, null, false)));

    assertEquals("four\n", read(LOG, options(null, 1, null, false)));
    assertEquals("three\n\nfour\n", read(LOG, options(null, 3, null, false)), "a split line counts once");
    assertEquals("", read(LOG, options(null, 0, null, false)));
    assertEquals("one\ntwo (stderr)\nthree\n\nfour\n", read(LOG, options(null, 100, null, false)));
    assertEquals("three\n\nfour\n", read(LOG, options(Instant.parse("2024-05-01T10:00:02Z"), 100, null, false)));
    assertEquals("2024-05-01T10:00:04.000000000Z four\n", read(LOG, options(null, 1, null, true)));
  }

  @Test
  void limitBytesCutsTheOutputTimestampsIncluded() throws IOException {
    assertEquals("one\ntw", read(LOG, options(null, null, 6L, false)));
    assertEquals("2024-05-01T10:00:00", read(LOG, options(null, null, 19L, true)));
    assertEquals("four\n", read(LOG, options(null, 1, 1000L, false)));
  }

  @Test
  void aLogWrittenBeforeLinesWereStampedStillReads() throws IOException {
    String old = "plain one\nplain two\nno newline";
    assertEquals(old, read(old, options(null, null, null, false)));
    assertEquals(old, read(old, options(null, null, null, true)), "no time to print");
    assertEquals(old, read(old, options(NOW, null, null, false)), "nothing says the lines are older");
    assertEquals("no newline", read(old, options(null, 1, null, false)));
    assertEquals("plain two\nno newline", read(old, options(null, 2, null, false)));
    // A container started before the upgrade and restarted after it: bare lines, then stamped ones.
    assertEquals("plain\nfour\n", read("plain\n2024-05-01T10:00:04.000000000Z stdout F four\n",
        options(Instant.parse("2024-05-01T10:00:04Z"), null, null, false)));
  }

  @Test
  void followRendersLinesAsTheyAreCompletedAndStopsWithTheContainer() throws Exception {
    Path file = dir.resolve("c.log");
    Files.writeString(file, LOG + "2024-05-01T10:00:04.500000000Z stdout F unfini");
    AtomicBoolean running = new AtomicBoolean(true);
    try (InputStream stream = LogReader.follow(file, options(null, 1, null, true), running::get, Duration.ofMinutes(1))) {
      assertEquals("2024-05-01T10:00:04.000000000Z four\n", readAvailable(stream, 36));
      Files.writeString(file, "shed\n2024-05-01T10:00:06Z stdout P a", StandardOpenOption.APPEND);
      assertEquals("2024-05-01T10:00:04.500000000Z unfinished\n", readAvailable(stream, 42));
      Files.writeString(file, "\n2024-05-01T10:00:07Z stdout F b\nbare", StandardOpenOption.APPEND);
      assertEquals("2024-05-01T10:00:06.000000000Z ab\n", readAvailable(stream, 34));
      running.set(false);
      assertEquals("bare", new String(stream.readAllBytes(), StandardCharsets.UTF_8), "the last, unfinished line too");
    }
  }

  @Test
  void followStopsAtLimitBytes() throws Exception {
    Path file = dir.resolve("c.log");
    Files.writeString(file, LOG);
    try (InputStream stream = LogReader.follow(file, options(null, 1, 8L, false), () -> true, Duration.ofMinutes(1))) {
      assertEquals("four\n", readAvailable(stream, 5));
      Files.writeString(file, "2024-05-01T10:00:07Z stdout F five\n", StandardOpenOption.APPEND);
      assertEquals("fiv", new String(stream.readAllBytes(), StandardCharsets.UTF_8));
    }
  }

  @Test
  void optionsAreValidatedAsUpstream() {
    ApiException both = assertThrows(ApiException.class, () -> LogOptions.of("web-0", 5L, "2024-05-01T10:00:00Z", null, null, null, NOW));
    assertEquals(422, both.code());
    assertTrue(both.getMessage().contains("at most one of `sinceTime` or `sinceSeconds` may be specified"), both.getMessage());
    ApiException ranges = assertThrows(ApiException.class, () -> LogOptions.of("web-0", 0L, null, -1, 0L, null, NOW));
    assertEquals(422, ranges.code());
    assertEquals("PodLogOptions \"web-0\" is invalid: tailLines: Invalid value: -1: must be greater than or equal to 0, "
        + "limitBytes: Invalid value: 0: must be greater than 0, sinceSeconds: Invalid value: 0: must be greater than 0",
        ranges.getMessage());
    assertEquals(3, ranges.status().getDetails().getCauses().size());
    ApiException time = assertThrows(ApiException.class, () -> LogOptions.of("web-0", null, "yesterday", null, null, null, NOW));
    assertEquals(400, time.code());
    assertTrue(time.getMessage().contains("sinceTime"), time.getMessage());
    assertEquals(400, assertThrows(ApiException.class,
        () -> LogOptions.of("web-0", null, "2024-05-01T10:00:00", null, null, null, NOW)).code(), "an offset is required");

    assertEquals(NOW.minusSeconds(5), LogOptions.of("web-0", 5L, null, null, null, null, NOW).since());
    assertEquals(Instant.EPOCH, LogOptions.of("web-0", Long.MAX_VALUE, null, null, null, null, NOW).since());
    assertEquals(Instant.parse("2024-05-01T08:00:00.5Z"),
        LogOptions.of("web-0", null, "2024-05-01T10:00:00.5+02:00", null, null, null, NOW).since());
    assertEquals(LogOptions.ALL, LogOptions.of("web-0", null, null, null, null, null, NOW));
  }

  private static LogEntry parse(String line) {
    byte[] bytes = ("x" + line + "y").getBytes(StandardCharsets.UTF_8);
    return LogEntry.parse(bytes, 1, bytes.length - 1); // within a larger buffer, as in a file
  }

  private static String text(LogEntry entry) {
    return new String(entry.text(), StandardCharsets.UTF_8);
  }

  private static LogOptions options(Instant since, Integer tailLines, Long limitBytes, boolean timestamps) {
    return new LogOptions(since, tailLines, limitBytes, timestamps);
  }

  private String read(String log, LogOptions options) throws IOException {
    Path file = dir.resolve("c.log");
    Files.writeString(file, log);
    byte[] bytes = LogReader.read(file, options);
    assertArrayEquals(bytes, LogReader.read(file, options));
    return new String(bytes, StandardCharsets.UTF_8);
  }

  private static String readAvailable(InputStream stream, int length) throws IOException {
    return new String(stream.readNBytes(length), StandardCharsets.UTF_8);
  }
}
