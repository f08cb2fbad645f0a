package io.ordinal.driver;

/** Where drivers report pod changes, so that the set's workflow reacts at once instead of polling. */
public interface PodEvents {
  void podChanged(String namespace, String setName, String podName);
}
