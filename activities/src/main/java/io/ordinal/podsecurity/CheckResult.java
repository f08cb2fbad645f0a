package io.ordinal.podsecurity;

/**
 * One failed check, as upstream's {@code CheckResult}: a short reason ("allowPrivilegeEscalation !=
 * false") and a detail naming the pod or containers and the field they must (not) set.
 */
public record CheckResult(String reason, String detail) {
  /** How admission lists it: {@code reason (detail)}. */
  @Override
  public String toString() {
    return detail.isEmpty() ? reason : reason + " (" + detail + ")";
  }
}
