package io.ordinal.kube;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Ordinals and ranges of ordinals as the annotations write them: {@code "2"}, {@code "2, 5-7"}. */
final class OrdinalRanges {
  private static final Pattern ITEM = Pattern.compile("\\s*(\\d{1,10})\\s*(?:-\\s*(\\d{1,10})\\s*)?");

  private OrdinalRanges() {}

  /** Adds each item of {@code text} to {@code out} as an inclusive pair; what is wrong with it, or null. */
  static String parse(String text, List<long[]> out) {
    for (String item : text.split(",", -1)) {
      Matcher m = ITEM.matcher(item);
      if (!m.matches()) {
        return "\"" + item.trim() + "\" is not an ordinal or a range of ordinals (\"2\", \"5-7\"); separate them with commas";
      }
      long first = Long.parseLong(m.group(1));
      long last = m.group(2) == null ? first : Long.parseLong(m.group(2));
      if (last > Integer.MAX_VALUE) {
        return "ordinal " + last + " is more than " + Integer.MAX_VALUE;
      }
      if (first > last) {
        return "range " + first + "-" + last + " ends before it starts";
      }
      out.add(new long[] {first, last});
    }
    return null;
  }
}
