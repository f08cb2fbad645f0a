package io.ordinal.store;

import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetStatus;
import io.micronaut.transaction.annotation.Transactional;
import io.ordinal.kube.GoJson;
import io.ordinal.kube.GoTypes;
import io.ordinal.kube.LeaderLabel;
import io.ordinal.kube.MemberOverrides;
import io.ordinal.kube.PodTemplateDefaults;
import io.ordinal.kube.ReservedOrdinals;
import jakarta.inject.Singleton;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.function.UnaryOperator;

/**
 * StatefulSets in PostgreSQL. The spec and metadata live in {@code object}; uid, generation,
 * resourceVersion and timestamps in their own columns, which win when the object is read back.
 */
@Singleton
public class StatefulSetStore {
  private final Repositories.StatefulSets sets;
  private final Repositories.ControllerRevisions revisions;

  public StatefulSetStore(Repositories.StatefulSets sets, Repositories.ControllerRevisions revisions) {
    this.sets = sets;
    this.revisions = revisions;
  }

  /** On a set being deleted: its pods are left running, unowned, instead of being deleted. */
  public static final String ORPHAN_FINALIZER = "orphan";

  /** On a set being deleted: it stays, for all to see, until its pods are gone (upstream's name). */
  public static final String FOREGROUND_FINALIZER = "foregroundDeletion";

  /**
   * A DELETE's propagationPolicy. Background, upstream's default for apps/v1, takes the set out of
   * the API at once; Foreground keeps it, with its deletionTimestamp, until its pods are gone; Orphan
   * leaves the pods running. Ordinal's controller removes the pods in both first cases, highest
   * ordinal first, running preDelete hooks (upstream's garbage collector removes them all at once).
   */
  public enum Propagation { ORPHAN, BACKGROUND, FOREGROUND }

  /** Whether a set being deleted leaves its pods behind. */
  public static boolean orphansPods(StatefulSet set) {
    return set.getMetadata().getDeletionTimestamp() != null && set.getMetadata().getFinalizers() != null
        && set.getMetadata().getFinalizers().contains(ORPHAN_FINALIZER);
  }

  /** The row id of a namespaced object (set, pod, claim, revision, address): {@code <namespace>/<name>}. */
  public static String id(String namespace, String name) {
    return namespace + "/" + name;
  }

  /** The set as its controller sees it: also one deleted in the background, until its pods are gone. */
  public Optional<StatefulSet> get(String namespace, String name) {
    return sets.findById(id(namespace, name)).map(StatefulSetStore::toObject);
  }

  public List<StatefulSet> list(String namespace) {
    List<StatefulSetRow> rows = namespace == null ? sets.listOrderById() : sets.findByNamespaceOrderByName(namespace);
    return rows.stream().map(StatefulSetStore::toObject).toList();
  }

  /** The uid of the set (also of one deleted in the background), read without its object. */
  public Optional<String> uid(String namespace, String name) {
    return sets.findById(id(namespace, name)).map(StatefulSetRow::uid);
  }

  /** The set as the API shows it: one deleted in the background is gone from it already. */
  public Optional<StatefulSet> getVisible(String namespace, String name) {
    return sets.findById(id(namespace, name)).filter(row -> !row.deletedInBackground()).map(StatefulSetStore::toObject);
  }

  public List<StatefulSet> listVisible(String namespace) {
    List<StatefulSetRow> rows = namespace == null ? sets.findByDeletedInBackgroundOrderById(false)
        : sets.findByNamespaceAndDeletedInBackgroundOrderByName(namespace, false);
    return rows.stream().map(StatefulSetStore::toObject).toList();
  }

  /** The namespaces that hold a set, pod, claim or event. */
  public List<String> namespacesInUse() {
    return sets.namespacesInUse();
  }

  /** Stores a new set at generation 1. */
  @Transactional
  public StatefulSet create(StatefulSet set) {
    String namespace = set.getMetadata().getNamespace();
    String name = set.getMetadata().getName();
    Instant now = Instant.now();
    StatefulSet stored = KubeJson.copy(set, StatefulSet.class);
    stored.setStatus(null);
    stored.getMetadata().setUid(UUID.randomUUID().toString());
    stored.getMetadata().setGeneration(1L);
    stored.getMetadata().setResourceVersion(null);
    stored.getMetadata().setCreationTimestamp(null);
    stored.getMetadata().setDeletionTimestamp(null);
    // Insert-if-absent, so that two concurrent creates cannot both pass an existence check.
    if (sets.insertIfAbsent(id(namespace, name), namespace, name, stored.getMetadata().getUid(), now,
        KubeJson.write(stored)) == 0) {
      throw alreadyExists(namespace, name);
    }
    return get(namespace, name).orElseThrow();
  }

  /**
   * Replaces metadata and spec if the stored resourceVersion is still {@code expectedVersion}.
   * The generation is bumped when the spec changed.
   */
  @Transactional
  public StatefulSet update(StatefulSet set, long expectedVersion) {
    String namespace = set.getMetadata().getNamespace();
    String name = set.getMetadata().getName();
    StatefulSetRow row = sets.findById(id(namespace, name)).orElseThrow(() -> notFound(name));
    StatefulSet old = toObject(row);
    long generation = row.generation() + (specChanged(old, set) ? 1 : 0);
    StatefulSet stored = KubeJson.copy(set, StatefulSet.class);
    stored.setStatus(null);
    stored.getMetadata().setUid(row.uid());
    stored.getMetadata().setGeneration(generation);
    stored.getMetadata().setResourceVersion(null);
    stored.getMetadata().setCreationTimestamp(null);
    stored.getMetadata().setDeletionTimestamp(null);
    long updated = sets.updateIfVersion(row.id(), expectedVersion, KubeJson.write(stored), generation,
        row.deletionTimestamp());
    if (updated == 0) {
      throw conflict(name);
    }
    return get(namespace, name).orElseThrow();
  }

  /** 409 for a name in use; upstream says so too while the holder is being deleted. */
  public StoreException alreadyExists(String namespace, String name) {
    boolean deleting = sets.findById(id(namespace, name)).map(row -> row.deletionTimestamp() != null).orElse(false);
    return new StoreException(StoreException.Reason.ALREADY_EXISTS,
        (deleting ? "object is being deleted: " : "") + "statefulsets.apps \"" + name + "\" already exists");
  }

  /**
   * Starts the deletion of a set: its controller removes the pods (unless they are orphaned), then
   * the set. Returns the set as it is now.
   */
  @Transactional
  public StatefulSet markDeleting(String namespace, String name, Propagation propagation) {
    StatefulSetRow row = sets.findById(id(namespace, name)).orElseThrow(() -> notFound(name));
    // Upstream's way to say "leave the pods" or "wait for them": a finalizer, until the set is removed.
    // A status write may race it; it is added to the newer object then, never skipped.
    String finalizer = switch (propagation) {
      case ORPHAN -> ORPHAN_FINALIZER;
      case FOREGROUND -> FOREGROUND_FINALIZER;
      case BACKGROUND -> null;
    };
    while (finalizer != null && row.deletionTimestamp() == null && !addFinalizer(row, finalizer)) {
      row = sets.findById(id(namespace, name)).orElseThrow(() -> notFound(name));
    }
    sets.markDeleting(id(namespace, name), Instant.now(), propagation == Propagation.BACKGROUND);
    return get(namespace, name).orElseThrow(() -> notFound(name));
  }

  private boolean addFinalizer(StatefulSetRow row, String finalizer) {
    StatefulSet set = KubeJson.read(row.object(), StatefulSet.class);
    List<String> finalizers = new ArrayList<>(set.getMetadata().getFinalizers() == null ? List.of()
        : set.getMetadata().getFinalizers());
    if (finalizers.contains(finalizer)) {
      return true;
    }
    finalizers.add(finalizer);
    set.getMetadata().setFinalizers(finalizers);
    return sets.updateIfVersion(row.id(), row.resourceVersion(), KubeJson.write(set), row.generation(), null) > 0;
  }

  /** Writes the status when it differs from the stored one (a status write bumps resourceVersion). */
  @Transactional
  public void writeStatus(String namespace, String name, StatefulSetStatus status) {
    updateStatus(namespace, name, stored -> status);
  }

  /**
   * Writes the status {@code update} makes of the stored one (a no-op when that is the same, or the
   * set is gone): one read of the row, and of its object only the status is decoded.
   */
  public void updateStatus(String namespace, String name, UnaryOperator<StatefulSetStatus> update) {
    sets.findById(id(namespace, name)).ifPresent(row -> {
      StatefulSetStatus stored = row.status() == null ? new StatefulSetStatus()
          : KubeJson.read(row.status(), StatefulSetStatus.class);
      String json = KubeJson.write(update.apply(stored));
      if (!json.equals(row.status())) {
        sets.updateStatus(row.id(), json);
      }
    });
  }

  /** A status written through the API: only if the set is still at {@code expectedVersion}. */
  public boolean writeStatusIfVersion(String namespace, String name, StatefulSetStatus status, long expectedVersion) {
    return sets.updateStatusIfVersion(id(namespace, name), KubeJson.write(status), expectedVersion) > 0;
  }

  /** Records which workflow currently runs the set's operation, so pod changes can wake it directly. */
  public void setActiveOperation(String namespace, String name, String workflowId) {
    sets.updateActiveOperation(id(namespace, name), workflowId);
  }

  public Optional<String> activeOperation(String namespace, String name) {
    return sets.findActiveOperationById(id(namespace, name));
  }

  /** Removes a set and its revisions; its PVCs stay. */
  @Transactional
  public void remove(String namespace, String name) {
    revisions.deleteByNamespaceAndSetName(namespace, name);
    sets.deleteById(id(namespace, name));
  }

  /** The set as {@link #create} would store it, without storing it (a dry run). */
  public static StatefulSet asCreated(StatefulSet set) {
    StatefulSet created = KubeJson.copy(set, StatefulSet.class);
    created.setStatus(new StatefulSetStatus());
    created.getMetadata().setUid(UUID.randomUUID().toString());
    created.getMetadata().setGeneration(1L);
    created.getMetadata().setResourceVersion(null);
    created.getMetadata().setCreationTimestamp(KubeJson.timestamp(Instant.now()));
    created.getMetadata().setDeletionTimestamp(null);
    return created;
  }

  /** The set as {@link #update} would store it over {@code old}, without storing it (a dry run). */
  public static StatefulSet asUpdated(StatefulSet set, StatefulSet old) {
    StatefulSet updated = KubeJson.copy(set, StatefulSet.class);
    updated.setStatus(old.getStatus());
    updated.getMetadata().setUid(old.getMetadata().getUid());
    updated.getMetadata().setGeneration(old.getMetadata().getGeneration() + (specChanged(old, set) ? 1 : 0));
    updated.getMetadata().setResourceVersion(old.getMetadata().getResourceVersion());
    updated.getMetadata().setCreationTimestamp(old.getMetadata().getCreationTimestamp());
    updated.getMetadata().setDeletionTimestamp(old.getMetadata().getDeletionTimestamp());
    return updated;
  }

  /**
   * A spec change is what bumps the generation: compared as upstream's types read the spec, so a PUT
   * of what a GET gave (with the fields Go always writes) changes nothing. The reserved ordinals, the
   * leader label and the member overrides are desired state kept in annotations (OpenKruise has the
   * first in its spec, KubeBlocks the last): changing them is a spec change, which also makes the
   * set's workflow read every pod again.
   */
  private static boolean specChanged(StatefulSet old, StatefulSet set) {
    return !GoJson.same(KubeJson.JSON.valueToTree(old.getSpec()), KubeJson.JSON.valueToTree(set.getSpec()),
        GoTypes.STATEFUL_SET_SPEC)
        || !ReservedOrdinals.of(old.getMetadata()).equals(ReservedOrdinals.of(set.getMetadata()))
        || !LeaderLabel.of(old.getMetadata()).equals(LeaderLabel.of(set.getMetadata()))
        || !Objects.equals(MemberOverrides.canonical(old.getMetadata()), MemberOverrides.canonical(set.getMetadata()));
  }

  public static String conflictMessage(String name) {
    return conflict(name).getMessage();
  }

  public static StatefulSet toObject(StatefulSetRow row) {
    StatefulSet set = KubeJson.read(row.object(), StatefulSet.class);
    set.setApiVersion("apps/v1");
    set.setKind("StatefulSet");
    var meta = set.getMetadata();
    meta.setNamespace(row.namespace());
    meta.setName(row.name());
    meta.setUid(row.uid());
    meta.setGeneration(row.generation());
    meta.setResourceVersion(Long.toString(row.resourceVersion()));
    meta.setCreationTimestamp(KubeJson.timestamp(row.createdAt()));
    meta.setDeletionTimestamp(KubeJson.timestamp(row.deletionTimestamp()));
    set.setStatus(row.status() == null ? new StatefulSetStatus() : KubeJson.read(row.status(), StatefulSetStatus.class));
    if (set.getSpec() != null) {
      // As kube-apiserver defaults what it decodes from storage: a set stored by an earlier release,
      // before a default of its template existed, reads (and compares, and is updated) as one written now.
      PodTemplateDefaults.apply(set.getSpec().getTemplate());
      if (set.getSpec().getVolumeClaimTemplates() != null) {
        set.getSpec().getVolumeClaimTemplates().forEach(PodTemplateDefaults::applyClaim);
      }
    }
    return set;
  }

  static StoreException notFound(String name) {
    return new StoreException(StoreException.Reason.NOT_FOUND, "statefulsets.apps \"" + name + "\" not found");
  }

  static StoreException conflict(String name) {
    return new StoreException(StoreException.Reason.CONFLICT, "Operation cannot be fulfilled on statefulsets.apps \""
        + name + "\": the object has been modified; please apply your changes to the latest version and try again");
  }
}
