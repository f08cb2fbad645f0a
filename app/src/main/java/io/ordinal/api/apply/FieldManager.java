package io.ordinal.api.apply;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.ordinal.api.apply.ApplyConflictException.Conflict;
import io.ordinal.api.apply.ManagedFields.Entry;
import io.ordinal.api.apply.ManagedFields.Identity;
import io.ordinal.api.apply.Typed.Comparison;
import io.ordinal.store.KubeJson;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Server-side apply and managed fields for one kind at one apiVersion: upstream's field manager
 * ({@code k8s.io/apimachinery/pkg/util/managedfields/internal}) over structured-merge-diff's
 * updater ({@code merge/update.go}), on JSON trees.
 *
 * <p>Each manager's entry in {@code metadata.managedFields} is the set of fields it owns. An
 * Update (create, PUT, non-apply PATCH, subresource write) gives its manager the fields it added
 * or changed and takes them from everyone else; an Apply merges a partial configuration, owns
 * exactly the fields the configuration has, fails on fields someone else owns and the
 * configuration would change (unless forced), and removes the fields it applied before and no
 * longer applies when no one else owns them. Only apiVersion {@code apiVersion} is served, so an
 * entry of another apiVersion is kept and compared as if it were of this one.
 */
public final class FieldManager {
  /** Update entries kept before the oldest are merged into {@code ancient-changes}. */
  static final int MAX_UPDATE_MANAGERS = 10;

  /** Fields no one owns: the type and identity of the object, and what the server keeps (stripmeta.go). */
  private static final FieldSet NEVER_OWNED = FieldSet.of(List.of(
      path("apiVersion"), path("kind"), path("metadata"), path("metadata", "name"), path("metadata", "namespace"),
      path("metadata", "creationTimestamp"), path("metadata", "selfLink"), path("metadata", "uid"),
      path("metadata", "clusterName"), path("metadata", "generation"), path("metadata", "managedFields"),
      path("metadata", "resourceVersion")));
  private static final FieldSet STATUS = FieldSet.of(List.of(path("status")));
  /** The manager kubectl apply --server-side uses unless told otherwise. */
  private static final String KUBECTL = "kubectl";
  private static final String LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";
  private static final FieldSet SPEC = FieldSet.of(List.of(path("spec")));

  private final String apiVersion;
  private final String kind;
  private final Schema schema;

  private FieldManager(Class<?> type, String apiVersion) {
    this.apiVersion = apiVersion;
    this.kind = type.getSimpleName();
    this.schema = Schema.root(type);
  }

  /** For objects of {@code type} (e.g. io.fabric8.kubernetes.api.model.apps.StatefulSet.class) served as {@code apiVersion} (e.g. "apps/v1"). */
  public static FieldManager of(Class<?> type, String apiVersion) {
    return new FieldManager(type, apiVersion);
  }

  /**
   * An Update operation (create when live is null, PUT, JSON/merge/strategic PATCH, a subresource write):
   * returns a copy of {@code updated} whose metadata.managedFields record {@code manager} (operation
   * "Update", subresource null or e.g. "status"/"scale") as the owner of every field it added or changed
   * compared with {@code live}; those fields leave other managers' sets, removed fields leave every set.
   * If {@code updated} carries non-empty metadata.managedFields they are the starting point (upstream lets
   * a client write managedFields directly, e.g. kubectl's client-side→server-side apply migration sends a
   * JSON patch replacing them), else live's. Invalid managedFields → IllegalArgumentException with a clear message.
   */
  public ObjectNode update(ObjectNode live, ObjectNode updated, String manager, String subresource, Instant now) {
    Map<Identity, Entry> entries = startingPoint(live, updated, subresource);
    FieldSet ignored = resetBy(subresource);
    Comparison changes = Typed.compare(withoutManagedFields(live), withoutManagedFields(updated), schema);
    Comparison seenByOthers = changes.excluding(ignored);
    FieldSet taken = seenByOthers.modified().union(seenByOthers.added());
    entries.replaceAll((id, entry) -> entry.withFields(entry.fields().difference(taken).difference(seenByOthers.removed())));

    // The fields this operation set; its manager's time moves only when there are any (managedfieldsupdater.go).
    FieldSet changed = changes.modified().union(changes.added()).difference(changes.removed())
        .recursiveDifference(ignored).difference(NEVER_OWNED);
    if (!changed.isEmpty()) {
      Identity id = ManagedFields.identity(named(manager), ManagedFields.UPDATE, apiVersion, subresource);
      Entry previous = entries.get(id);
      FieldSet owned = previous == null ? changed : previous.fields().union(changed);
      entries.put(id, new Entry(id, apiVersion, now, owned));
    }
    entries.values().removeIf(entry -> entry.fields().isEmpty());
    ManagedFields.capUpdates(entries, MAX_UPDATE_MANAGERS);

    ObjectNode result = updated.deepCopy();
    setManagedFields(result, entries);
    return result;
  }

  /**
   * An Apply operation (PATCH application/apply-patch+yaml): merges the applied configuration
   * {@code config} (a partial object) into {@code live} (null = the object does not exist yet), removes
   * from the result the fields {@code manager} applied last time and no longer applies unless another
   * manager owns them, and records the manager's set = exactly the config's fields (operation "Apply").
   * Throws ApplyConflictException listing every conflict (a field in config whose value differs from live
   * and that another manager owns) unless force, in which case ownership moves to this manager.
   */
  public ObjectNode apply(ObjectNode live, ObjectNode config, String manager, boolean force, Instant now)
      throws ApplyConflictException {
    checkApplied(config);
    Map<Identity, Entry> entries = ManagedFields.decode(managedFieldsOf(live));
    JsonNode liveObject = withoutManagedFields(live);
    JsonNode merged = orEmpty(Typed.merge(liveObject, config, schema));

    Identity id = ManagedFields.identity(named(manager), ManagedFields.APPLY, apiVersion, null);
    Entry last = entries.get(id);
    FieldSet applied = Typed.fieldSet(config, schema).recursiveDifference(STATUS);
    entries.put(id, new Entry(id, apiVersion, last == null ? null : last.time(), applied));
    if (last != null) {
      FieldSet owned = new FieldSet();
      for (Entry entry : entries.values()) {
        owned = owned.union(entry.fields());
      }
      merged = orEmpty(Typed.prune(merged, last.fields(), owned, schema));
    }

    Comparison changes = Typed.compare(liveObject, merged, schema).excluding(STATUS);
    FieldSet taken = changes.modified().union(changes.added());
    // kubectl's own server-side apply may take, without --force-conflicts, what its client-side
    // apply last applied and the object still holds (upstream's lastAppliedManager): that is how an
    // object moves from client-side to server-side apply.
    FieldSet allowed = KUBECTL.equals(manager) ? lastAppliedAndStillLive(liveObject) : new FieldSet();
    List<Conflict> conflicts = new ArrayList<>();
    entries.values().stream()
        .filter(entry -> !entry.identity().equals(id))
        .sorted(Comparator.comparing(entry -> entry.identity().json()))
        .forEach(entry -> entry.fields().intersection(taken).difference(allowed).forEach(path -> conflicts.add(
            new Conflict(entry.identity().manager(), entry.identity().operation(), entry.apiVersion(),
                entry.identity().subresource(), FieldSet.toString(path)))));
    if (!force && !conflicts.isEmpty()) {
      throw new ApplyConflictException(conflicts);
    }
    if (KUBECTL.equals(manager)) {
      keepLastAppliedInStep((ObjectNode) merged, config);
    }
    entries.replaceAll((other, entry) -> other.equals(id) ? entry
        : entry.withFields(entry.fields().difference(taken).difference(changes.removed())));
    // An apply that leaves the object as it was does not move the applier's time (no write).
    Instant time = Values.equal(liveObject, merged) ? entries.get(id).time() : now;
    entries.put(id, new Entry(id, apiVersion, time, applied.difference(NEVER_OWNED)));
    entries.values().removeIf(entry -> entry.fields().isEmpty());

    ObjectNode result = (ObjectNode) merged;
    setManagedFields(result, entries);
    return result;
  }

  /**
   * The fields of the live object's last-applied-configuration annotation whose values the object
   * still has; none without the annotation or when it does not parse.
   */
  private FieldSet lastAppliedAndStillLive(JsonNode live) {
    JsonNode annotation = live.path("metadata").path("annotations").path(LAST_APPLIED);
    if (!annotation.isTextual() || annotation.asText().isEmpty()) {
      return new FieldSet();
    }
    JsonNode lastApplied;
    try {
      lastApplied = KubeJson.JSON.readTree(annotation.asText());
    } catch (JsonProcessingException e) {
      return new FieldSet();
    }
    if (!(lastApplied instanceof ObjectNode)) {
      return new FieldSet();
    }
    Comparison differences = Typed.compare(lastApplied, live, schema);
    return Typed.fieldSet(lastApplied, schema).difference(differences.modified())
        .difference(differences.added()).difference(differences.removed());
  }

  /**
   * After kubectl's server-side apply, an object that still carries a last-applied-configuration
   * annotation gets the applied configuration in it, so a later client-side apply computes its
   * patch from what was really applied last (upstream's lastAppliedUpdater).
   */
  private static void keepLastAppliedInStep(ObjectNode merged, ObjectNode config) {
    if (!(merged.path("metadata").path("annotations") instanceof ObjectNode annotations)
        || !annotations.has(LAST_APPLIED)) {
      return;
    }
    ObjectNode applied = config.deepCopy();
    if (applied.path("metadata").path("annotations") instanceof ObjectNode own) {
      own.remove(LAST_APPLIED);
    }
    annotations.put(LAST_APPLIED, applied.toString());
  }

  /** The managedFields an Update starts from (upstream's decodeLiveOrNew). */
  private static Map<Identity, Entry> startingPoint(ObjectNode live, ObjectNode updated, String subresource) {
    JsonNode requested = updated.at("/metadata/managedFields");
    // A subresource write cannot set managedFields; [] or [{}] clears them.
    if (subresource == null || subresource.isEmpty()) {
      if (requested.isArray() && (requested.isEmpty()
          || (requested.size() == 1 && requested.get(0).isObject() && requested.get(0).isEmpty()))) {
        return new LinkedHashMap<>();
      }
      if (requested.isArray()) {
        Map<Identity, Entry> entries = ManagedFields.decode(requested);
        if (!entries.isEmpty()) {
          return entries;
        }
      }
    }
    try {
      return ManagedFields.decode(managedFieldsOf(live));
    } catch (IllegalArgumentException e) {
      return new LinkedHashMap<>(); // as upstream: unreadable stored managedFields start over
    }
  }

  /**
   * Fields the strategy of the written resource resets, which no manager of it owns: the main
   * resource does not write status, the status subresource does not write spec (upstream's
   * GetResetFields of the StatefulSet strategies).
   */
  private static FieldSet resetBy(String subresource) {
    return "status".equals(subresource) ? SPEC : STATUS;
  }

  private void checkApplied(ObjectNode config) {
    if (config == null) {
      throw new IllegalArgumentException("the applied configuration is missing");
    }
    String version = config.path("apiVersion").asText("");
    String configKind = config.path("kind").asText("");
    if (!version.equals(apiVersion) || !configKind.equals(kind)) {
      throw new IllegalArgumentException("invalid object type: " + (version.contains("/") ? version : "/" + version)
          + ", Kind=" + configKind);
    }
    JsonNode managedFields = config.at("/metadata/managedFields");
    if (!managedFields.isMissingNode() && !managedFields.isNull()) {
      throw new IllegalArgumentException("metadata.managedFields must be nil");
    }
  }

  private static JsonNode managedFieldsOf(ObjectNode object) {
    return object == null ? null : object.path("metadata").get("managedFields");
  }

  private static String named(String manager) {
    return manager == null || manager.isEmpty() ? "unknown" : manager;
  }

  private static JsonNode withoutManagedFields(ObjectNode object) {
    if (object == null) {
      return JsonNodeFactory.instance.objectNode();
    }
    JsonNode metadata = object.get("metadata");
    if (metadata == null || !metadata.has("managedFields")) {
      return object;
    }
    ObjectNode copy = object.deepCopy();
    ((ObjectNode) copy.get("metadata")).remove("managedFields");
    return copy;
  }

  private static JsonNode orEmpty(JsonNode value) {
    return value == null ? JsonNodeFactory.instance.objectNode() : value;
  }

  private static void setManagedFields(ObjectNode object, Map<Identity, Entry> entries) {
    JsonNode metadata = object.get("metadata");
    if (entries.isEmpty()) {
      if (metadata instanceof ObjectNode m) {
        m.remove("managedFields");
      }
      return;
    }
    ObjectNode meta = metadata instanceof ObjectNode m ? m : object.putObject("metadata");
    ArrayNode encoded = ManagedFields.encode(entries);
    meta.set("managedFields", encoded);
  }

  private static List<PathElement> path(String... names) {
    return Arrays.stream(names).<PathElement>map(PathElement.Field::new).toList();
  }
}
