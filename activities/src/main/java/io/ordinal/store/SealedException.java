package io.ordinal.store;

/** A sealed object that does not open: its key is not in the key file, or it was not sealed for its row. */
public class SealedException extends IllegalStateException {
  public SealedException(String message) {
    super(message);
  }
}
