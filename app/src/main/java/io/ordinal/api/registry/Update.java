package io.ordinal.api.registry;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.ordinal.store.KubeJson;
import java.util.function.UnaryOperator;

/**
 * The new object of an update, made from the stored one at each attempt (upstream's
 * UpdatedObjectInfo): a PUT's body, or a patch applied to what is stored now.
 */
public final class Update<T extends HasMetadata> {
  private final UnaryOperator<T> change;
  private final boolean patch;

  private Update(UnaryOperator<T> change, boolean patch) {
    this.change = change;
    this.patch = patch;
  }

  /** PUT: the body replaces the object; its resourceVersion, if any, is a precondition. */
  public static <T extends HasMetadata> Update<T> replacing(T body) {
    // A fresh copy per attempt: an attempt changes the object it is given (defaults, managedFields).
    return new Update<>(current -> KubeJson.copy(body), false);
  }

  /**
   * PATCH: applied again to the newer object after a racing write, unless the patch itself names a
   * resourceVersion (then it is a precondition).
   */
  public static <T extends HasMetadata> Update<T> patching(UnaryOperator<T> patch) {
    return new Update<>(patch, true);
  }

  T apply(T current) {
    return change.apply(current);
  }

  /** Whether the new object's resourceVersion is the client's precondition rather than the stored one carried along. */
  boolean pinned(T current, T updated) {
    String sent = updated.getMetadata() == null ? null : updated.getMetadata().getResourceVersion();
    if (sent == null || sent.isEmpty()) {
      return false;
    }
    return !patch || !sent.equals(current.getMetadata().getResourceVersion());
  }
}
