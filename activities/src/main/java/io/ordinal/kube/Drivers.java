package io.ordinal.kube;

import java.util.Set;

/** The drivers a service offers and the one a set gets without an {@code ordinal.io/driver} annotation. */
public record Drivers(Set<String> available, String defaultDriver) {
  public static final String LOCAL = "local";
  public static final String SIM = "sim";

  /** The driver that runs {@code annotation}'s set (the annotation's value, else the default). */
  public String effective(String annotation) {
    return annotation == null ? defaultDriver : annotation;
  }
}
