package io.ordinal.workflow;

import io.ordinal.model.SetKey;
import io.temporal.common.SearchAttributeKey;
import io.temporal.common.SearchAttributes;
import java.util.List;

/** Custom search attributes that make every set and operation easy to find in the Temporal Web UI. */
public final class OrdinalSearchAttributes {
  public static final SearchAttributeKey<String> NAMESPACE = SearchAttributeKey.forKeyword("OrdinalNamespace");
  public static final SearchAttributeKey<String> STATEFUL_SET = SearchAttributeKey.forKeyword("OrdinalStatefulSet");
  public static final SearchAttributeKey<String> OPERATION = SearchAttributeKey.forKeyword("OrdinalOperation");
  /** The revision an operation works towards (a rollout's to-revision). */
  public static final SearchAttributeKey<String> REVISION = SearchAttributeKey.forKeyword("OrdinalRevision");
  /** The revision a rollout started from (the set's current revision then). */
  public static final SearchAttributeKey<String> FROM_REVISION = SearchAttributeKey.forKeyword("OrdinalFromRevision");

  /** All keys, for registration with the Temporal server (all are Keyword). */
  public static final List<SearchAttributeKey<String>> ALL = List.of(NAMESPACE, STATEFUL_SET, OPERATION, REVISION, FROM_REVISION);

  private OrdinalSearchAttributes() {}

  /** The value of {@link #OPERATION} on a set's controller workflow. */
  public static final String CONTROLLER = "controller";

  /** The attributes of a set's controller workflow. */
  public static SearchAttributes ofController(SetKey key) {
    return of(key, CONTROLLER, null, null);
  }

  /** The attributes of one operation: the revision it moves to and, for a rollout, the one it starts from. */
  public static SearchAttributes ofOperation(SetKey key, Operation operation, String revision, String fromRevision) {
    return of(key, operation.wireName(), revision, fromRevision);
  }

  private static SearchAttributes of(SetKey key, String operation, String revision, String fromRevision) {
    SearchAttributes.Builder builder = SearchAttributes.newBuilder()
        .set(NAMESPACE, key.namespace())
        .set(STATEFUL_SET, key.name())
        .set(OPERATION, operation);
    if (revision != null) {
      builder.set(REVISION, revision);
    }
    if (fromRevision != null) {
      builder.set(FROM_REVISION, fromRevision);
    }
    return builder.build();
  }
}
