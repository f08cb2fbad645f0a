package io.ordinal.kube;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * How upstream's Go API types write each JSON field ({@code go-fields.json}, generated from the
 * types themselves by deploy/kube/go-fields): which fields encoding/json always writes and with
 * what zero, which it leaves out when empty (omitempty) or zero (omitzero), and the struct type or
 * custom codec below each.
 */
public final class GoTypes {
  /**
   * One JSON field of a Go struct.
   *
   * @param always written even when zero (no omitempty or omitzero, or a struct value)
   * @param zero the JSON of its zero value, when {@code always}
   * @param type the struct type of the field or of its elements ({@code shape}), or null
   * @param shape "list" or "map" when {@code type} or {@code codec} is that of the elements, else ""
   * @param omit "empty" (omitempty), "zero" (omitzero) or ""
   * @param kind the field's Go kind as emptiness is judged: ptr, slice, map, struct, string, int, float, bool, interface
   * @param codec the type with its own JSON codec below the field (a Quantity, a Time), or null
   */
  public record Field(String name, boolean always, JsonNode zero, String type, String shape, String omit, String kind,
      String codec) {}

  /** The Go type of the StatefulSet's pod template, from which upstream hashes a revision. */
  public static final String POD_TEMPLATE_SPEC = "k8s.io/api/core/v1.PodTemplateSpec";
  public static final String STATEFUL_SET_SPEC = "k8s.io/api/apps/v1.StatefulSetSpec";
  public static final String PERSISTENT_VOLUME_CLAIM = "k8s.io/api/core/v1.PersistentVolumeClaim";

  private static final Map<String, String> KINDS = new HashMap<>();
  private static final Map<String, List<Field>> TYPES = new HashMap<>();

  static {
    try (InputStream in = GoTypes.class.getResourceAsStream("go-fields.json")) {
      JsonNode root = new ObjectMapper().readTree(in);
      root.path("kinds").properties().forEach(e -> KINDS.put(e.getKey(), e.getValue().asText()));
      root.path("types").properties().forEach(type -> {
        List<Field> fields = new ArrayList<>();
        for (JsonNode f : type.getValue()) {
          fields.add(new Field(f.path("name").asText(), f.path("always").asBoolean(), f.get("zero"),
              text(f, "type"), f.path("shape").asText(""), f.path("omit").asText(""), f.path("kind").asText(""),
              text(f, "codec")));
        }
        TYPES.put(type.getKey(), List.copyOf(fields));
      });
    } catch (IOException e) {
      throw new UncheckedIOException("go-fields.json is not readable", e);
    }
  }

  private GoTypes() {}

  private static String text(JsonNode node, String field) {
    return node.hasNonNull(field) ? node.get(field).asText() : null;
  }

  /** The Go type of a served kind, by {@code apiVersion/kind} ("apps/v1/StatefulSet"). */
  public static Optional<String> ofKind(String apiVersion, String kind) {
    return Optional.ofNullable(KINDS.get(apiVersion + "/" + kind));
  }

  /** The JSON fields of a Go struct type, in the type's order; none for a type not recorded. */
  public static List<Field> fields(String type) {
    return TYPES.getOrDefault(type, List.of());
  }
}
