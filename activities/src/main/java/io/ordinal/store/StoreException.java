package io.ordinal.store;

/** A write the store refused; each maps to one Kubernetes Status reason. */
public class StoreException extends RuntimeException {
  public enum Reason { NOT_FOUND, ALREADY_EXISTS, CONFLICT }

  private final Reason reason;

  public StoreException(Reason reason, String message) {
    super(message);
    this.reason = reason;
  }

  public Reason reason() {
    return reason;
  }
}
