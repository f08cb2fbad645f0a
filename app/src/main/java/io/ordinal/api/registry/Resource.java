package io.ordinal.api.registry;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.ordinal.api.discovery.ApiResources;

/**
 * A kind as the store writes it: its description (the one {@link ApiResources} gives discovery, the
 * OpenAPI documents and the routes) and the Java type of its objects.
 */
public record Resource<T extends HasMetadata>(ApiResources.Resource description, Class<T> type) {

  public String group() {
    return description.group();
  }

  public String version() {
    return description.version();
  }

  public String kind() {
    return description.kind();
  }

  public String plural() {
    return description.plural();
  }

  public boolean namespaced() {
    return description.namespaced();
  }

  /** "apps/v1", or "v1" for the core group. */
  public String apiVersion() {
    return description.groupVersion();
  }

  /** As upstream names the resource in messages: "statefulsets.apps", "pods". */
  public String qualified() {
    return group().isEmpty() ? plural() : plural() + "." + group();
  }
}
