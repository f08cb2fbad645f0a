package io.ordinal.api.core;

import io.fabric8.kubernetes.api.model.Namespace;
import io.ordinal.api.discovery.ApiResources;
import io.ordinal.api.registry.Resource;
import io.ordinal.api.registry.Strategy;
import io.ordinal.apimachinery.ApiException;
import io.ordinal.apimachinery.FieldError;
import io.ordinal.store.NamespaceContents;
import io.ordinal.store.NamespaceStore;
import java.util.List;
import java.util.function.Consumer;

/**
 * Namespaces (upstream's pkg/registry/core/namespace): their labels (Pod Security levels first of
 * all) and annotations are what a user writes. Deleting one deletes all it holds, as upstream:
 * Terminating at once, nothing new may be created in it, and the namespace controller
 * (the namespace deleter this strategy is given) deletes its contents, then it.
 */
public final class NamespaceStrategy implements Strategy<Namespace> {
  public static final Resource<Namespace> RESOURCE = new Resource<>(ApiResources.NAMESPACES, Namespace.class);

  private final NamespaceStore store;
  private final NamespaceContents contents;
  /** Starts the deletion of a namespace's contents, then of the namespace (the namespace controller). */
  private final Consumer<String> deleter;

  public NamespaceStrategy(NamespaceStore store, NamespaceContents contents, Consumer<String> deleter) {
    this.store = store;
    this.contents = contents;
    this.deleter = deleter;
  }

  @Override
  public Resource<Namespace> resource() {
    return RESOURCE;
  }

  @Override
  public List<FieldError> validate(Namespace namespace) {
    return NamespaceValidation.validate(namespace);
  }

  @Override
  public List<FieldError> validateUpdate(Namespace namespace, Namespace old) {
    return NamespaceValidation.validate(namespace);
  }

  /**
   * 403 for default, 409 when it is Terminating already (upstream's words), 404 for a name that was
   * never created and holds nothing (nothing to delete, and no uid by which kubectl could see it go).
   */
  @Override
  public void checkDelete(Namespace current) {
    String name = current.getMetadata().getName();
    if (name.equals("default")) {
      throw ApiException.forbidden("namespaces \"default\" is forbidden: this namespace may not be deleted", "",
          RESOURCE.plural(), name);
    }
    if (current.getMetadata().getDeletionTimestamp() != null) {
      throw ApiException.of(409, "Conflict", "Operation cannot be fulfilled on namespaces \"" + name + "\": The system is"
          + " ensuring all content is removed from this namespace.  Upon completion, this namespace will automatically"
          + " be purged by the system.");
    }
    if (store.find(name).isEmpty() && contents.remaining(name).isEmpty()) {
      throw ApiException.notFound(RESOURCE.plural(), name);
    }
  }

  /** The namespace controller's work: an empty namespace is gone when the DELETE returns. */
  @Override
  public void afterDeleteCommitted(Namespace deleted) {
    deleter.accept(deleted.getMetadata().getName());
  }
}
