package io.ordinal.workflow;

import io.ordinal.model.SetKey;
import io.ordinal.model.SetSnapshot;
import io.ordinal.model.SetStatus;
import java.util.List;

/**
 * What one reading of the store found of a set since an earlier reading ({@link KnownSet} merges
 * it into what the workflow knows): the set's own fields whole, its pods only where they changed.
 * So a step's history marker and its reads grow with what changed, not with the set.
 *
 * @param set the set's fields; {@code pods} and {@code foreignOrdinals} only those whose pod row
 *     changed (or whose claims did) since the request's version, all of them when {@code complete};
 *     {@code members} only the recorded ones (the workflow adds every ordinal that has a pod);
 *     {@code currentRevision} the stored status's (the workflow computes the new one)
 * @param complete every pod was read: what was known before is replaced, not merged
 * @param goneOrdinals ordinals whose pod was deleted since the request's version (empty when complete)
 * @param version the store's resourceVersion this reading is consistent with: the next one reads after it
 * @param uid the set's uid: a set recreated under its name is read completely
 * @param storedStatus the status stored before this reading; null when it has none (or lacks a count)
 * @param storedCurrentRevision the stored status's currentRevision, null for a new set
 * @param collisionCount the hash collisions of the set's revision names
 * @param revisions the names of the set's ControllerRevisions, oldest first
 * @param revisionHistoryLimit {@code spec.revisionHistoryLimit}
 * @param revisionMissing as {@link Observation#revisionMissing}; the rest is meaningless then
 * @param node as {@link Observation#node}
 * @param withHooks the set has membership hooks: its members are the recorded ones and every pod's
 * @param changedSince of a complete reading asked for with a version: the ordinals whose pod or claims
 *     changed (or went) since it, which alone may differ from what the readings until then said; null
 *     when there is nothing to compare with
 */
public record SetChanges(SetSnapshot set, boolean complete, List<Integer> goneOrdinals, long version, String uid,
    SetStatus storedStatus, String storedCurrentRevision, int collisionCount, List<String> revisions,
    int revisionHistoryLimit, boolean revisionMissing, String node, boolean withHooks, List<Integer> changedSince) {

  public SetChanges {
    goneOrdinals = List.copyOf(goneOrdinals);
    revisions = List.copyOf(revisions);
    changedSince = changedSince == null ? null : List.copyOf(changedSince);
  }

  public static SetChanges absent(SetKey key) {
    return new SetChanges(SetSnapshot.absent(key), true, List.of(), 0, null, null, null, 0, List.of(), 0, false, null,
        false, null);
  }

  public static SetChanges missingRevision(SetKey key) {
    return new SetChanges(SetSnapshot.absent(key), true, List.of(), 0, null, null, null, 0, List.of(), 0, true, null,
        false, null);
  }
}
