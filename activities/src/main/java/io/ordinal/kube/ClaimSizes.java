package io.ordinal.kube;

import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import java.math.BigDecimal;
import java.util.Optional;

/**
 * Volume expansion, which upstream does not have yet (KEP-4650): a volumeClaimTemplate's storage
 * request may grow, never shrink, and each existing claim of it grows with it. Pure.
 */
public final class ClaimSizes {
  private ClaimSizes() {}

  public static Optional<Quantity> storage(PersistentVolumeClaim claim) {
    var spec = claim.getSpec();
    if (spec == null || spec.getResources() == null || spec.getResources().getRequests() == null) {
      return Optional.empty();
    }
    return Optional.ofNullable(spec.getResources().getRequests().get("storage"));
  }

  public static BigDecimal bytes(Quantity quantity) {
    return Quantity.getAmountInBytes(quantity);
  }

  /** The template {@code claimName} (named {@code <template>-<set>-<ordinal>}) was made from, if any. */
  public static Optional<PersistentVolumeClaim> template(StatefulSet set, String claimName, int ordinal) {
    return StatefulSetFields.nullSafe(set.getSpec().getVolumeClaimTemplates()).stream()
        .filter(t -> PodFactory.claimName(t.getMetadata().getName(), set.getMetadata().getName(), ordinal)
            .equals(claimName))
        .findFirst();
  }

  /** The larger storage request the claim must have, when its template now asks for more than it has. */
  public static Optional<Quantity> grown(PersistentVolumeClaim claim, PersistentVolumeClaim template) {
    Optional<Quantity> wanted = storage(template);
    Optional<Quantity> has = storage(claim);
    if (wanted.isEmpty() || (has.isPresent() && bytes(has.get()).compareTo(bytes(wanted.get())) >= 0)) {
      return Optional.empty();
    }
    return wanted;
  }
}
