package io.ordinal.api.apply;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * An object's {@code metadata.managedFields}: one entry per manager identity, read from and
 * written to the API's form (upstream's {@code internal/managedfields.go}).
 */
final class ManagedFields {
  static final String APPLY = "Apply";
  static final String UPDATE = "Update";

  /**
   * What tells entries apart (upstream's manager identifier): the manager, the operation, the
   * subresource, and for an Update the apiVersion (an applier keeps one entry whatever version it
   * applies with, so its apiVersion is null here).
   */
  record Identity(String manager, String operation, String apiVersion, String subresource) {
    /** Upstream's identifier, the JSON of the entry without fields and time; managers sort by it. */
    String json() {
      ObjectNode id = JsonNodeFactory.instance.objectNode();
      if (!manager.isEmpty()) {
        id.put("manager", manager);
      }
      id.put("operation", operation);
      if (apiVersion != null) {
        id.put("apiVersion", apiVersion);
      }
      if (subresource != null) {
        id.put("subresource", subresource);
      }
      return id.toString();
    }

    /** How upstream names the manager in a conflict: {@code "kubectl-scale" with subresource "scale" using apps/v1}. */
    String describe() {
      String name = Values.goQuoted(manager);
      if (subresource != null) {
        name += " with subresource " + Values.goQuoted(subresource);
      }
      return operation.equals(UPDATE) ? name + " using " + apiVersion : name;
    }
  }

  /** One entry: who, at which apiVersion, when it last changed the object, and the fields it owns. */
  record Entry(Identity identity, String apiVersion, Instant time, FieldSet fields) {
    boolean applied() {
      return identity.operation().equals(APPLY);
    }

    Entry withFields(FieldSet newFields) {
      return new Entry(identity, apiVersion, time, newFields);
    }
  }

  private ManagedFields() {}

  /** The identity of an entry; an empty subresource is none. */
  static Identity identity(String manager, String operation, String apiVersion, String subresource) {
    String sub = subresource == null || subresource.isEmpty() ? null : subresource;
    return new Identity(manager == null ? "" : manager, operation, operation.equals(APPLY) ? null : apiVersion, sub);
  }

  /** The entries of an object's {@code metadata.managedFields} (absent or null: none), in order. */
  static Map<Identity, Entry> decode(JsonNode managedFields) {
    Map<Identity, Entry> entries = new LinkedHashMap<>();
    if (managedFields == null || managedFields.isNull()) {
      return entries;
    }
    if (!managedFields.isArray()) {
      throw new IllegalArgumentException("metadata.managedFields must be a list");
    }
    for (int i = 0; i < managedFields.size(); i++) {
      Entry entry = decode(managedFields.get(i), i);
      entries.put(entry.identity(), entry);
    }
    return entries;
  }

  private static Entry decode(JsonNode entry, int index) {
    String at = "metadata.managedFields[" + index + "]: ";
    if (!entry.isObject()) {
      throw new IllegalArgumentException(at + "an entry must be an object");
    }
    String operation = entry.path("operation").asText("");
    if (!operation.equals(APPLY) && !operation.equals(UPDATE)) {
      throw new IllegalArgumentException(at + "operation must be `Apply` or `Update`");
    }
    String apiVersion = entry.path("apiVersion").asText("");
    if (apiVersion.isEmpty()) {
      throw new IllegalArgumentException(at + "apiVersion must not be empty");
    }
    String fieldsType = entry.path("fieldsType").asText("");
    if (fieldsType.isEmpty()) {
      throw new IllegalArgumentException(at + "missing fieldsType in managed fields entry " + index);
    }
    if (!fieldsType.equals("FieldsV1")) {
      throw new IllegalArgumentException(at + "invalid fieldsType \"" + fieldsType + "\" in managed fields entry " + index);
    }
    Instant time = null;
    JsonNode timeNode = entry.get("time");
    if (timeNode != null && !timeNode.isNull()) {
      try {
        time = Instant.parse(timeNode.asText());
      } catch (DateTimeParseException e) {
        throw new IllegalArgumentException(at + "invalid time " + timeNode, e);
      }
    }
    FieldSet fields;
    try {
      fields = FieldSet.fromFieldsV1(entry.get("fieldsV1"));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(at + "error decoding fieldsV1: " + e.getMessage(), e);
    }
    Identity identity = identity(entry.path("manager").asText(""), operation, apiVersion,
        entry.path("subresource").asText(""));
    return new Entry(identity, apiVersion, time, fields);
  }

  /** The API form, in upstream's order: Apply before Update, then oldest first, then by manager, apiVersion, subresource. */
  static ArrayNode encode(Map<Identity, Entry> entries) {
    List<Entry> sorted = new ArrayList<>(entries.values());
    sorted.sort(Comparator.comparing((Entry e) -> e.identity().operation())
        .thenComparingLong(e -> e.time() == null ? 0 : e.time().getEpochSecond())
        .thenComparing(e -> e.identity().manager(), Values::compareStrings)
        .thenComparing(Entry::apiVersion, Values::compareStrings)
        .thenComparing(e -> e.identity().subresource() == null ? "" : e.identity().subresource(), Values::compareStrings));
    ArrayNode out = JsonNodeFactory.instance.arrayNode();
    for (Entry entry : sorted) {
      ObjectNode json = out.addObject();
      if (!entry.identity().manager().isEmpty()) {
        json.put("manager", entry.identity().manager());
      }
      json.put("operation", entry.identity().operation());
      json.put("apiVersion", entry.apiVersion());
      if (entry.time() != null) {
        json.put("time", entry.time().truncatedTo(ChronoUnit.SECONDS).toString());
      }
      json.put("fieldsType", "FieldsV1");
      json.set("fieldsV1", entry.fields().toFieldsV1());
      if (entry.identity().subresource() != null) {
        json.put("subresource", entry.identity().subresource());
      }
    }
    return out;
  }

  /**
   * At most {@code max} Update entries: the oldest are merged, per apiVersion, into an
   * {@code ancient-changes} entry that takes the time of the newest entry merged into it
   * (upstream's capmanagers.go). Apply entries are never merged.
   */
  static void capUpdates(Map<Identity, Entry> entries, int max) {
    List<Entry> updaters = new ArrayList<>(entries.values().stream().filter(e -> !e.applied()).toList());
    if (updaters.size() <= max) {
      return;
    }
    updaters.sort(Comparator.comparingLong((Entry e) -> e.time() == null ? 0 : e.time().getEpochSecond())
        .thenComparing(e -> e.identity().json()));
    Map<String, Identity> firstOfVersion = new HashMap<>();
    int length = updaters.size();
    for (int i = 0; i < updaters.size() && length > max; i++) {
      Entry entry = updaters.get(i);
      String version = entry.apiVersion();
      Identity bucket = new Identity("ancient-changes", UPDATE, version, null);
      Identity first = firstOfVersion.get(version);
      if (first == null) {
        firstOfVersion.put(version, entry.identity());
        continue;
      }
      if (!entries.containsKey(bucket)) {
        entries.put(bucket, new Entry(bucket, version, null, entries.remove(first).fields()));
      }
      if (entry.identity().equals(bucket)) {
        continue;
      }
      Entry merged = entries.get(bucket);
      entries.put(bucket, new Entry(bucket, version, entry.time(), merged.fields().union(entry.fields())));
      entries.remove(entry.identity());
      length--;
    }
  }
}
