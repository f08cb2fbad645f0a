package io.ordinal.kube;

import io.fabric8.kubernetes.api.model.ObjectMeta;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * The {@code ordinal.io/reserved-ordinals} annotation of a set: ordinals it does not run, written as
 * a comma-separated list of ordinals and ranges ({@code "2"}, {@code "2, 5-7"}). Reserving a running
 * member deletes its pod (through its preDelete hook) and the next free ordinal takes its place, so
 * the set keeps its size; removing the reservation brings the ordinal back with its claims (as the
 * retention policy left them) and the highest ordinal goes. OpenKruise's {@code reserveOrdinals},
 * as an annotation rather than a spec field so that the same manifest stays a valid apps/v1
 * StatefulSet for kubectl's validation and for a cluster's API server, and changing it rolls out nothing.
 */
public final class ReservedOrdinals {
  public static final String ANNOTATION = "ordinal.io/reserved-ordinals";
  /** More than any real set reserves, few enough to keep every observation of the set small. */
  public static final int MAX = 1_000;

  private ReservedOrdinals() {}

  /** The reserved ordinals of a set, sorted; empty without the annotation (an invalid one was refused at admission). */
  public static List<Integer> of(ObjectMeta meta) {
    String text = Labels.annotation(meta, ANNOTATION);
    List<Integer> out = new ArrayList<>();
    return text == null || parse(text, out) != null ? List.of() : out;
  }

  /** What is wrong with a value, as a message for {@code metadata.annotations[ordinal.io/reserved-ordinals]}; null if valid. */
  public static String problem(String text) {
    return parse(text, new ArrayList<>());
  }

  private static String parse(String text, List<Integer> out) {
    TreeSet<Integer> ordinals = new TreeSet<>();
    if (text.isBlank()) {
      return null;
    }
    List<long[]> ranges = new ArrayList<>();
    String wrong = OrdinalRanges.parse(text, ranges);
    if (wrong != null) {
      return wrong;
    }
    for (long[] range : ranges) {
      if (range[1] - range[0] + 1 + ordinals.size() > MAX) {
        return "at most " + MAX + " ordinals may be reserved";
      }
      for (long ordinal = range[0]; ordinal <= range[1]; ordinal++) {
        ordinals.add((int) ordinal);
      }
    }
    out.addAll(ordinals);
    return null;
  }
}
