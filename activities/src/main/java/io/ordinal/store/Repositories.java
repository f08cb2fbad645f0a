package io.ordinal.store;

import io.micronaut.core.annotation.Nullable;
import io.micronaut.data.annotation.Query;
import io.micronaut.data.jdbc.annotation.JdbcRepository;
import io.micronaut.data.model.query.builder.sql.Dialect;
import io.micronaut.data.repository.CrudRepository;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

/** Micronaut Data repositories, one per table. */
public final class Repositories {
  /**
   * What a new row's resource_version is written as: the database's trigger (V4__watch_log.sql)
   * replaces it with the next version, under the lock that keeps versions in commit order.
   */
  public static final long VERSION_ASSIGNED_BY_DATABASE = 0;

  private Repositories() {}

  @JdbcRepository(dialect = Dialect.POSTGRES)
  public interface StatefulSets extends CrudRepository<StatefulSetRow, String> {
    List<StatefulSetRow> findByNamespaceOrderByName(String namespace);

    List<StatefulSetRow> listOrderById();

    List<StatefulSetRow> findByNamespaceAndDeletedInBackgroundOrderByName(String namespace, boolean deletedInBackground);

    List<StatefulSetRow> findByDeletedInBackgroundOrderById(boolean deletedInBackground);

    /**
     * Optimistic concurrency: writes only when the stored resourceVersion is still {@code expected}
     * (the trigger gives the row its next one).
     */
    @Query("""
        UPDATE statefulsets SET object = :object, generation = :generation, deletion_timestamp = :deletionTimestamp
        WHERE id = :id AND resource_version = :expected""")
    long updateIfVersion(String id, long expected, String object, long generation, @Nullable Instant deletionTimestamp);

    /** Creates the row unless one with this id exists; returns the number of rows inserted. */
    @Query("""
        INSERT INTO statefulsets (id, namespace, name, uid, resource_version, generation, created_at, object)
        VALUES (:id, :namespace, :name, :uid, 0, 1, :createdAt, :object)
        ON CONFLICT (id) DO NOTHING""")
    long insertIfAbsent(String id, String namespace, String name, String uid, Instant createdAt, String object);

    /** The first deletion decides: a set already being deleted keeps its timestamp and policy. */
    @Query("""
        UPDATE statefulsets SET deletion_timestamp = :deletionTimestamp, deleted_in_background = :inBackground
        WHERE id = :id AND deletion_timestamp IS NULL""")
    long markDeleting(String id, Instant deletionTimestamp, boolean inBackground);

    @Query("UPDATE statefulsets SET status = :status WHERE id = :id")
    long updateStatus(String id, String status);

    @Query("""
        UPDATE statefulsets SET status = :status
        WHERE id = :id AND resource_version = :expected""")
    long updateStatusIfVersion(String id, String status, long expected);

    /** Not part of the object: no new resourceVersion. */
    @Query("UPDATE statefulsets SET active_operation = :operation WHERE id = :id")
    long updateActiveOperation(String id, String operation);

    @Query("SELECT active_operation FROM statefulsets WHERE id = :id")
    Optional<String> findActiveOperationById(String id);

    /** The namespaces something lives in (namespaces are implicit: there is no table of them). */
    @Query("""
        SELECT namespace FROM statefulsets UNION SELECT namespace FROM pods
        UNION SELECT namespace FROM persistent_volume_claims UNION SELECT namespace FROM events""")
    List<String> namespacesInUse();
  }

  /** The controller outbox (V11): written in a spec change's transaction, drained after it commits. */
  @JdbcRepository(dialect = Dialect.POSTGRES)
  public interface ControllerOutbox extends CrudRepository<OutboxRow, Long> {
    @Query("""
        INSERT INTO controller_outbox (namespace, name, generation, requested_by, traceparent)
        VALUES (:namespace, :name, :generation, :requestedBy, :traceparent)""")
    void enqueue(String namespace, String name, long generation, @Nullable String requestedBy,
        @Nullable String traceparent);

    @Query("SELECT * FROM controller_outbox ORDER BY id LIMIT :limit")
    List<OutboxRow> oldest(int limit);

    /** The set's rows up to {@code upTo}: its controller was told of the newest of them. */
    @Query("DELETE FROM controller_outbox WHERE namespace = :namespace AND name = :name AND id <= :upTo")
    long sent(String namespace, String name, long upTo);
  }

  @JdbcRepository(dialect = Dialect.POSTGRES)
  public interface ControllerRevisions extends CrudRepository<ControllerRevisionRow, String> {
    List<ControllerRevisionRow> findByNamespaceAndSetNameOrderByRevision(String namespace, String setName);

    List<ControllerRevisionRow> findByNamespaceOrderByName(String namespace);

    List<ControllerRevisionRow> listOrderById();

    /** Stores a new revision unless one of that name exists (a concurrent writer made it): 0 then. */
    @Query("""
        INSERT INTO controller_revisions (id, namespace, name, set_name, uid, revision, template, created_at,
          resource_version, change_cause, updated_at, rolled_back, member_overrides)
        VALUES (:id, :namespace, :name, :setName, :uid, :revision, :template, :now, 0,
          :changeCause, :now, FALSE, :memberOverrides)
        ON CONFLICT (id) DO NOTHING""")
    long insertIfAbsent(String id, String namespace, String name, String setName, String uid, long revision,
        String template, @Nullable String memberOverrides, @Nullable String changeCause, Instant now);

    /** Brings an older revision back as the newest: a rollback. */
    @Query("""
        UPDATE controller_revisions SET revision = :revision, rolled_back = TRUE, updated_at = :now,
          change_cause = COALESCE(:changeCause, change_cause)
        WHERE id = :id""")
    long renumber(String id, long revision, @Nullable String changeCause, Instant now);

    void deleteByNamespaceAndSetName(String namespace, String setName);
  }

  @JdbcRepository(dialect = Dialect.POSTGRES)
  public interface Pods extends CrudRepository<PodRow, String> {
    List<PodRow> findByNamespaceAndSetNameOrderByOrdinal(String namespace, String setName);

    List<PodRow> findByNamespaceAndSetNameAndResourceVersionGreaterThanOrderByOrdinal(String namespace, String setName,
        long resourceVersion);

    List<PodRow> findByNamespaceAndSetNameAndOrdinalInListOrderByOrdinal(String namespace, String setName,
        Collection<Integer> ordinal);

    /** The newest resourceVersion the transaction sees (what the watch log holds, or its compaction mark). */
    @Query("""
        SELECT GREATEST((SELECT max(resource_version) FROM watch_log), c.resource_version)
        FROM watch_compaction c""")
    long currentVersion();

    /** Changes at or below it are no longer in the watch log. */
    @Query("SELECT resource_version FROM watch_compaction")
    long compactedVersion();

    /** The ordinals of a set's pods (or claims: {@code resource}) deleted after {@code since}, from the watch log. */
    @Query("""
        SELECT DISTINCT CAST(row ->> 'ordinal' AS INT) FROM watch_log
        WHERE type = 'DELETED' AND namespace = :namespace AND resource_version > :since
          AND resource = :resource AND row ->> 'set_name' = :setName""")
    List<Integer> deletedOrdinals(String resource, String namespace, String setName, long since);

    List<PodRow> findByNamespaceOrderByName(String namespace);

    /**
     * The pods of a namespace (all when null) whose labels include {@code labels} (a JSON object):
     * a list by label selector reads only the candidates, not every pod of the namespace.
     */
    @Query("""
        SELECT * FROM pods
        WHERE (CAST(:namespace AS TEXT) IS NULL OR namespace = :namespace)
          AND (CAST(object AS jsonb) -> 'metadata' -> 'labels') @> CAST(:labels AS jsonb)
        ORDER BY id""")
    List<PodRow> findLabelled(@Nullable String namespace, String labels);

    List<PodRow> listOrderById();

    List<PodRow> findByDriver(String driver);

    @Query("""
        UPDATE pods SET phase = :phase, ready = :ready, ready_since = :readySince, started_at = :startedAt,
          message = :message
        WHERE id = :id AND uid = :uid""")
    long updateStatus(String id, String uid, String phase, boolean ready, @Nullable Instant readySince,
        @Nullable Instant startedAt, @Nullable String message);

    /** Status as reported by a driver that runs real containers. */
    @Query("""
        UPDATE pods SET phase = :phase, ready = :ready, ready_since = :readySince, started_at = :startedAt,
          message = :message, pod_ip = :podIp, container_statuses = :containerStatuses
        WHERE id = :id AND uid = :uid""")
    long updateRuntimeStatus(String id, String uid, String phase, boolean ready, @Nullable Instant readySince,
        @Nullable Instant startedAt, @Nullable String message, @Nullable String podIp,
        @Nullable String containerStatuses);

    /**
     * {@link #updateRuntimeStatus} of the pod as it was read, at {@code revision}: a status read from
     * before an in-place update was stored must not make the updated pod Ready.
     */
    @Query("""
        UPDATE pods SET phase = :phase, ready = :ready, ready_since = :readySince, started_at = :startedAt,
          message = :message, pod_ip = :podIp, container_statuses = :containerStatuses
        WHERE id = :id AND uid = :uid AND revision = :revision""")
    long updateRuntimeStatusAt(String id, String uid, String revision, String phase, boolean ready,
        @Nullable Instant readySince, @Nullable Instant startedAt, @Nullable String message, @Nullable String podIp,
        @Nullable String containerStatuses);

    @Query("""
        UPDATE pods SET deletion_timestamp = :deletionTimestamp
        WHERE id = :id AND uid = :uid AND deletion_timestamp IS NULL""")
    long markTerminating(String id, String uid, Instant deletionTimestamp);

    @Query("UPDATE pods SET object = :object WHERE id = :id AND uid = :uid")
    long updateObject(String id, String uid, String object);

    /** An in-place update: the pod at {@code revision}, unready until its restarted containers are Ready. */
    @Query("""
        UPDATE pods SET object = :object, revision = :revision, ready = false, ready_since = NULL
        WHERE id = :id AND uid = :uid AND revision = :from AND resource_version = :version
          AND deletion_timestamp IS NULL""")
    long updateInPlace(String id, String uid, String from, long version, String revision, String object);

    /** Optimistic concurrency for writes through the API: only while the pod is at {@code expected}. */
    @Query("UPDATE pods SET object = :object WHERE id = :id AND resource_version = :expected")
    long updateObjectIfVersion(String id, long expected, String object);

    @Query("DELETE FROM pods WHERE id = :id AND uid = :uid")
    long deleteByIdAndUid(String id, String uid);
  }

  @JdbcRepository(dialect = Dialect.POSTGRES)
  public interface PodAddresses extends CrudRepository<PodAddressRow, String> {
    List<PodAddressRow> findByNamespaceOrderByPodName(String namespace);

    @Query("SELECT ip FROM pod_addresses")
    List<String> listIp();

    void deleteByNamespaceAndSetName(String namespace, String setName);
  }

  @JdbcRepository(dialect = Dialect.POSTGRES)
  public interface Pvcs extends CrudRepository<PvcRow, String> {
    List<PvcRow> findByNamespaceOrderByName(String namespace);

    List<PvcRow> findByNamespaceAndSetNameOrderByName(String namespace, String setName);

    List<PvcRow> findByNamespaceAndSetNameAndResourceVersionGreaterThan(String namespace, String setName,
        long resourceVersion);

    List<PvcRow> findByNamespaceAndSetNameAndOrdinalInListOrderByName(String namespace, String setName,
        Collection<Integer> ordinal);

    /**
     * The set's claims that may have to go (deleted by a user, or with an owner reference, which a pod
     * owner needs): the candidates of claimsToDelete, without reading every claim.
     */
    @Query("""
        SELECT * FROM persistent_volume_claims
        WHERE namespace = :namespace AND set_name = :setName
          AND (deletion_timestamp IS NOT NULL OR object LIKE '%"ownerReferences"%')
        ORDER BY name""")
    List<PvcRow> findDeletionCandidates(String namespace, String setName);

    List<PvcRow> listOrderById();

    /** Writes the object of that incarnation ({@code uid}) of the claim; 0 when it is gone. */
    @Query("UPDATE persistent_volume_claims SET object = :object WHERE id = :id AND uid = :uid")
    long updateObject(String id, String uid, String object);

    @Query("UPDATE persistent_volume_claims SET deletion_timestamp = :at, object = :object"
        + " WHERE id = :id AND uid = :uid AND deletion_timestamp IS NULL")
    long markDeleting(String id, String uid, Instant at, String object);

    @Query("DELETE FROM persistent_volume_claims WHERE id = :id AND uid = :uid")
    long deleteByIdAndUid(String id, String uid);
  }

  @JdbcRepository(dialect = Dialect.POSTGRES)
  public interface Events extends CrudRepository<EventRow, Long> {
    List<EventRow> findByNamespaceOrderById(String namespace);

    Optional<EventRow> findByNamespaceAndName(String namespace, String name);

    List<EventRow> listOrderById();
  }

  @JdbcRepository(dialect = Dialect.POSTGRES)
  public interface ApiTokens extends CrudRepository<ApiTokenRow, String> {
    @Query("UPDATE api_tokens SET revoked_at = :revokedAt WHERE id = :id AND revoked_at IS NULL")
    long revoke(String id, Instant revokedAt);
  }
}
