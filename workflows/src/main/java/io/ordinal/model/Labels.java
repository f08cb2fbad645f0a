package io.ordinal.model;

/** Well-known labels and annotations, upstream's names where upstream has one. */
public final class Labels {
  public static final String POD_NAME = "statefulset.kubernetes.io/pod-name";
  public static final String REVISION_HASH = "controller-revision-hash";
  public static final String POD_INDEX = "apps.kubernetes.io/pod-index";

  /** Chooses the driver that runs a set's pods ({@code sim}, later {@code local}, {@code kubernetes}). */
  public static final String DRIVER_ANNOTATION = "ordinal.io/driver";

  private Labels() {}
}
