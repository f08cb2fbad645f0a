package io.ordinal.api;

import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.ordinal.api.statefulset.FieldError;
import io.ordinal.api.statefulset.StatefulSetValidation;
import io.ordinal.store.KubeJson;
import io.ordinal.store.NamespaceContents;
import io.ordinal.store.NamespaceStore;
import io.ordinal.store.StatefulSetStore;
import jakarta.inject.Singleton;
import java.util.List;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.function.UnaryOperator;

/**
 * Namespaces: implicit for every valid name, stored once created or labelled, so that their labels
 * (Pod Security levels first of all) persist. Only labels and annotations can be written. Deleting one
 * deletes all it holds, as upstream.
 */
@Singleton
public class NamespaceService {
  private static final String RESOURCE = "namespaces";
  private static final int WRITE_ATTEMPTS = 20;

  private final NamespaceStore store;
  private final StatefulSetStore sets;
  private final NamespaceContents contents;
  private final NamespaceDeleter deleter;

  public NamespaceService(NamespaceStore store, StatefulSetStore sets, NamespaceContents contents, NamespaceDeleter deleter) {
    this.store = store;
    this.sets = sets;
    this.contents = contents;
    this.deleter = deleter;
  }

  /** default, those created through the API, and those that hold something. */
  public List<Namespace> list() {
    SortedSet<String> names = new TreeSet<>(List.of("default"));
    names.addAll(sets.namespacesInUse());
    store.listStored().forEach(n -> names.add(n.getMetadata().getName()));
    return names.stream().map(store::get).toList();
  }

  public Namespace get(String name) {
    if (!StatefulSetValidation.validateNamespace(name).isEmpty()) {
      throw ApiException.notFound(RESOURCE, name);
    }
    return store.get(name);
  }

  /** 409 when it exists already: stored, default, or holding something. */
  public Namespace create(Namespace namespace, boolean dryRun) {
    if (namespace.getMetadata() != null && namespace.getMetadata().getName() == null
        && namespace.getMetadata().getGenerateName() != null && !namespace.getMetadata().getGenerateName().isEmpty()) {
      namespace.getMetadata().setName(namespace.getMetadata().getGenerateName() + Long.toString(System.nanoTime() % 100_000, 36));
    }
    checkKind(namespace);
    validate(namespace);
    String name = namespace.getMetadata().getName();
    Optional<Namespace> stored = store.find(name);
    if (stored.isPresent() && stored.get().getMetadata().getDeletionTimestamp() != null) {
      throw ApiException.of(409, "AlreadyExists", "object is being deleted: " + RESOURCE + " \"" + name + "\" already exists");
    }
    boolean exists = name.equals("default") || sets.namespacesInUse().contains(name) || stored.isPresent();
    if (exists || (!dryRun && !store.create(namespace))) {
      throw ApiException.of(409, "AlreadyExists", RESOURCE + " \"" + name + "\" already exists");
    }
    return dryRun ? namespace : store.get(name);
  }

  /** PATCH (and PUT through it): only labels and annotations change; an implicit namespace gets its row. */
  public Namespace update(String name, boolean dryRun, UnaryOperator<Namespace> change) {
    Namespace current = get(name);
    for (int attempt = 1; ; attempt++) {
      long version = Long.parseLong(current.getMetadata().getResourceVersion());
      Namespace changed = change.apply(current);
      checkKind(changed);
      ObjectMeta meta = changed.getMetadata();
      if (!name.equals(meta.getName())) {
        throw ApiException.badRequest("the name of the object (" + meta.getName() + ") does not match the name on the URL (" + name + ")");
      }
      String sentVersion = meta.getResourceVersion();
      if (sentVersion != null && !sentVersion.isEmpty() && !sentVersion.equals(current.getMetadata().getResourceVersion())) {
        throw ApiException.modified(RESOURCE, name);
      }
      validate(changed);
      if (dryRun) {
        return changed;
      }
      if (store.update(changed, version)) {
        return store.get(name);
      }
      if (attempt >= WRITE_ATTEMPTS) {
        throw ApiException.of(409, "Conflict", "namespaces \"" + name + "\": too many concurrent writes");
      }
      current = store.get(name);
    }
  }

  /**
   * Deletes a namespace as upstream does: it is Terminating at once (deletionTimestamp set,
   * status.phase Terminating, spec.finalizers still ["kubernetes"]), nothing new may be created in it
   * ({@link NamespaceLifecycle}), and the namespace controller ({@link NamespaceDeleter}) deletes all it
   * holds, then the namespace; an empty one is gone when this returns. Answers the namespace as it was
   * marked. 403 for default, 409 when it is Terminating already (upstream's words), 404 for a name that
   * was never created and holds nothing.
   */
  public Namespace delete(String name, boolean dryRun) {
    get(name); // 404 for a name that is not one
    if (name.equals("default")) {
      throw ApiException.forbidden("namespaces \"default\" is forbidden: this namespace may not be deleted", "", RESOURCE, name);
    }
    Optional<Namespace> stored = store.find(name);
    if (stored.isPresent() && stored.get().getMetadata().getDeletionTimestamp() != null) {
      throw ApiException.of(409, "Conflict", "Operation cannot be fulfilled on namespaces \"" + name + "\": The system is"
          + " ensuring all content is removed from this namespace.  Upon completion, this namespace will automatically"
          + " be purged by the system.");
    }
    if (stored.isEmpty() && contents.remaining(name).isEmpty()) {
      // An implicit namespace with nothing in it has nothing to delete (and no uid by which kubectl could see it go).
      throw ApiException.notFound(RESOURCE, name);
    }
    if (dryRun) {
      Namespace terminating = stored.orElseGet(() -> NamespaceStore.implicit(name));
      terminating.getMetadata().setDeletionTimestamp(KubeJson.timestamp(Instant.now()));
      terminating.getStatus().setPhase("Terminating");
      return terminating;
    }
    Namespace terminating = store.markTerminating(name);
    deleter.delete(name);
    return terminating;
  }

  private static void checkKind(Namespace namespace) {
    if (namespace.getApiVersion() != null && !namespace.getApiVersion().equals("v1")) {
      throw ApiException.badRequest("apiVersion " + namespace.getApiVersion() + " is not supported here; use v1");
    }
    if (namespace.getKind() != null && !namespace.getKind().equals("Namespace")) {
      throw ApiException.badRequest("kind " + namespace.getKind() + " does not match the resource Namespace");
    }
    if (namespace.getMetadata() == null) {
      namespace.setMetadata(new ObjectMeta());
    }
  }

  private static void validate(Namespace namespace) {
    List<FieldError> errors = StatefulSetValidation.validateNamespaceObject(namespace);
    if (!errors.isEmpty()) {
      throw ApiException.invalid("", "Namespace", Objects.requireNonNullElse(namespace.getMetadata().getName(), ""), errors);
    }
  }
}
