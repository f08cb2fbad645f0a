package io.ordinal.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.ManagedFieldsEntry;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.api.model.StatusCause;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.ordinal.api.apply.ApplyConflictException;
import io.ordinal.api.apply.FieldManager;
import io.ordinal.api.statefulset.FieldError;
import io.ordinal.store.KubeJson;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * A StatefulSet's {@code metadata.managedFields}: who set which field, kept on every write of the
 * set (and its scale), and the server-side apply merge that reads them. Status is never tracked
 * here: writes to the main resource ignore it, and Ordinal's controller publishes it.
 */
final class FieldOwnership {
  private static final FieldManager STATEFUL_SETS = FieldManager.of(StatefulSet.class, "apps/v1");

  private FieldOwnership() {}

  /** The set as the field manager sees it, without status. */
  static ObjectNode tracked(StatefulSet set) {
    ObjectNode node = KubeJson.JSON.valueToTree(set);
    node.remove("status");
    return node;
  }

  /**
   * Records an Update by {@code manager} on {@code updated}: the fields it added or changed since
   * {@code old} (null when it creates the set) become its own.
   */
  static void recordUpdate(StatefulSet old, StatefulSet updated, String manager, String subresource) {
    ObjectNode result;
    try {
      result = STATEFUL_SETS.update(old == null ? null : tracked(old), tracked(updated), manager, subresource,
          Instant.now());
    } catch (IllegalArgumentException e) {
      throw invalidManagedFields(updated, e);
    }
    // Only the entries change: read them back, not the whole set.
    JsonNode entries = result.path("metadata").path("managedFields");
    try {
      updated.getMetadata().setManagedFields(entries.isArray()
          ? KubeJson.JSON.readerForListOf(ManagedFieldsEntry.class).readValue(entries) : new ArrayList<>());
    } catch (IOException e) {
      throw new IllegalStateException("the field manager wrote managedFields the model cannot read", e);
    }
  }

  /**
   * Merges an applied configuration into {@code live} (null when the apply creates the set): the
   * result carries the new managedFields and live's status. 409 on a conflict unless forced.
   */
  static StatefulSet applied(StatefulSet live, ObjectNode config, WriteOptions options) {
    ObjectNode merged;
    try {
      merged = STATEFUL_SETS.apply(live == null ? null : tracked(live), config, options.fieldManager(),
          options.force(), Instant.now());
    } catch (ApplyConflictException e) {
      throw conflict(e);
    } catch (IllegalArgumentException e) {
      // The configuration itself: managedFields set, a list item without its key, duplicate keys.
      throw ApiException.badRequest(e.getMessage());
    }
    StatefulSet set = read(merged);
    if (live != null) {
      set.setStatus(live.getStatus());
    }
    return set;
  }

  private static StatefulSet read(ObjectNode node) {
    try {
      return KubeJson.JSON.treeToValue(node, StatefulSet.class);
    } catch (JsonProcessingException e) {
      throw ApiException.badRequest("the applied configuration could not be decoded: " + e.getOriginalMessage());
    }
  }

  /** Upstream's apply conflict: 409, one FieldManagerConflict cause per field. */
  private static ApiException conflict(ApplyConflictException e) {
    List<StatusCause> causes = e.conflicts().stream()
        .map(c -> new StatusCause(c.field(), c.message(), "FieldManagerConflict"))
        .toList();
    return new ApiException(new StatusBuilder().withApiVersion("v1").withKind("Status")
        .withNewMetadata().endMetadata()
        .withStatus("Failure").withCode(409).withReason("Conflict").withMessage(e.getMessage())
        .withNewDetails().withCauses(causes).endDetails()
        .build());
  }

  static boolean isApplyConflict(ApiException e) {
    return e.status().getDetails() != null && e.status().getDetails().getCauses().stream()
        .anyMatch(cause -> "FieldManagerConflict".equals(cause.getReason()));
  }

  private static ApiException invalidManagedFields(StatefulSet set, IllegalArgumentException e) {
    String name = set == null || set.getMetadata() == null || set.getMetadata().getName() == null
        ? "" : set.getMetadata().getName();
    return ApiException.invalid(StatefulSetService.GROUP, StatefulSetService.KIND, name,
        List.of(new FieldError("FieldValueInvalid", "metadata.managedFields", "Invalid value: " + e.getMessage())));
  }
}
