package io.ordinal.api.table;

import java.time.Duration;
import java.time.Instant;

/**
 * Ages as {@code kubectl get} shows them: upstream's {@code duration.HumanDuration}, about two or
 * three significant figures ({@code 5s}, {@code 3m20s}, {@code 45m}, {@code 5h10m}, {@code 2d5h}, {@code 3y45d}).
 */
public final class HumanDuration {
  private HumanDuration() {}

  /** The age of a timestamp at {@code now}; {@code <unknown>} when there is no timestamp, like upstream's translateTimestampSince. */
  public static String since(Instant timestamp, Instant now) {
    return timestamp == null ? "<unknown>" : format(Duration.between(timestamp, now));
  }

  public static String format(Duration d) {
    // Integer division truncates toward zero, as Go's int(d.Seconds()) and d / time.Minute do.
    long seconds = d.toNanos() / 1_000_000_000L;
    // Up to two seconds in the future is clock skew between machines: shown as now.
    if (seconds < -1) {
      return "<invalid>";
    } else if (seconds < 0) {
      return "0s";
    } else if (seconds < 60 * 2) {
      return seconds + "s";
    }
    long minutes = seconds / 60;
    if (minutes < 10) {
      long s = seconds % 60;
      return s == 0 ? minutes + "m" : minutes + "m" + s + "s";
    } else if (minutes < 60 * 3) {
      return minutes + "m";
    }
    long hours = minutes / 60;
    if (hours < 8) {
      long m = minutes % 60;
      return m == 0 ? hours + "h" : hours + "h" + m + "m";
    } else if (hours < 48) {
      return hours + "h";
    } else if (hours < 24 * 8) {
      long h = hours % 24;
      return h == 0 ? hours / 24 + "d" : hours / 24 + "d" + h + "h";
    } else if (hours < 24 * 365 * 2) {
      return hours / 24 + "d";
    } else if (hours < 24 * 365 * 8) {
      long dy = hours / 24 % 365;
      return dy == 0 ? hours / 24 / 365 + "y" : hours / 24 / 365 + "y" + dy + "d";
    }
    return hours / 24 / 365 + "y";
  }
}
