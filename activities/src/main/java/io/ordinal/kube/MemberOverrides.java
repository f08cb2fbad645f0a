package io.ordinal.kube;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The {@code ordinal.io/member-overrides} annotation of a set: ordinal ranges whose pods differ from
 * the set's template (a bigger member, another image or zone for a few, a canary by ordinal), as
 * KubeBlocks' {@code instances[]}. A list, in JSON or YAML, of
 * <pre>
 * - ordinals: "3-4"          # ordinals and ranges, as ordinal.io/reserved-ordinals writes them
 *   template:                # a strategic merge patch of spec.template, as kubectl patch takes it
 *     spec:
 *       containers:
 *       - name: db
 *         resources: {limits: {memory: 4Gi}}
 * </pre>
 * The ranges may not overlap. The overrides are part of the set's revision, so a change to them is a
 * rollout and {@code kubectl rollout undo} brings them back; a pod whose own template a new revision
 * leaves as it was is not replaced, so a change to one range rolls only that range. An annotation
 * rather than a spec field, like the other member operations, so the manifest stays a valid apps/v1
 * StatefulSet.
 */
public final class MemberOverrides {
  public static final String ANNOTATION = "ordinal.io/member-overrides";
  /** Enough for any real layout of a set; few enough that every pod's lookup stays trivial. */
  public static final int MAX = 100;
  private static final ObjectMapper READER = new YAMLMapper();
  private static final Set<String> FIELDS = Set.of("ordinals", "template");

  /** One override: its ranges of ordinals (inclusive pairs) and its patch of the pod template. */
  public record RangeOverride(List<long[]> ranges, ObjectNode template) {
    public boolean covers(int ordinal) {
      return ranges.stream().anyMatch(r -> ordinal >= r[0] && ordinal <= r[1]);
    }
  }

  private MemberOverrides() {}

  /**
   * The set's overrides in the form a revision records and compares them in (JSON, keys sorted,
   * ordinals as written but trimmed); null without the annotation, with an empty list, or with one
   * admission refused.
   */
  public static String canonical(ObjectMeta meta) {
    String text = Labels.annotation(meta, ANNOTATION);
    if (text == null) {
      return null;
    }
    JsonNode value;
    try {
      value = read(text);
    } catch (IllegalArgumentException e) {
      return null;
    }
    if (problem(value) != null || !(value instanceof ArrayNode list) || list.isEmpty()) {
      return null; // refused at admission, or an empty value
    }
    ArrayNode out = JsonNodeFactory.instance.arrayNode();
    for (JsonNode item : list) {
      ObjectNode entry = out.addObject();
      entry.put("ordinals", item.get("ordinals").asText().strip());
      entry.set("template", item.get("template"));
    }
    return new String(GoJson.marshal(out), StandardCharsets.UTF_8);
  }

  /** The overrides recorded by {@link #canonical} (or null: none). */
  public static List<RangeOverride> parse(String canonical) {
    if (canonical == null) {
      return List.of();
    }
    synchronized (PARSED) {
      List<RangeOverride> cached = PARSED.get(canonical);
      if (cached != null) {
        return cached;
      }
    }
    List<RangeOverride> parsed = parseUncached(canonical);
    synchronized (PARSED) {
      PARSED.put(canonical, parsed);
    }
    return parsed;
  }

  /** {@link #parse} by the text: each observation looks up every pod's override. */
  private static final Map<String, List<RangeOverride>> PARSED = new LinkedHashMap<>(64, 0.75f, true) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<String, List<RangeOverride>> eldest) {
      return size() > 256;
    }
  };

  private static List<RangeOverride> parseUncached(String canonical) {
    List<RangeOverride> out = new ArrayList<>();
    for (JsonNode item : read(canonical)) {
      List<long[]> ranges = new ArrayList<>();
      OrdinalRanges.parse(item.get("ordinals").asText(), ranges);
      out.add(new RangeOverride(List.copyOf(ranges), (ObjectNode) item.get("template")));
    }
    return List.copyOf(out);
  }

  /** Which override, by its index, applies to {@code ordinal}; empty when the template is the set's. */
  public static Optional<Integer> indexFor(List<RangeOverride> overrides, int ordinal) {
    for (int i = 0; i < overrides.size(); i++) {
      if (overrides.get(i).covers(ordinal)) {
        return Optional.of(i);
      }
    }
    return Optional.empty();
  }

  /**
   * One ordinal of each run of {@code [start, end)} over which {@code a} and {@code b} give the same
   * overrides, keyed by their indexes ({@code "0/"}: the first of {@code a}, none of {@code b}): all a
   * check of each ordinal's pair of templates has to look at, however many ordinals the set has.
   */
  public static Map<String, Integer> representatives(List<RangeOverride> a, List<RangeOverride> b, long start,
      long end) {
    TreeSet<Long> cuts = new TreeSet<>(List.of(start));
    for (List<RangeOverride> overrides : List.of(a, b)) {
      for (RangeOverride override : overrides) {
        for (long[] range : override.ranges()) {
          cuts.add(Math.max(start, range[0]));
          cuts.add(Math.max(start, range[1] + 1));
        }
      }
    }
    Map<String, Integer> out = new LinkedHashMap<>();
    for (long cut : cuts.headSet(Math.min(end, Integer.MAX_VALUE + 1L))) {
      int ordinal = (int) cut;
      out.putIfAbsent(indexFor(a, ordinal).map(String::valueOf).orElse("") + "/"
          + indexFor(b, ordinal).map(String::valueOf).orElse(""), ordinal);
    }
    return out;
  }

  /**
   * What is wrong with a value, for {@code metadata.annotations[ordinal.io/member-overrides]}; null if
   * valid. Whether each patched template is itself valid is the set's validation's to say.
   */
  public static String problem(String text) {
    try {
      return problem(read(text));
    } catch (IllegalArgumentException e) {
      return "must be a list of {ordinals, template} (JSON or YAML): " + e.getMessage().lines().findFirst().orElse("");
    }
  }

  private static String problem(JsonNode list) {
    if (list == null || list.isNull() || list.isMissingNode()) {
      return null; // an empty value: no overrides
    }
    if (!list.isArray()) {
      return "must be a list of {ordinals, template} (JSON or YAML)";
    }
    if (list.size() > MAX) {
      return "at most " + MAX + " overrides";
    }
    List<long[]> seen = new ArrayList<>();
    for (int i = 0; i < list.size(); i++) {
      JsonNode item = list.get(i);
      String at = "[" + i + "]";
      if (!item.isObject()) {
        return at + " must be an object with ordinals and template";
      }
      for (var names = item.fieldNames(); names.hasNext(); ) {
        String name = names.next();
        if (!FIELDS.contains(name)) {
          return at + ": unknown field " + name + " (an override has ordinals and template)";
        }
      }
      JsonNode ordinals = item.get("ordinals");
      if (ordinals == null || !(ordinals.isTextual() || ordinals.isIntegralNumber()) || ordinals.asText().isBlank()) {
        return at + ".ordinals is required: ordinals and ranges, as \"3\" or \"3-4, 7\"";
      }
      List<long[]> ranges = new ArrayList<>();
      String wrong = OrdinalRanges.parse(ordinals.asText(), ranges);
      if (wrong != null) {
        return at + ".ordinals: " + wrong;
      }
      for (long[] range : ranges) {
        for (long[] other : seen) {
          if (range[0] <= other[1] && other[0] <= range[1]) {
            return at + ".ordinals: " + Math.max(range[0], other[0]) + " is in two overrides; each ordinal may have one";
          }
        }
      }
      seen.addAll(ranges);
      JsonNode template = item.get("template");
      if (template == null || !template.isObject()) {
        return at + ".template is required: a strategic merge patch of spec.template";
      }
    }
    return null;
  }

  private static JsonNode read(String text) {
    try {
      return READER.readTree(text);
    } catch (java.io.IOException e) {
      throw new IllegalArgumentException(e.getMessage(), e);
    }
  }
}
