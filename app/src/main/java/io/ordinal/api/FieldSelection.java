package io.ordinal.api;

import io.fabric8.kubernetes.api.model.HasMetadata;
import java.util.function.Predicate;

/** The {@code fieldSelector} of a list or watch as a predicate (temporary: metadata fields only). */
final class FieldSelection {
  private FieldSelection() {}

  static Predicate<HasMetadata> of(String resource, String text) {
    Predicate<HasMetadata> selected = o -> true;
    if (text == null || text.isBlank()) {
      return selected;
    }
    for (String term : text.split(",")) {
      boolean negated = term.contains("!=");
      String[] kv = term.split(negated ? "!=" : "==?", 2);
      if (kv.length != 2) {
        throw ApiException.badRequest("invalid selector: '" + text + "'; can't understand '" + term + "'");
      }
      String field = kv[0].trim();
      String value = kv[1].trim();
      Predicate<HasMetadata> equal = switch (field) {
        case "metadata.name" -> o -> value.equals(o.getMetadata().getName());
        case "metadata.namespace" -> o -> value.equals(o.getMetadata().getNamespace());
        default -> throw ApiException.badRequest("field label not supported: " + field);
      };
      selected = selected.and(negated ? equal.negate() : equal);
    }
    return selected;
  }
}
