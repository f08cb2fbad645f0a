package io.ordinal.podsecurity;

import java.util.Locale;
import java.util.Optional;

/** A Pod Security Standards level, from least to most restrictive. */
public enum Level {
  PRIVILEGED, BASELINE, RESTRICTED;

  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** The level a label value names (exactly, lower case, as upstream's api.ParseLevel). */
  public static Optional<Level> parse(String value) {
    for (Level level : values()) {
      if (level.label().equals(value)) {
        return Optional.of(level);
      }
    }
    return Optional.empty();
  }
}
