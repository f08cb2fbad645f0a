package io.ordinal.store;

import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.micronaut.data.annotation.Query;
import io.micronaut.data.jdbc.annotation.JdbcRepository;
import io.micronaut.data.model.query.builder.sql.Dialect;
import io.micronaut.data.repository.CrudRepository;
import jakarta.inject.Singleton;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * Namespaces. Every valid name is a namespace (implicitly, with no labels); one that was created or
 * labelled through the API has a row keeping its labels and annotations, which choose, for one,
 * its Pod Security levels. A deleted one keeps its row, Terminating, until all it held is gone.
 */
@Singleton
public class NamespaceStore {
  /** Upstream's immutable label, set on every namespace. */
  public static final String NAME_LABEL = "kubernetes.io/metadata.name";

  @JdbcRepository(dialect = Dialect.POSTGRES)
  public interface Rows extends CrudRepository<NamespaceRow, String> {
    @Query("""
        INSERT INTO namespaces (name, uid, object, created_at, resource_version)
        VALUES (:name, :uid, :object, :createdAt, 1) ON CONFLICT (name) DO NOTHING""")
    long insertIfAbsent(String name, String uid, String object, Instant createdAt);

    @Query("""
        UPDATE namespaces SET object = :object, resource_version = resource_version + 1
        WHERE name = :name AND resource_version = :expected""")
    long updateIfVersion(String name, long expected, String object);

    List<NamespaceRow> listOrderByName();

    @Query("""
        UPDATE namespaces SET deletion_timestamp = :at, resource_version = resource_version + 1
        WHERE name = :name AND deletion_timestamp IS NULL""")
    long markDeleting(String name, Instant at);

    @Query("""
        INSERT INTO namespaces (name, uid, object, created_at, resource_version, deletion_timestamp)
        VALUES (:name, :uid, :object, :at, 1, :at) ON CONFLICT (name) DO NOTHING""")
    long insertDeleting(String name, String uid, String object, Instant at);

    @Query("SELECT name FROM namespaces WHERE deletion_timestamp IS NOT NULL ORDER BY name")
    List<String> listTerminatingNames();
  }

  private final Rows rows;

  public NamespaceStore(Rows rows) {
    this.rows = rows;
  }

  /** The stored namespace, if it has a row. */
  public Optional<Namespace> find(String name) {
    return rows.findById(name).map(NamespaceStore::toObject);
  }

  /** The namespace as read: its row, or the implicit namespace of that name. */
  public Namespace get(String name) {
    return find(name).orElseGet(() -> implicit(name));
  }

  /** Its labels ({@code kubernetes.io/metadata.name} included). */
  public Map<String, String> labels(String name) {
    Map<String, String> labels = get(name).getMetadata().getLabels();
    return labels == null ? Map.of() : labels;
  }

  public List<Namespace> listStored() {
    return rows.listOrderByName().stream().map(NamespaceStore::toObject).toList();
  }

  /** Creates the row; false if it exists. */
  public boolean create(Namespace namespace) {
    String name = namespace.getMetadata().getName();
    return rows.insertIfAbsent(name, UUID.randomUUID().toString(), KubeJson.write(stripped(namespace)), Instant.now()) > 0;
  }

  /**
   * Writes labels and annotations if the namespace is still at {@code expectedVersion} (an implicit
   * namespace is at version 0: its row is created). False on a conflict.
   */
  public boolean update(Namespace namespace, long expectedVersion) {
    String name = namespace.getMetadata().getName();
    String object = KubeJson.write(stripped(namespace));
    if (expectedVersion == 0) {
      return rows.insertIfAbsent(name, UUID.randomUUID().toString(), object, Instant.now()) > 0;
    }
    return rows.updateIfVersion(name, expectedVersion, object) > 0;
  }

  public void delete(String name) {
    rows.deleteById(name);
  }

  /** Whether {@code name} is being deleted (Terminating). */
  public boolean terminating(String name) {
    return rows.findById(name).map(NamespaceRow::terminating).orElse(false);
  }

  /** The namespaces being deleted. */
  public List<String> listTerminating() {
    return rows.listTerminatingNames();
  }

  /**
   * Marks the namespace deleted: Terminating from now on. An implicit one (no row) gets its row here,
   * as it is when read. Returns it as it is now.
   */
  public Namespace markTerminating(String name) {
    Instant now = Instant.now();
    if (rows.markDeleting(name, now) == 0) {
      rows.insertDeleting(name, UUID.randomUUID().toString(), KubeJson.write(stripped(implicit(name))), now);
    }
    return get(name);
  }

  /** An implicit namespace: no row, version 0. */
  public static Namespace implicit(String name) {
    Namespace namespace = new NamespaceBuilder().withNewMetadata().withName(name).endMetadata().build();
    return complete(namespace, null, null, 0);
  }

  static Namespace toObject(NamespaceRow row) {
    Namespace namespace = complete(KubeJson.read(row.object(), Namespace.class), row.uid(), row.createdAt(),
        row.resourceVersion());
    if (row.terminating()) {
      namespace.getMetadata().setDeletionTimestamp(KubeJson.timestamp(row.deletionTimestamp()));
      namespace.getStatus().setPhase("Terminating");
    }
    return namespace;
  }

  /** Only what a user sets is stored: name, labels, annotations. */
  private static Namespace stripped(Namespace namespace) {
    ObjectMeta meta = namespace.getMetadata();
    Map<String, String> labels = new LinkedHashMap<>(meta.getLabels() == null ? Map.of() : meta.getLabels());
    labels.remove(NAME_LABEL);
    return new NamespaceBuilder().withNewMetadata().withName(meta.getName())
        .withLabels(labels.isEmpty() ? null : labels).withAnnotations(meta.getAnnotations())
        .withManagedFields(meta.getManagedFields()).endMetadata().build();
  }

  private static Namespace complete(Namespace namespace, String uid, Instant createdAt, long version) {
    ObjectMeta meta = namespace.getMetadata();
    Map<String, String> labels = new LinkedHashMap<>(meta.getLabels() == null ? Map.of() : meta.getLabels());
    labels.put(NAME_LABEL, meta.getName());
    meta.setLabels(labels);
    meta.setUid(uid);
    meta.setCreationTimestamp(createdAt == null ? null : KubeJson.timestamp(createdAt));
    meta.setResourceVersion(Long.toString(version));
    namespace.setApiVersion("v1");
    namespace.setKind("Namespace");
    namespace.setSpec(new io.fabric8.kubernetes.api.model.NamespaceSpec(List.of("kubernetes")));
    namespace.setStatus(new io.fabric8.kubernetes.api.model.NamespaceStatus(null, "Active"));
    return namespace;
  }
}
