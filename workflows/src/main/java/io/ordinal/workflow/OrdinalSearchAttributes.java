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
  public static final SearchAttributeKey<String> REVISION = SearchAttributeKey.forKeyword("OrdinalRevision");

  /** All keys, for registration with the Temporal server (all are Keyword). */
  public static final List<SearchAttributeKey<String>> ALL = List.of(NAMESPACE, STATEFUL_SET, OPERATION, REVISION);

  private OrdinalSearchAttributes() {}

  public static SearchAttributes of(SetKey key, String operation, String revision) {
    SearchAttributes.Builder builder = SearchAttributes.newBuilder()
        .set(NAMESPACE, key.namespace())
        .set(STATEFUL_SET, key.name())
        .set(OPERATION, operation);
    if (revision != null) {
      builder.set(REVISION, revision);
    }
    return builder.build();
  }
}
