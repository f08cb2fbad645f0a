package io.ordinal.store;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.util.RawValue;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.apps.ControllerRevision;
import io.fabric8.kubernetes.api.model.apps.ControllerRevisionBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.micronaut.transaction.annotation.Transactional;
import io.ordinal.kube.GoJson;
import io.ordinal.kube.GoTypes;
import io.ordinal.kube.Labels;
import io.ordinal.kube.MemberOverrides;
import io.ordinal.kube.PodTemplateDefaults;
import io.ordinal.kube.RolloutControls;
import jakarta.inject.Singleton;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/**
 * ControllerRevisions: one per distinct pod template of a set, named {@code <set>-<hash>}, as
 * upstream's {@code getStatefulSetRevisions} keeps them. A set with {@link MemberOverrides} has them
 * in its revisions too: they make its pods' templates as much as the template does.
 */
@Singleton
public class RevisionStore {
  /** {@link #data} of templates, by their JSON: every observation compares the set's template with its history. */
  private static final Map<String, String> DATA = new LinkedHashMap<>(256, 0.75f, true) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<String, String> eldest) {
      return size() > 4096;
    }
  };
  /** Upstream's ControllerRevisionHashLabel: the hash part of the revision's name. */
  public static final String HASH_LABEL = "controller.kubernetes.io/hash";
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
   * @param overrides the set's member overrides ({@link MemberOverrides#canonical}), null for none
   * @param changeCause the set's {@code kubernetes.io/change-cause}, recorded with the revision
   */
  @Transactional
  public Ensured ensure(String namespace, String setName, PodTemplateSpec template, String overrides,
      int collisionCount, String changeCause) {
    String data = data(template);
    List<ControllerRevisionRow> history = revisions.findByNamespaceAndSetNameOrderByRevision(namespace, setName);
    while (true) {
      switch (decide(setName, history, data, overrides, collisionCount)) {
        case Decision.Stored stored -> {
          return stored.ensured();
        }
        case Decision.Renumber renumber -> {
          revisions.renumber(renumber.row().id(), newest(history) + 1, changeCause, Instant.now());
          return new Ensured(renumber.row().name(), renumber.collisionCount(), true);
        }
        case Decision.Insert insert -> {
          if (revisions.insertIfAbsent(StatefulSetStore.id(namespace, insert.name()), namespace, insert.name(), setName,
              UUID.randomUUID().toString(), newest(history) + 1, data, overrides, changeCause, Instant.now()) > 0) {
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
    return decide(set.getMetadata().getName(), history, data(set.getSpec().getTemplate()),
        MemberOverrides.canonical(set.getMetadata()), collisionCount(set)) instanceof Decision.Stored stored ? Optional.of(stored.ensured()) : Optional.empty();
  }

  /** What {@link #ensure} must do for a template, given the set's history. */
  private sealed interface Decision {
    record Stored(Ensured ensured) implements Decision {}

    record Renumber(ControllerRevisionRow row, int collisionCount) implements Decision {}

    record Insert(String name, int collisionCount) implements Decision {}
  }

  /**
   * Upstream's getStatefulSetRevisions: the newest stored revision whose template equals the set's
   * is the set's (brought back, and so renumbered, if it is not the newest); else a new one named by
   * the hash, stepping past names a different template holds. Stored templates are compared as
   * upstream's types write them, so a revision stored by an older release, under the name its hash
   * function gave, is still the set's: its pods are not rolled because the hash function changed.
   */
  private static Decision decide(String setName, List<ControllerRevisionRow> history, String data, String overrides,
      int collisionCount) {
    for (ControllerRevisionRow row : history.reversed()) {
      if (data(row.template()).equals(data) && Objects.equals(row.memberOverrides(), overrides)) {
        return row.revision() != newest(history)
            ? new Decision.Renumber(row, collisionCount)
            : new Decision.Stored(new Ensured(row.name(), collisionCount, row.rolledBack()));
      }
    }
    for (int collisions = collisionCount; ; collisions++) {
      String name = name(setName, data, overrides, collisions);
      if (history.stream().noneMatch(r -> r.name().equals(name))) {
        return new Decision.Insert(name, collisions);
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

  /** {@link #ensure} for the set's own template, member overrides, collision count and change-cause. */
  @Transactional
  public Ensured ensure(StatefulSet set) {
    return ensure(set.getMetadata().getNamespace(), set.getMetadata().getName(), set.getSpec().getTemplate(),
        MemberOverrides.canonical(set.getMetadata()), collisionCount(set),
        Labels.annotation(set.getMetadata(), Labels.CHANGE_CAUSE_ANNOTATION));
  }

  /** The name {@link #ensure} gives a new revision of {@code template} without member overrides: upstream's. */
  public static String revisionName(String setName, PodTemplateSpec template, int collisionCount) {
    return name(setName, data(template), null, collisionCount);
  }

  /**
   * Records a revision another controller made (upstream's, of a set Ordinal adopts) under its own
   * name and number, unless one of that name is recorded; true if it was recorded now.
   */
  @Transactional
  public boolean adopt(String namespace, String setName, String name, long revision, PodTemplateSpec template,
      String changeCause, Instant createdAt) {
    return revisions.insertIfAbsent(StatefulSetStore.id(namespace, name), namespace, name, setName,
        UUID.randomUUID().toString(), revision, data(template), null, changeCause, createdAt) > 0;
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

  /**
   * The API object: upstream stores the template as a replace patch of spec.template, labels the
   * revision with the template's labels and the hash, and copies the set's annotations (only the
   * change-cause is kept here).
   */
  static ControllerRevision toObject(ControllerRevisionRow row, String setUid) {
    PodTemplateSpec template = KubeJson.read(row.template(), PodTemplateSpec.class);
    Map<String, String> labels = new LinkedHashMap<>(
        template.getMetadata() == null || template.getMetadata().getLabels() == null ? Map.of() : template.getMetadata().getLabels());
    labels.put(Labels.REVISION_HASH, row.name());
    labels.put(HASH_LABEL, row.name().substring(row.name().lastIndexOf('-') + 1));
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
        .withData(KubeJson.read(new String(patch(data(row.template()), row.memberOverrides()), StandardCharsets.UTF_8),
            Map.class))
        .build();
  }

  /**
   * The revision's data as upstream's controller writes it, byte for byte (JSON as encoding/json
   * writes it, {@code <>&} escaped): for a ControllerRevision in a cluster, where upstream's controller
   * compares revisions by these bytes, so one written otherwise would be a collision and its pods rolled.
   */
  public static RawValue clusterData(ControllerRevisionRow row) {
    return new RawValue(new String(patch(data(row.template()), row.memberOverrides()), StandardCharsets.UTF_8));
  }

  /**
   * The set with its template put back to {@code revision}'s, as {@code kubectl rollout undo} does:
   * the revision's change-cause and member overrides become the set's, and a pause is lifted (undoing
   * is the decision the pause was waiting for).
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
    if (revision.memberOverrides() == null) {
      annotations.remove(MemberOverrides.ANNOTATION);
    } else if (!revision.memberOverrides().equals(MemberOverrides.canonical(reverted.getMetadata()))) {
      annotations.put(MemberOverrides.ANNOTATION, revision.memberOverrides());
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

  /**
   * The template as upstream's StatefulSet controller sees it: defaulted as kube-apiserver defaults
   * apps/v1, read into its Go type and written back, keys sorted (the form every revision is stored
   * in and compared by).
   */
  public static String data(PodTemplateSpec template) {
    return data(KubeJson.write(template));
  }

  /**
   * {@link #data} of a template in its JSON: a set's (every observation looks its revision up) or a
   * stored revision's (which an older release stored in a form of its own). Remembered by that text.
   */
  private static String data(String template) {
    synchronized (DATA) {
      String cached = DATA.get(template);
      if (cached != null) {
        return cached;
      }
    }
    PodTemplateSpec defaulted = PodTemplateDefaults.apply(KubeJson.read(template, PodTemplateSpec.class));
    ObjectNode written = GoJson.decodeEncode(KubeJson.JSON.valueToTree(defaulted), GoTypes.POD_TEMPLATE_SPEC);
    String data = new String(GoJson.marshal(written), StandardCharsets.UTF_8);
    synchronized (DATA) {
      DATA.put(template, data);
    }
    return data;
  }

  /**
   * Upstream's getPatch: the revision's data, a strategic merge patch that replaces the set's
   * template, as encoding/json writes it. With member overrides it sets their annotation too, so that
   * applying it (as {@code kubectl rollout undo} does) brings them back with the template.
   */
  static byte[] patch(String data, String overrides) {
    ObjectNode template = KubeJson.read(data, ObjectNode.class);
    template.put("$patch", "replace");
    ObjectNode patch = KubeJson.JSON.createObjectNode();
    if (overrides != null) {
      patch.putObject("metadata").putObject("annotations").put(MemberOverrides.ANNOTATION, overrides);
    }
    patch.putObject("spec").set("template", template);
    return GoJson.marshal(patch);
  }

  /** The revision's name: upstream's ControllerRevisionName of its HashControllerRevision. */
  static String name(String setName, String data, String overrides, int collisionCount) {
    return (setName.length() > 223 ? setName.substring(0, 223) : setName) + "-" + hash(data, overrides, collisionCount);
  }

  /**
   * HashControllerRevision: FNV-1 (32 bit; Go's fnv.New32, not FNV-1a) of the patch and then of the
   * collision count in decimal (the controller always passes one), rendered by SafeEncodeString.
   */
  static String hash(String data, String overrides, int collisionCount) {
    int h = 0x811c9dc5;
    for (byte[] part : List.of(patch(data, overrides), Integer.toString(collisionCount).getBytes(StandardCharsets.UTF_8))) {
      for (byte b : part) {
        h *= 0x01000193;
        h ^= (b & 0xff);
      }
    }
    String decimal = Long.toString(Integer.toUnsignedLong(h));
    StringBuilder out = new StringBuilder(decimal.length());
    for (char c : decimal.toCharArray()) {
      out.append(SAFE_ALPHABET.charAt(c % SAFE_ALPHABET.length()));
    }
    return out.toString();
  }
}
