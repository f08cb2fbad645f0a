package io.ordinal.api.registry;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.micronaut.transaction.TransactionOperations;
import io.ordinal.apimachinery.ApiException;
import io.ordinal.apimachinery.FieldError;
import io.ordinal.apimachinery.ObjectMetaValidation;
import io.ordinal.auth.Authorization;
import io.ordinal.request.RequestAttributes;
import io.ordinal.store.KubeJson;
import io.ordinal.store.StoreException;
import java.security.SecureRandom;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;

/**
 * The write path of every kind, once (upstream's generic registry store with rest.BeforeCreate and
 * BeforeUpdate): type and scope checks, generateName, the namespace's lifecycle, the strategy's
 * defaults, validation and admission, managedFields and server-side apply, resourceVersion
 * preconditions, the retry of unconditional updates and patches after a racing write, dry-run at
 * the storage boundary, and the mapping of storage errors to the API's answers. A write either is
 * stored whole or is refused with a Status.
 */
public final class GenericStore<T extends HasMetadata> {
  /**
   * An unconditional write (no resourceVersion) re-applies to the newer object after a conflict, as
   * the API server's update loop does; each attempt lets one racing writer through, so this bounds
   * only pathological contention.
   */
  static final int WRITE_ATTEMPTS = 200;
  /** Upstream retries a create whose generated name is taken (RetryGenerateName): 7 more names. */
  private static final int NAME_ATTEMPTS = 8;
  /** Upstream's SimpleNameGenerator: five characters of an alphabet without vowels or look-alikes. */
  private static final String NAME_ALPHABET = "bcdfghjklmnpqrstvwxz2456789";
  private static final int NAME_SUFFIX_LENGTH = 5;
  private static final int MAX_GENERATED_BASE = 63 - NAME_SUFFIX_LENGTH;
  private static final SecureRandom RANDOM = new SecureRandom();

  private final Strategy<T> strategy;
  private final Storage<T> storage;
  private final Resource<T> resource;
  private final TransactionOperations<Connection> tx;
  private final NamespaceLifecycle lifecycle;
  private final Authorization authorization;
  private final FieldOwnership<T> ownership;

  public GenericStore(Strategy<T> strategy, Storage<T> storage, TransactionOperations<Connection> tx,
      NamespaceLifecycle lifecycle, Authorization authorization) {
    this.strategy = strategy;
    this.storage = storage;
    this.resource = strategy.resource();
    this.tx = tx;
    this.lifecycle = lifecycle;
    this.authorization = authorization;
    this.ownership = new FieldOwnership<>(resource);
  }

  /** The result of an apply: 201 when it created the object. */
  public record Applied<T>(T object, boolean created) {}

  public Resource<T> resource() {
    return resource;
  }

  public T get(String namespace, String name) {
    return storage.get(namespace, name).orElseThrow(() -> notFound(name));
  }

  public Optional<T> find(String namespace, String name) {
    return storage.get(namespace, name);
  }

  // --- create

  public T create(String namespace, T object, WriteOptions options) {
    return create(namespace, object, options, false);
  }

  private T create(String namespace, T object, WriteOptions options, boolean applied) {
    checkTypeAndScope(namespace, object);
    ObjectMeta meta = object.getMetadata();
    boolean generated = (meta.getName() == null || meta.getName().isEmpty())
        && meta.getGenerateName() != null && !meta.getGenerateName().isEmpty();
    for (int attempt = 1; ; attempt++) {
      if (generated) {
        meta.setName(generateName(meta.getGenerateName()));
      }
      try {
        return createOnce(namespace, object, options, applied);
      } catch (ApiException e) {
        if (!generated || !"AlreadyExists".equals(e.status().getReason()) || attempt >= NAME_ATTEMPTS) {
          throw e;
        }
      }
    }
  }

  private T createOnce(String namespace, T object, WriteOptions options, boolean applied) {
    String name = object.getMetadata().getName();
    if (!strategy.allowCreate()) {
      throw ApiException.of(405, "MethodNotAllowed", "the server does not allow this method on the requested resource");
    }
    if (resource.namespaced()) {
      lifecycle.admitCreate(namespace, resource.group(), resource.plural(), name);
    }
    strategy.prepareForCreate(object);
    refuseInvalid(object, strategy.validate(object));
    strategy.admit(object, null, options);
    if (!applied) {
      ownership.recordUpdate(null, object, options.fieldManager(), strategy.subresource());
    }
    if (options.dryRun()) {
      if (storage.exists(namespace, name)) {
        throw alreadyExists(namespace, name);
      }
      return storage.asCreated(object);
    }
    return inTransaction(() -> {
      T stored = mapErrors(namespace, name, () -> storage.create(object));
      strategy.afterCreate(stored);
      return stored;
    });
  }

  // --- update

  /** PUT, PATCH or a subresource write: {@code update} makes the new object from the stored one. */
  public T update(String namespace, String name, Update<T> update, WriteOptions options) {
    return update(namespace, name, update, options, false);
  }

  private T update(String namespace, String name, Update<T> update, WriteOptions options, boolean applied) {
    for (int attempt = 1; ; attempt++) {
      T current = get(namespace, name);
      T updated = update.apply(KubeJson.copy(current));
      checkTypeAndScope(namespace, updated);
      String sentName = updated.getMetadata().getName();
      if (!name.equals(sentName)) {
        throw ApiException.badRequest("the name of the object (" + Objects.requireNonNullElse(sentName, "")
            + ") does not match the name on the URL (" + name + ")");
      }
      boolean pinned = update.pinned(current, updated);
      long expected;
      if (pinned) {
        expected = parseVersion(name, updated.getMetadata().getResourceVersion());
        if (expected != parseVersion(name, current.getMetadata().getResourceVersion())) {
          throw ApiException.modified(resource.qualified(), name);
        }
      } else {
        if (!strategy.allowUnconditionalUpdate()) {
          throw ApiException.invalid(resource.group(), resource.kind(), name, List.of(new FieldError("FieldValueInvalid",
              "metadata.resourceVersion", "Invalid value: 0x0: must be specified for an update")));
        }
        expected = parseVersion(name, current.getMetadata().getResourceVersion());
      }
      strategy.prepareForUpdate(updated, current);
      refuseInvalid(updated, strategy.validateUpdate(updated, current));
      strategy.admit(updated, current, options);
      if (!applied) {
        ownership.recordUpdate(current, updated, options.fieldManager(), strategy.subresource());
      }
      if (options.dryRun()) {
        return storage.asUpdated(updated, current);
      }
      T stored;
      try {
        stored = inTransaction(() -> {
          T written = mapErrors(namespace, name, () -> storage.update(updated, expected));
          strategy.afterUpdate(written, current);
          return written;
        });
      } catch (ApiException e) {
        if (!pinned && isConflict(e) && attempt < WRITE_ATTEMPTS) {
          backOff(attempt);
          continue;
        }
        throw e;
      }
      strategy.afterUpdateCommitted(stored, current);
      return stored;
    }
  }

  // --- server-side apply

  /**
   * PATCH with an apply patch: the applied configuration is merged into the stored object, or creates
   * it, and its fields become {@code options.fieldManager()}'s; 409 when another manager owns a field
   * it would change, unless forced. Merged again into a newer object after a racing write.
   */
  public Applied<T> apply(String namespace, String name, T config, WriteOptions options) {
    checkTypeAndScope(namespace, config);
    if (config.getMetadata().getName() == null) {
      config.getMetadata().setName(name);
    }
    if (!name.equals(config.getMetadata().getName())) {
      throw ApiException.badRequest("the name of the object (" + config.getMetadata().getName()
          + ") does not match the name on the URL (" + name + ")");
    }
    String pinnedVersion = config.getMetadata().getResourceVersion();
    boolean pinned = pinnedVersion != null && !pinnedVersion.isEmpty();
    ObjectNode applied = ownership.tracked(config);
    for (int attempt = 1; ; attempt++) {
      Optional<T> live = storage.get(namespace, name);
      try {
        if (live.isEmpty()) {
          if (pinned) {
            throw notFound(name);
          }
          requireCreatePermission(namespace, name, options);
          return new Applied<>(create(namespace, ownership.applied(null, applied, options), options, true), true);
        }
        T merged = ownership.applied(live.get(), applied, options);
        merged.getMetadata().setResourceVersion(pinned ? pinnedVersion : live.get().getMetadata().getResourceVersion());
        return new Applied<>(update(namespace, name, Update.replacing(merged), options, true), false);
      } catch (ApiException e) {
        // A write that raced this one; an apply conflict is the answer itself.
        boolean raced = (isConflict(e) && !FieldOwnership.isApplyConflict(e)) || "AlreadyExists".equals(e.status().getReason());
        if (pinned || !raced || attempt >= WRITE_ATTEMPTS) {
          throw e;
        }
        backOff(attempt);
      }
    }
  }

  // --- delete

  /** DELETE: preconditions checked, then deleted (or marked deleting); answers the object as it is now. */
  public T delete(String namespace, String name, Deletion options) {
    T current = get(namespace, name);
    options.check(current, resource.qualified());
    strategy.checkDelete(current);
    if (options.dryRun()) {
      return storage.asDeleted(current, options);
    }
    Supplier<T> delete = () -> {
      T gone = mapErrors(namespace, name, () -> storage.delete(current, options));
      strategy.afterDelete(gone);
      return gone;
    };
    T deleted = inTransaction(delete);
    strategy.afterDeleteCommitted(deleted);
    return deleted;
  }

  /** DELETE on the collection: each selected object as a DELETE of its own, preconditions included; those gone meanwhile are skipped. */
  public List<T> deleteCollection(List<T> selected, Deletion options) {
    List<T> deleted = new ArrayList<>();
    for (T object : selected) {
      try {
        deleted.add(delete(object.getMetadata().getNamespace(), object.getMetadata().getName(), options));
      } catch (ApiException e) {
        if (e.code() != 404) {
          throw e;
        }
      }
    }
    return deleted;
  }

  // --- shared checks

  /** The storage's writes and the strategy's after- hooks in one transaction, where the storage's writes are in the database alone. */
  private T inTransaction(Supplier<T> write) {
    return storage.transactional() ? tx.executeWrite(status -> write.get()) : write.get();
  }

  /**
   * An apply that creates the object needs the create verb, as upstream's patch handler checks it:
   * the request itself was authorized as a patch.
   */
  private void requireCreatePermission(String namespace, String name, WriteOptions options) {
    RequestAttributes create = new RequestAttributes(true, "create", "", resource.group(), resource.version(),
        resource.namespaced() ? namespace : "", resource.plural(), "", name);
    if (!authorization.allows(options.user(), create)) {
      throw ApiException.forbidden(Authorization.forbiddenMessage(options.user(), create), resource.group(),
          resource.plural(), name);
    }
  }

  /** The body's apiVersion and kind are this resource's (filled in when absent), its namespace the URL's. */
  private void checkTypeAndScope(String namespace, T object) {
    if (resource.namespaced()) {
      List<FieldError> errors = ObjectMetaValidation.validateNamespace(namespace);
      if (!errors.isEmpty()) {
        throw ApiException.invalid(resource.group(), resource.kind(), namespace, errors);
      }
    }
    if (object == null) {
      throw ApiException.badRequest("the request has no object");
    }
    if (object.getApiVersion() != null && !object.getApiVersion().isEmpty() && !object.getApiVersion().equals(resource.apiVersion())) {
      throw ApiException.badRequest("apiVersion " + object.getApiVersion() + " is not supported here; use " + resource.apiVersion());
    }
    if (object.getKind() != null && !object.getKind().isEmpty() && !object.getKind().equals(resource.kind())) {
      throw ApiException.badRequest("kind " + object.getKind() + " does not match the resource " + resource.kind());
    }
    object.setApiVersion(resource.apiVersion());
    setKind(object);
    if (object.getMetadata() == null) {
      object.setMetadata(new ObjectMeta());
    }
    ObjectMeta meta = object.getMetadata();
    if (!resource.namespaced()) {
      meta.setNamespace(null); // as upstream's BeforeCreate clears it on a cluster-scoped object
    } else if (meta.getNamespace() == null || meta.getNamespace().isEmpty()) {
      meta.setNamespace(namespace);
    } else if (!meta.getNamespace().equals(namespace)) {
      throw ApiException.badRequest("the namespace of the provided object does not match the namespace sent on the request");
    }
  }

  /** fabric8's types take their kind through a setter of their own, not HasMetadata's. */
  private void setKind(T object) {
    try {
      object.getClass().getMethod("setKind", String.class).invoke(object, resource.kind());
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(resource.kind() + " has no setKind", e);
    }
  }

  private void refuseInvalid(T object, List<FieldError> errors) {
    if (!errors.isEmpty()) {
      throw ApiException.invalid(resource.group(), resource.kind(),
          Objects.requireNonNullElse(object.getMetadata().getName(), ""), errors);
    }
  }

  private static String generateName(String base) {
    StringBuilder name = new StringBuilder(base.length() > MAX_GENERATED_BASE ? base.substring(0, MAX_GENERATED_BASE) : base);
    for (int i = 0; i < NAME_SUFFIX_LENGTH; i++) {
      name.append(NAME_ALPHABET.charAt(RANDOM.nextInt(NAME_ALPHABET.length())));
    }
    return name.toString();
  }

  private long parseVersion(String name, String resourceVersion) {
    try {
      return Long.parseLong(resourceVersion);
    } catch (NumberFormatException e) {
      throw ApiException.invalid(resource.group(), resource.kind(), name, List.of(new FieldError(
          "FieldValueInvalid", "metadata.resourceVersion", "Invalid value: \"" + resourceVersion + "\": must be an integer")));
    }
  }

  private T mapErrors(String namespace, String name, Supplier<T> write) {
    try {
      return write.get();
    } catch (StoreException e) {
      throw switch (e.reason()) {
        case NOT_FOUND -> notFound(name);
        case ALREADY_EXISTS -> alreadyExists(namespace, name);
        case CONFLICT -> ApiException.modified(resource.qualified(), name);
      };
    }
  }

  private ApiException notFound(String name) {
    return ApiException.notFound(resource.qualified(), name);
  }

  /** 409 for a name in use; upstream says so too while the holder is being deleted. */
  private ApiException alreadyExists(String namespace, String name) {
    boolean deleting = storage.deleting(namespace, name);
    return ApiException.of(409, "AlreadyExists",
        (deleting ? "object is being deleted: " : "") + resource.qualified() + " \"" + name + "\" already exists");
  }

  static boolean isConflict(ApiException e) {
    return e.code() == 409 && "Conflict".equals(e.status().getReason());
  }

  /** A short random pause, so that writers that just collided do not collide again in lockstep. */
  public static void backOff(int attempt) {
    try {
      Thread.sleep(ThreadLocalRandom.current().nextInt(1, 2 + Math.min(attempt, 20)));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw ApiException.of(503, "ServiceUnavailable", "interrupted while retrying a conflicting write");
    }
  }
}
