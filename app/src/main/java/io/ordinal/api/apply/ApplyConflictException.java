package io.ordinal.api.apply;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * An apply would change fields other managers own (HTTP 409 Conflict, reason Conflict). The
 * message and the per-conflict messages are upstream's ({@code internal.NewConflictError}): the
 * Status causes are of type {@code FieldManagerConflict}, with {@link Conflict#message()} and
 * {@link Conflict#field()}.
 */
public final class ApplyConflictException extends Exception {

  /** A field the applied configuration changes and another manager owns. */
  public record Conflict(String manager, String operation, String apiVersion, String subresource, String field) {
    /** The Status cause's message: {@code conflict with "kubectl-scale" with subresource "scale" using apps/v1}. */
    public String message() {
      return "conflict with " + owner().describe();
    }

    ManagedFields.Identity owner() {
      return ManagedFields.identity(manager, operation, apiVersion, subresource);
    }
  }

  private final List<Conflict> conflicts;

  ApplyConflictException(List<Conflict> conflicts) {
    super(message(conflicts));
    this.conflicts = List.copyOf(conflicts);
  }

  /** Every conflict, by manager, then in field order. */
  public List<Conflict> conflicts() {
    return conflicts;
  }

  private static String message(List<Conflict> conflicts) {
    if (conflicts.size() == 1) {
      Conflict only = conflicts.get(0);
      return "Apply failed with 1 conflict: " + only.message() + ": " + only.field();
    }
    Map<String, List<Conflict>> byManager = new LinkedHashMap<>();
    conflicts.forEach(c -> byManager.computeIfAbsent(c.owner().json(), id -> new ArrayList<>()).add(c));
    List<String> lines = new ArrayList<>();
    byManager.keySet().stream().sorted().forEach(id -> {
      List<Conflict> mine = byManager.get(id);
      lines.add("conflicts with " + mine.get(0).owner().describe() + ":");
      mine.forEach(c -> lines.add("- " + c.field()));
    });
    return "Apply failed with " + conflicts.size() + " conflicts: " + String.join("\n", lines);
  }
}
