package io.ordinal.store;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.apps.ControllerRevision;
import io.fabric8.kubernetes.api.model.apps.ControllerRevisionBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.micronaut.transaction.annotation.Transactional;
import io.ordinal.kube.Labels;
import io.ordinal.kube.RolloutControls;
import jakarta.inject.Singleton;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/**
 * ControllerRevisions: one per distinct pod template of a set, named {@code <set>-<hash>}, as
 * upstream's {@code getStatefulSetRevisions} keeps them.
 */
@Singleton
public class RevisionStore {
  /** Canonical JSON: map keys sorted, so that equal templates hash equally. */
  private static final ObjectMapper CANONICAL = KubeJson.JSON.copy().enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS);
  private static final String SAFE_ALPHABET = "bcdfghjklmnpqrstvwxz2456789";

  private final Repositories.ControllerRevisions revisions;
  private final Repositories.StatefulSets sets;

  public RevisionStore(Repositories.ControllerRevisions revisions, Repositories.StatefulSets sets) {
    this.revisions = revisions;
    this.sets = sets;
  }

  /** @param rolledBack the revision is an older one brought back, so rolling out to it is a rollback */
  public record Ensured(String name, int collisionCount, boolean rolledBack) {}

  /**
   * Returns the revision of {@code template}: the existing one when its template is equal (given the
   * next revision number unless it already is the newest, which makes it a rollback), else a new one.
   * A hash collision with a different template bumps {@code collisionCount}, which feeds the hash.
   *
   * @param changeCause the set's {@code kubernetes.io/change-cause}, recorded with the revision
   */
  @Transactional
  public Ensured ensure(String namespace, String setName, PodTemplateSpec template, int collisionCount,
      String changeCause) {
    String data = canonical(template);
    List<ControllerRevisionRow> history = revisions.findByNamespaceAndSetNameOrderByRevision(namespace, setName);
    while (true) {
      switch (decide(setName, history, data, collisionCount)) {
        case Decision.Stored stored -> {
          return stored.ensured();
        }
        case Decision.Renumber renumber -> {
          revisions.renumber(renumber.row().id(), newest(history) + 1, changeCause, Instant.now());
          return new Ensured(renumber.row().name(), renumber.collisionCount(), true);
        }
        case Decision.Insert insert -> {
          if (revisions.insertIfAbsent(StatefulSetStore.id(namespace, insert.name()), namespace, insert.name(), setName,
              UUID.randomUUID().toString(), newest(history) + 1, data, changeCause, Instant.now()) > 0) {
            return new Ensured(insert.name(), insert.collisionCount(), false);
          }
          // Another writer (a concurrent undo or observation) stored it first: decide again on its row.
          history = revisions.findByNamespaceAndSetNameOrderByRevision(namespace, setName);
        }
      }
    }
  }

  /**
   * The revision of the set's template as {@link #ensure} would return it, when ensuring it would
   * write nothing (it is stored and the newest); empty when {@link #ensure} has work to do. Reads only
   * {@code history}, the set's revisions oldest first.
   */
  public static Optional<Ensured> lookup(StatefulSet set, List<ControllerRevisionRow> history) {
    return decide(set.getMetadata().getName(), history, canonical(set.getSpec().getTemplate()), collisionCount(set))
        instanceof Decision.Stored stored ? Optional.of(stored.ensured()) : Optional.empty();
  }

  /** What {@link #ensure} must do for a template, given the set's history. */
  private sealed interface Decision {
    record Stored(Ensured ensured) implements Decision {}

    record Renumber(ControllerRevisionRow row, int collisionCount) implements Decision {}

    record Insert(String name, int collisionCount) implements Decision {}
  }

  private static Decision decide(String setName, List<ControllerRevisionRow> history, String data, int collisionCount) {
    for (int collisions = collisionCount; ; collisions++) {
      String name = setName + "-" + hash(data, collisions);
      Optional<ControllerRevisionRow> existing = history.stream().filter(r -> r.name().equals(name)).findFirst();
      if (existing.isEmpty()) {
        return new Decision.Insert(name, collisions);
      }
      ControllerRevisionRow row = existing.get();
      if (row.template().equals(data)) {
        return row.revision() != newest(history)
            ? new Decision.Renumber(row, collisions)
            : new Decision.Stored(new Ensured(name, collisions, row.rolledBack()));
      }
    }
  }

  private static long newest(List<ControllerRevisionRow> history) {
    return history.isEmpty() ? 0 : history.getLast().revision();
  }

  private static int collisionCount(StatefulSet set) {
    Integer collisions = set.getStatus() == null ? null : set.getStatus().getCollisionCount();
    return collisions == null ? 0 : collisions;
  }

  /** {@link #ensure} for the set's own template, collision count and change-cause. */
  @Transactional
  public Ensured ensure(StatefulSet set) {
    return ensure(set.getMetadata().getNamespace(), set.getMetadata().getName(), set.getSpec().getTemplate(),
        collisionCount(set), Labels.annotation(set.getMetadata(), Labels.CHANGE_CAUSE_ANNOTATION));
  }

  /** A set's revisions, oldest number first. */
  public List<ControllerRevisionRow> history(String namespace, String setName) {
    return revisions.findByNamespaceAndSetNameOrderByRevision(namespace, setName);
  }

  /**
   * Upstream's truncateHistory: deletes the oldest revisions beyond {@code limit}, never one in
   * {@code live} (the current and update revisions and every revision a pod still runs).
   */
  public void prune(String namespace, String setName, int limit, Set<String> live) {
    List<ControllerRevisionRow> prunable = prunable(history(namespace, setName), limit, live);
    prunable.forEach(row -> revisions.deleteById(row.id()));
  }

  /** The revisions of {@code history} (oldest first) that pruning to {@code limit} deletes. Pure. */
  public static List<ControllerRevisionRow> prunable(List<ControllerRevisionRow> history, int limit,
      Set<String> live) {
    List<ControllerRevisionRow> candidates = history.stream().filter(r -> !live.contains(r.name())).toList();
    return candidates.subList(0, Math.max(0, candidates.size() - Math.max(0, limit)));
  }

  /** The revisions of a namespace, or of all namespaces ({@code null}). */
  public List<ControllerRevision> list(String namespace) {
    // One read of the sets for the owner references, not one per revision.
    Map<String, String> setUids = new HashMap<>();
    (namespace == null ? sets.listOrderById() : sets.findByNamespaceOrderByName(namespace))
        .forEach(set -> setUids.put(set.id(), set.uid()));
    return (namespace == null ? revisions.listOrderById() : revisions.findByNamespaceOrderByName(namespace)).stream()
        .map(row -> toObject(row, setUids.get(StatefulSetStore.id(row.namespace(), row.setName())))).toList();
  }

  public Optional<ControllerRevision> get(String namespace, String name) {
    return revisions.findById(StatefulSetStore.id(namespace, name)).map(row -> toObject(row,
        sets.findById(StatefulSetStore.id(namespace, row.setName())).map(StatefulSetRow::uid).orElse(null)));
  }

  /** The API object: upstream stores the template as a replace patch of spec.template. */
  static ControllerRevision toObject(ControllerRevisionRow row, String setUid) {
    PodTemplateSpec template = KubeJson.read(row.template(), PodTemplateSpec.class);
    Map<String, String> labels = new LinkedHashMap<>(
        template.getMetadata() == null || template.getMetadata().getLabels() == null ? Map.of() : template.getMetadata().getLabels());
    labels.put(Labels.REVISION_HASH, row.name());
    Map<String, Object> templatePatch = new LinkedHashMap<>(CANONICAL.convertValue(template, Map.class));
    templatePatch.put("$patch", "replace");
    return new ControllerRevisionBuilder()
        .withApiVersion("apps/v1").withKind("ControllerRevision")
        .withNewMetadata()
          .withName(row.name()).withNamespace(row.namespace()).withUid(row.uid()).withLabels(labels)
          .withAnnotations(row.changeCause() == null ? null : Map.of(Labels.CHANGE_CAUSE_ANNOTATION, row.changeCause()))
          .withResourceVersion(Long.toString(row.resourceVersion()))
          .withCreationTimestamp(KubeJson.timestamp(row.createdAt()))
          .addNewOwnerReference().withApiVersion("apps/v1").withKind("StatefulSet").withName(row.setName())
            .withUid(setUid).withController(true).withBlockOwnerDeletion(true).endOwnerReference()
        .endMetadata()
        .withRevision(row.revision())
        .withData(Map.of("spec", Map.of("template", templatePatch)))
        .build();
  }

  /**
   * The set with its template put back to {@code revision}'s, as {@code kubectl rollout undo} does:
   * the revision's change-cause becomes the set's, and a pause is lifted (undoing is the decision
   * the pause was waiting for).
   */
  public static StatefulSet revertedTo(StatefulSet set, ControllerRevisionRow revision) {
    StatefulSet reverted = KubeJson.copy(set, StatefulSet.class);
    reverted.getSpec().setTemplate(KubeJson.read(revision.template(), PodTemplateSpec.class));
    Map<String, String> annotations = new LinkedHashMap<>(
        Labels.annotations(reverted.getMetadata()));
    if (revision.changeCause() == null) {
      annotations.remove(Labels.CHANGE_CAUSE_ANNOTATION);
    } else {
      annotations.put(Labels.CHANGE_CAUSE_ANNOTATION, revision.changeCause());
    }
    reverted.getMetadata().setAnnotations(annotations);
    RolloutControls.setPaused(reverted, false);
    return reverted;
  }

  /** Deletes a revision through the API. */
  public void delete(String namespace, String revisionName) {
    revisions.deleteById(StatefulSetStore.id(namespace, revisionName));
  }

  public Optional<ControllerRevisionRow> find(String namespace, String revisionName) {
    return revisions.findById(StatefulSetStore.id(namespace, revisionName));
  }

  public Optional<PodTemplateSpec> template(String namespace, String revisionName) {
    return revisions.findById(StatefulSetStore.id(namespace, revisionName)).map(r -> KubeJson.read(r.template(), PodTemplateSpec.class));
  }

  static String canonical(PodTemplateSpec template) {
    try {
      // Through plain maps, so that ORDER_MAP_ENTRIES_BY_KEYS applies at every level.
      return CANONICAL.writeValueAsString(CANONICAL.convertValue(template, Map.class));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /** FNV-1a (32 bit) of the template and collision count, rendered like upstream's SafeEncodeString. */
  static String hash(String data, int collisionCount) {
    int h = 0x811c9dc5;
    byte[] bytes = (data + (collisionCount == 0 ? "" : "#" + collisionCount)).getBytes(StandardCharsets.UTF_8);
    for (byte b : bytes) {
      h ^= (b & 0xff);
      h *= 0x01000193;
    }
    String decimal = Long.toString(Integer.toUnsignedLong(h));
    StringBuilder out = new StringBuilder(decimal.length());
    for (char c : decimal.toCharArray()) {
      out.append(SAFE_ALPHABET.charAt(c % SAFE_ALPHABET.length()));
    }
    return out.toString();
  }
}
