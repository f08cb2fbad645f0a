package io.ordinal.api.registry;

import io.fabric8.kubernetes.api.model.HasMetadata;

/**
 * A kind as the API serves it: group, version, kind, plural resource name, scope, and the Java type
 * of its objects.
 */
public record Resource<T extends HasMetadata>(String group, String version, String kind, String plural,
    boolean namespaced, Class<T> type) {

  /** "apps/v1", or "v1" for the core group. */
  public String apiVersion() {
    return group.isEmpty() ? version : group + "/" + version;
  }

  /** As upstream names the resource in messages: "statefulsets.apps", "pods". */
  public String qualified() {
    return group.isEmpty() ? plural : plural + "." + group;
  }
}
