package io.ordinal.api.registry;

import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.ordinal.apimachinery.ApiException;
import io.ordinal.store.NamespaceStore;
import jakarta.inject.Singleton;

/**
 * Upstream's NamespaceLifecycle admission, for what a user can create in a namespace (sets, roles,
 * role bindings): nothing new in a namespace that is being deleted, so that its deletion finishes and
 * nothing of it outlives it. Updates and deletions go on as usual, as upstream.
 */
@Singleton
public class NamespaceLifecycle {
  private final NamespaceStore namespaces;

  public NamespaceLifecycle(NamespaceStore namespaces) {
    this.namespaces = namespaces;
  }

  /**
   * 403 Forbidden, in upstream's words and with its cause, when {@code namespace} is Terminating.
   *
   * @param resource as in a Status's details, e.g. {@code statefulsets}
   */
  public void admitCreate(String namespace, String group, String resource, String name) {
    if (!namespaces.terminating(namespace)) {
      return;
    }
    String qualified = group.isEmpty() ? resource : resource + "." + group;
    String named = name == null ? "" : name;
    throw new ApiException(new StatusBuilder().withApiVersion("v1").withKind("Status").withNewMetadata().endMetadata()
        .withStatus("Failure").withCode(403).withReason("Forbidden")
        .withMessage(qualified + " \"" + named + "\" is forbidden: unable to create new content in namespace "
            + namespace + " because it is being terminated")
        .withNewDetails().withName(named.isEmpty() ? null : named).withGroup(group.isEmpty() ? null : group)
          .withKind(resource)
          .addNewCause().withReason("NamespaceTerminating").withMessage("namespace " + namespace + " is being terminated")
            .withField("metadata.namespace").endCause()
        .endDetails().build());
  }
}
