package io.ordinal.api;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetStatus;
import io.fabric8.kubernetes.api.model.autoscaling.v1.Scale;
import io.fabric8.kubernetes.api.model.autoscaling.v1.ScaleBuilder;
import io.micronaut.transaction.TransactionOperations;
import io.ordinal.api.statefulset.FieldError;
import io.ordinal.api.statefulset.NodePlacement;
import io.ordinal.api.statefulset.StatefulSetDefaults;
import io.ordinal.api.statefulset.StatefulSetValidation;
import io.ordinal.driver.DriverRegistry;
import io.ordinal.podsecurity.PodSecurity;
import io.ordinal.podsecurity.PodSecurityAdmission;
import io.ordinal.kube.LabelSelectors;
import io.ordinal.kube.RolloutControls;
import io.ordinal.model.SetKey;
import io.ordinal.store.KubeJson;
import io.ordinal.store.RevisionStore;
import io.ordinal.store.StatefulSetStore;
import io.ordinal.store.StoreException;
import io.ordinal.temporal.SetSignals;
import jakarta.inject.Singleton;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * The StatefulSet resource: defaulting, validation, optimistic concurrency, then a signal to the
 * set's controller workflow. A write either is stored whole or is refused with a Status.
 */
@Singleton
public class StatefulSetService {
  static final String GROUP = "apps";
  static final String KIND = "StatefulSet";
  static final String RESOURCE = "statefulsets.apps";
  /**
   * An unconditional write (no resourceVersion) re-applies to the newer object after a conflict, as
   * the API server's optimistic update loop does; each attempt lets one racing writer through, so
   * this bounds only pathological contention.
   */
  private static final int WRITE_ATTEMPTS = 200;

  private final StatefulSetStore store;
  private final SetSignals signals;
  private final DriverRegistry drivers;
  private final RevisionStore revisions;

  private final PodSecurityAdmission podSecurity;
  private final NodePlacement placement;
  private final NamespaceLifecycle lifecycle;
  /** A spec change and the news of it for its controller (the outbox) commit together. */
  private final TransactionOperations<Connection> tx;

  public StatefulSetService(StatefulSetStore store, SetSignals signals, DriverRegistry drivers, RevisionStore revisions,
      PodSecurityAdmission podSecurity, TransactionOperations<Connection> tx, NodePlacement placement,
      NamespaceLifecycle lifecycle) {
    this.lifecycle = lifecycle;
    this.podSecurity = podSecurity;
    this.placement = placement;
    this.tx = tx;
    this.store = store;
    this.revisions = revisions;
    this.signals = signals;
    this.drivers = drivers;
  }

  public List<StatefulSet> list(String namespace) {
    return store.listVisible(namespace);
  }

  public StatefulSet get(String namespace, String name) {
    return store.getVisible(namespace, name).orElseThrow(() -> ApiException.notFound(RESOURCE, name));
  }

  public StatefulSet create(String namespace, StatefulSet set, WriteOptions options) {
    return create(namespace, set, options, updatedBy(options, null));
  }

  private StatefulSet create(String namespace, StatefulSet set, WriteOptions options, Ownership ownership) {
    checkTypeAndNamespace(namespace, set);
    ObjectMeta meta = set.getMetadata();
    if (meta.getName() == null && meta.getGenerateName() != null && !meta.getGenerateName().isEmpty()) {
      meta.setName(meta.getGenerateName() + Long.toString(System.nanoTime() % 100_000, 36));
    }
    lifecycle.admitCreate(namespace, GROUP, "statefulsets", meta.getName());
    StatefulSetDefaults.apply(set);
    List<FieldError> errors = new ArrayList<>(StatefulSetValidation.validateCreate(set, drivers.policy()));
    errors.addAll(placement.place(set, null));
    if (!errors.isEmpty()) {
      throw ApiException.invalid(GROUP, KIND, Objects.requireNonNullElse(meta.getName(), ""), errors);
    }
    admitPodTemplate(set);
    ownership.record(null, set);
    if (options.dryRun()) {
      if (store.get(namespace, meta.getName()).isPresent()) {
        throw ApiException.of(409, "AlreadyExists", store.alreadyExists(namespace, meta.getName()).getMessage());
      }
      return StatefulSetStore.asCreated(set);
    }
    return tx.executeWrite(status -> {
      StatefulSet stored = mapStoreErrors(meta.getName(), () -> store.create(set));
      signals.queueSpecChange(key(stored), stored.getMetadata().getGeneration());
      return stored;
    });
  }

  /** PUT: replaces metadata and spec; status is ignored, as on the main resource upstream. */
  public StatefulSet replace(String namespace, String name, StatefulSet set, WriteOptions options) {
    return replace(namespace, name, set, options, updatedBy(options, null));
  }

  private StatefulSet replace(String namespace, String name, StatefulSet set, WriteOptions options, Ownership ownership) {
    checkTypeAndNamespace(namespace, set);
    checkName(name, set);
    // Without a resourceVersion the write is unconditional: a concurrent write (such as a status
    // update) is not a conflict for it, so it is retried against the newer version.
    String sent = set.getMetadata().getResourceVersion();
    boolean unconditional = sent == null || sent.isEmpty();
    for (int attempt = 1; ; attempt++) {
      StatefulSet old = get(namespace, name);
      if (old.getMetadata().getDeletionTimestamp() != null) {
        throw ApiException.of(409, "Conflict", "statefulsets.apps \"" + name + "\" is being deleted");
      }
      long expected = unconditional ? Long.parseLong(old.getMetadata().getResourceVersion()) : parseVersion(name, sent);
      StatefulSetDefaults.apply(set);
      List<FieldError> errors = new ArrayList<>(StatefulSetValidation.validateUpdate(set, old, drivers.policy()));
      errors.addAll(placement.place(set, old));
      if (!errors.isEmpty()) {
        throw ApiException.invalid(GROUP, KIND, name, errors);
      }
      // As upstream exempts updates that leave the pod spec alone: scaling or labelling a set is not
      // refused because its namespace became stricter (its next pods are, by the controller).
      if (!Objects.equals(set.getSpec().getTemplate(), old.getSpec().getTemplate())) {
        admitPodTemplate(set);
      }
      ownership.record(old, set);
      if (options.dryRun()) {
        if (!unconditional && expected != Long.parseLong(old.getMetadata().getResourceVersion())) {
          throw ApiException.of(409, "Conflict", StatefulSetStore.conflictMessage(name));
        }
        return StatefulSetStore.asUpdated(set, old);
      }
      StatefulSet stored;
      try {
        stored = tx.executeWrite(status -> {
          StatefulSet written = mapStoreErrors(name, () -> store.update(set, expected));
          if (!Objects.equals(written.getMetadata().getGeneration(), old.getMetadata().getGeneration())) {
            signals.queueSpecChange(key(written), written.getMetadata().getGeneration());
          }
          return written;
        });
      } catch (ApiException e) {
        if (unconditional && isConflict(e) && attempt < WRITE_ATTEMPTS) {
          backOff(attempt);
          continue;
        }
        throw e;
      }
      if (RolloutControls.paused(stored) && !RolloutControls.paused(old)) {
        signals.pauseRollout(key(stored)); // returns once the running rollout touches no further pod
      }
      return stored;
    }
  }

  /**
   * PATCH: applied to the stored object server-side. Unless the patch pins a resourceVersion of its
   * own, a concurrent write (for example a status update) makes it re-apply to the newer object, as
   * the Kubernetes API server does, instead of failing with 409.
   */
  public StatefulSet patch(String namespace, String name, WriteOptions options, UnaryOperator<StatefulSet> patch) {
    return patchRetryingOnConflict(() -> get(namespace, name), patch,
        set -> set.getMetadata().getResourceVersion(), patched -> replace(namespace, name, patched, options));
  }

  /**
   * PATCH with an apply patch (server-side apply): the applied configuration is merged into the
   * stored set, or creates it, and its fields become {@code options.fieldManager()}'s; 409 when another
   * manager owns a field it would change, unless forced. Re-applied to a newer set after a racing
   * write, like any patch. Returns the set and whether it was created.
   */
  public Applied apply(String namespace, String name, StatefulSet config, WriteOptions options) {
    checkTypeAndNamespace(namespace, config);
    checkName(name, config);
    String pinnedVersion = config.getMetadata().getResourceVersion();
    boolean pinned = pinnedVersion != null && !pinnedVersion.isEmpty();
    ObjectNode applied = FieldOwnership.tracked(config);
    for (int attempt = 1; ; attempt++) {
      Optional<StatefulSet> live = store.getVisible(namespace, name);
      try {
        if (live.isEmpty()) {
          if (pinned) {
            throw ApiException.notFound(RESOURCE, name);
          }
          StatefulSet created = FieldOwnership.applied(null, applied, options);
          return new Applied(create(namespace, created, options, Ownership.RECORDED), true);
        }
        if (live.get().getMetadata().getDeletionTimestamp() != null) {
          throw ApiException.of(409, "Conflict", "statefulsets.apps \"" + name + "\" is being deleted");
        }
        StatefulSet merged = FieldOwnership.applied(live.get(), applied, options);
        merged.getMetadata().setResourceVersion(pinned ? pinnedVersion : live.get().getMetadata().getResourceVersion());
        return new Applied(replace(namespace, name, merged, options, Ownership.RECORDED), false);
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

  /** The result of an apply: 201 when it created the set. */
  public record Applied(StatefulSet set, boolean created) {}

  /** How a write's {@code metadata.managedFields} come about. */
  @FunctionalInterface
  private interface Ownership {
    /** Sets the managedFields of {@code updated}, the defaulted object about to be stored over {@code old} (null: created). */
    void record(StatefulSet old, StatefulSet updated);

    /** An apply computed them already, from the set it merged into. */
    Ownership RECORDED = (old, updated) -> { };
  }

  /** An Update by the write's field manager: it owns what it changed. */
  private static Ownership updatedBy(WriteOptions options, String subresource) {
    return (old, updated) -> FieldOwnership.recordUpdate(old, updated, options.fieldManager(), subresource);
  }

  public Scale patchScale(String namespace, String name, UnaryOperator<Scale> patch, WriteOptions options) {
    return patchRetryingOnConflict(() -> scale(namespace, name), patch,
        scale -> scale.getMetadata() == null ? null : scale.getMetadata().getResourceVersion(),
        patched -> replaceScale(namespace, name, patched, options));
  }

  private static <T> T patchRetryingOnConflict(
      Supplier<T> read, UnaryOperator<T> patch, Function<T, String> version, UnaryOperator<T> write) {
    for (int attempt = 1; ; attempt++) {
      T current = read.get();
      T patched = patch.apply(current);
      boolean pinned = !Objects.equals(version.apply(current), version.apply(patched));
      try {
        return write.apply(patched);
      } catch (ApiException e) {
        if (pinned || !isConflict(e) || attempt >= WRITE_ATTEMPTS) {
          throw e;
        }
        backOff(attempt);
      }
    }
  }

  /** Deletes a revision and wakes its set, whose controller makes its update revision again if needed. */
  public void deleteRevision(String namespace, String name) {
    revisions.find(namespace, name).ifPresent(row -> tx.executeWrite(status -> {
      revisions.delete(namespace, name);
      store.get(namespace, row.setName()).ifPresent(set -> signals.queueSpecChange(key(set), set.getMetadata().getGeneration()));
      return null;
    }));
  }

  /** DELETE on the collection: every set the selectors let through, each as a DELETE of its own. */
  public List<StatefulSet> deleteAll(String namespace, Predicate<HasMetadata> selected,
      Deletion options) {
    List<StatefulSet> deleted = new ArrayList<>();
    for (StatefulSet set : list(namespace)) {
      if (selected.test(set)) {
        try {
          deleted.add(delete(set.getMetadata().getNamespace(), set.getMetadata().getName(), options));
        } catch (ApiException e) {
          if (e.code() != 404) {
            throw e;
          }
        }
      }
    }
    return deleted;
  }

  /** A short random pause, so that writers that just collided do not collide again in lockstep. */
  /** A short random pause before retrying a write that raced another. */
  static void backOff(int attempt) {
    try {
      Thread.sleep(ThreadLocalRandom.current().nextInt(1, 2 + Math.min(attempt, 20)));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw ApiException.of(503, "ServiceUnavailable", "interrupted while retrying a conflicting write");
    }
  }

  /**
   * PUT on /status: only the status changes (metadata and spec of the body are ignored, as upstream).
   * The controller owns the status and publishes its own at its next step, as upstream's does.
   */
  public StatefulSet replaceStatus(String namespace, String name, StatefulSet set, boolean dryRun) {
    checkTypeAndNamespace(namespace, set);
    for (int attempt = 1; ; attempt++) {
      StatefulSet old = get(namespace, name);
      String sent = set.getMetadata().getResourceVersion();
      if (sent != null && !sent.isEmpty() && !sent.equals(old.getMetadata().getResourceVersion())) {
        throw ApiException.of(409, "Conflict", StatefulSetStore.conflictMessage(name));
      }
      StatefulSet updated = KubeJson.copy(old, StatefulSet.class);
      updated.setStatus(set.getStatus() == null ? new StatefulSetStatus() : set.getStatus());
      if (dryRun) {
        return updated;
      }
      if (store.writeStatusIfVersion(namespace, name, updated.getStatus(),
          Long.parseLong(old.getMetadata().getResourceVersion()))) {
        return get(namespace, name);
      }
      if ((sent != null && !sent.isEmpty()) || attempt >= WRITE_ATTEMPTS) {
        throw ApiException.of(409, "Conflict", StatefulSetStore.conflictMessage(name));
      }
      backOff(attempt);
    }
  }

  public StatefulSet patchStatus(String namespace, String name, boolean dryRun, UnaryOperator<StatefulSet> patch) {
    return patchRetryingOnConflict(() -> get(namespace, name), patch,
        set -> set.getMetadata().getResourceVersion(), patched -> replaceStatus(namespace, name, patched, dryRun));
  }

  public StatefulSet delete(String namespace, String name, Deletion options) {
    StatefulSet current = get(namespace, name);
    options.check(current, RESOURCE);
    if (options.dryRun()) {
      return current;
    }
    return tx.executeWrite(status -> {
      StatefulSet deleting = mapStoreErrors(name, () -> store.markDeleting(namespace, name, options.propagation()));
      signals.queueSpecChange(key(deleting), deleting.getMetadata().getGeneration());
      return deleting;
    });
  }

  public Scale scale(String namespace, String name) {
    return scaleOf(get(namespace, name));
  }

  private static Scale scaleOf(StatefulSet set) {
    String namespace = set.getMetadata().getNamespace();
    String name = set.getMetadata().getName();
    var selector = set.getSpec().getSelector();
    return new ScaleBuilder()
        .withApiVersion("autoscaling/v1").withKind("Scale")
        .withNewMetadata()
          .withName(name).withNamespace(namespace).withUid(set.getMetadata().getUid())
          .withResourceVersion(set.getMetadata().getResourceVersion())
          .withCreationTimestamp(set.getMetadata().getCreationTimestamp())
        .endMetadata()
        .withNewSpec().withReplicas(set.getSpec().getReplicas()).endSpec()
        .withNewStatus()
          .withReplicas(Objects.requireNonNullElse(set.getStatus().getReplicas(), 0))
          .withSelector(selector == null ? null : LabelSelectors.format(selector))
        .endStatus()
        .build();
  }

  /** PUT on /scale: only spec.replicas changes; resourceVersion is checked like on the set. */
  public Scale replaceScale(String namespace, String name, Scale scale, WriteOptions options) {
    StatefulSet set = get(namespace, name);
    if (scale.getMetadata() != null && scale.getMetadata().getName() != null && !name.equals(scale.getMetadata().getName())) {
      throw ApiException.badRequest("the name of the object (" + scale.getMetadata().getName()
          + ") does not match the name on the URL (" + name + ")");
    }
    Integer replicas = scale.getSpec() == null ? null : scale.getSpec().getReplicas();
    List<FieldError> errors = new ArrayList<>();
    if (replicas == null) {
      errors.add(new FieldError("FieldValueRequired", "spec.replicas", "Required value"));
    } else if (replicas < 0) {
      errors.add(new FieldError("FieldValueInvalid", "spec.replicas",
          "Invalid value: " + replicas + ": must be greater than or equal to 0"));
    }
    if (!errors.isEmpty()) {
      throw ApiException.invalid("autoscaling", "Scale", name, errors);
    }
    StatefulSet changed = KubeJson.copy(set, StatefulSet.class);
    changed.getSpec().setReplicas(replicas);
    changed.getMetadata().setResourceVersion(scale.getMetadata() == null ? null : scale.getMetadata().getResourceVersion());
    StatefulSet written = replace(namespace, name, changed, options, updatedBy(options, "scale"));
    return options.dryRun() ? scaleOf(written) : scale(namespace, name);
  }

  /**
   * Pod Security admission of the pod template: 403 when it violates the level the namespace
   * enforces (upstream only warns for workloads and refuses their pods later; refusing the set
   * itself says so at once, where the user is), Warning headers for the warn level.
   */
  private void admitPodTemplate(StatefulSet set) {
    var template = set.getSpec().getTemplate();
    var decision = podSecurity.evaluate(set.getMetadata().getNamespace(), template.getMetadata(), template.getSpec(),
        "spec.template.spec");
    if (!decision.allowed()) {
      throw ApiException.forbidden(RESOURCE + " \"" + set.getMetadata().getName() + "\" is forbidden: violates "
          + PodSecurity.describe(decision.enforce(), decision.forbidden()), GROUP, "statefulsets", set.getMetadata().getName());
    }
    if (!decision.warnings().isEmpty()) {
      KubeCodec.warn("would violate " + PodSecurity.describe(decision.warn(), decision.warnings()));
    }
  }

  private void checkTypeAndNamespace(String namespace, StatefulSet set) {
    List<FieldError> nsErrors = StatefulSetValidation.validateNamespace(namespace);
    if (!nsErrors.isEmpty()) {
      throw ApiException.invalid(GROUP, KIND, namespace, nsErrors);
    }
    if (set.getApiVersion() != null && !set.getApiVersion().equals("apps/v1")) {
      throw ApiException.badRequest("apiVersion " + set.getApiVersion() + " is not supported here; use apps/v1");
    }
    if (set.getKind() != null && !set.getKind().equals(KIND)) {
      throw ApiException.badRequest("kind " + set.getKind() + " does not match the resource StatefulSet");
    }
    set.setApiVersion("apps/v1");
    set.setKind(KIND);
    if (set.getMetadata() == null) {
      set.setMetadata(new ObjectMeta());
    }
    if (set.getMetadata().getNamespace() == null || set.getMetadata().getNamespace().isEmpty()) {
      set.getMetadata().setNamespace(namespace);
    } else if (!set.getMetadata().getNamespace().equals(namespace)) {
      throw ApiException.badRequest("the namespace of the provided object does not match the namespace sent on the request");
    }
  }

  /** The object names itself as the URL does, or takes the URL's name. */
  private static void checkName(String name, StatefulSet set) {
    if (set.getMetadata().getName() == null) {
      set.getMetadata().setName(name);
    }
    if (!name.equals(set.getMetadata().getName())) {
      throw ApiException.badRequest("the name of the object (" + set.getMetadata().getName()
          + ") does not match the name on the URL (" + name + ")");
    }
  }

  private static long parseVersion(String name, String resourceVersion) {
    try {
      return Long.parseLong(resourceVersion);
    } catch (NumberFormatException e) {
      throw ApiException.invalid(GROUP, KIND, name, List.of(new FieldError(
          "FieldValueInvalid", "metadata.resourceVersion", "Invalid value: \"" + resourceVersion + "\": must be an integer")));
    }
  }

  private static boolean isConflict(ApiException e) {
    return e.code() == 409 && "Conflict".equals(e.status().getReason());
  }

  private static <T> T mapStoreErrors(String name, Supplier<T> write) {
    try {
      return write.get();
    } catch (StoreException e) {
      throw switch (e.reason()) {
        case NOT_FOUND -> ApiException.notFound(RESOURCE, name);
        case ALREADY_EXISTS -> ApiException.of(409, "AlreadyExists", e.getMessage());
        case CONFLICT -> ApiException.of(409, "Conflict", e.getMessage());
      };
    }
  }

  private static SetKey key(StatefulSet set) {
    return new SetKey(set.getMetadata().getNamespace(), set.getMetadata().getName());
  }
}
