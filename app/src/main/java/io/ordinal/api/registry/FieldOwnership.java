package io.ordinal.api.registry;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ManagedFieldsEntry;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.api.model.StatusCause;
import io.ordinal.api.apply.ApplyConflictException;
import io.ordinal.api.apply.FieldManager;
import io.ordinal.apimachinery.ApiException;
import io.ordinal.apimachinery.FieldError;
import io.ordinal.store.KubeJson;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * A kind's {@code metadata.managedFields}: who set which field, kept on every write, and the
 * server-side apply merge that reads them. The status is not tracked on the main resource: its
 * writes ignore it.
 */
final class FieldOwnership<T extends HasMetadata> {
  private final Resource<T> resource;
  private final FieldManager manager;

  FieldOwnership(Resource<T> resource) {
    this.resource = resource;
    this.manager = FieldManager.of(resource.type(), resource.apiVersion());
  }

  /** The object as the field manager sees it, without status. */
  ObjectNode tracked(T object) {
    ObjectNode node = KubeJson.JSON.valueToTree(object);
    node.remove("status");
    return node;
  }

  /**
   * Records an Update by {@code fieldManager} on {@code updated}: the fields it added or changed since
   * {@code old} (null when it creates the object) become its own.
   */
  void recordUpdate(T old, T updated, String fieldManager, String subresource) {
    ObjectNode result;
    try {
      result = manager.update(old == null ? null : tracked(old), tracked(updated), fieldManager, subresource, Instant.now());
    } catch (IllegalArgumentException e) {
      throw ApiException.invalid(resource.group(), resource.kind(), name(updated), List.of(
          new FieldError("FieldValueInvalid", "metadata.managedFields", "Invalid value: " + e.getMessage())));
    }
    // Only the entries change: read them back, not the whole object.
    JsonNode entries = result.path("metadata").path("managedFields");
    try {
      updated.getMetadata().setManagedFields(entries.isArray()
          ? KubeJson.JSON.readerForListOf(ManagedFieldsEntry.class).readValue(entries) : new ArrayList<>());
    } catch (IOException e) {
      throw new IllegalStateException("the field manager wrote managedFields the model cannot read", e);
    }
  }

  /**
   * Merges an applied configuration into {@code live} (null when the apply creates the object): the
   * result carries the new managedFields, and no status (the update takes live's). 409 on a
   * conflict unless forced.
   */
  T applied(T live, ObjectNode config, WriteOptions options) {
    ObjectNode merged;
    try {
      merged = manager.apply(live == null ? null : tracked(live), config, options.fieldManager(), options.force(), Instant.now());
    } catch (ApplyConflictException e) {
      throw conflict(e);
    } catch (IllegalArgumentException e) {
      // The configuration itself: managedFields set, a list item without its key, duplicate keys.
      throw ApiException.badRequest(e.getMessage());
    }
    try {
      return KubeJson.JSON.treeToValue(merged, resource.type());
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

  private static String name(HasMetadata object) {
    return object == null || object.getMetadata() == null || object.getMetadata().getName() == null
        ? "" : object.getMetadata().getName();
  }
}
