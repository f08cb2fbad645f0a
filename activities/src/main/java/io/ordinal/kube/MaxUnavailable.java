package io.ordinal.kube;

import io.fabric8.kubernetes.api.model.IntOrString;

/** {@code rollingUpdate.maxUnavailable} as a pod count: an integer, or a percent of replicas rounded up; default 1. */
public final class MaxUnavailable {
  private MaxUnavailable() {}

  public static int resolve(IntOrString value, int replicas) {
    if (value == null) {
      return 1;
    }
    if (value.getIntVal() != null) {
      return Math.max(1, value.getIntVal());
    }
    String text = value.getStrVal().trim();
    int percent = Integer.parseInt(text.substring(0, text.length() - 1));
    return Math.max(1, (int) Math.ceil(percent * replicas / 100.0));
  }
}
