package io.ordinal.store;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.micronaut.transaction.annotation.Transactional;
import jakarta.inject.Singleton;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
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

  public record Ensured(String name, int collisionCount) {}

  /**
   * Returns the revision of {@code template}: the existing one when its template is equal (given the
   * next revision number unless it already is the newest), else a new one. A hash collision with a
   * different template bumps {@code collisionCount}, which feeds the hash.
   */
  @Transactional
  public Ensured ensure(String namespace, String setName, PodTemplateSpec template, int collisionCount) {
    String data = canonical(template);
    List<ControllerRevisionRow> history = revisions.findByNamespaceAndSetNameOrderByRevision(namespace, setName);
    long newest = history.isEmpty() ? 0 : history.getLast().revision();
    while (true) {
      String name = setName + "-" + hash(data, collisionCount);
      Optional<ControllerRevisionRow> existing = history.stream().filter(r -> r.name().equals(name)).findFirst();
      if (existing.isEmpty()) {
        revisions.save(new ControllerRevisionRow(namespace + "/" + name, namespace, name, setName,
            UUID.randomUUID().toString(), newest + 1, data, Instant.now(), sets.nextResourceVersion()));
        return new Ensured(name, collisionCount);
      }
      if (existing.get().template().equals(data)) {
        if (existing.get().revision() != newest) {
          revisions.updateRevision(existing.get().id(), newest + 1);
        }
        return new Ensured(name, collisionCount);
      }
      collisionCount++;
    }
  }

  public Optional<PodTemplateSpec> template(String namespace, String revisionName) {
    return revisions.findById(namespace + "/" + revisionName).map(r -> KubeJson.read(r.template(), PodTemplateSpec.class));
  }

  static String canonical(PodTemplateSpec template) {
    try {
      // Through plain maps, so that ORDER_MAP_ENTRIES_BY_KEYS applies at every level.
      return CANONICAL.writeValueAsString(CANONICAL.convertValue(template, java.util.Map.class));
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
