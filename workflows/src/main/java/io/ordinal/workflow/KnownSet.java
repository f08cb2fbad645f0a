package io.ordinal.workflow;

import io.ordinal.model.PodSnapshot;
import io.ordinal.model.SetKey;
import io.ordinal.model.SetSnapshot;
import io.ordinal.model.SetStatus;
import io.ordinal.workflow.SetActivities.ChangesRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What a workflow run knows of its set's pods between steps: each step reads only what changed since
 * the last ({@link SetChanges}) and merges it here, then computes what a complete observation would
 * have said (status, history pruning due). Built only from activity results and workflow time, so
 * replay rebuilds it. A run starts with a complete reading, and reads completely again every
 * {@link #COMPLETE_READING_EVERY}, which repairs whatever an incremental reading could have missed.
 */
public final class KnownSet {
  static final Duration COMPLETE_READING_EVERY = Duration.ofMinutes(1);
  private static final Object FOREIGN = "foreign";

  private final SetKey key;
  private final TreeMap<Integer, PodSnapshot> pods = new TreeMap<>();
  /** Ordinals whose pod name a pod the set does not control holds. */
  private final TreeSet<Integer> foreign = new TreeSet<>();
  private long version;
  private String uid;
  private long generation;
  private boolean deleting;
  /** When the last complete reading was merged; negative before the first. */
  private long completeAtMillis = -1;

  public KnownSet(SetKey key) {
    this.key = key;
  }

  /** Ordinals the last complete reading found otherwise than the incremental ones had said. */
  private List<Integer> missed = List.of();

  /** What the next reading asks for: everything when a complete one is due, else what changed since the last. */
  ChangesRequest nextRequest(long nowMillis) {
    boolean completeDue = completeAtMillis < 0 || nowMillis - completeAtMillis >= COMPLETE_READING_EVERY.toMillis();
    return new ChangesRequest(key, version, uid, generation, deleting, completeDue);
  }

  /**
   * The ordinals the last reading, a complete one, found otherwise than the readings before it had
   * said, though they had not changed since: what the incremental readings missed (none, unless the
   * store's versions lie). Empty after any other reading.
   */
  public List<Integer> missed() {
    return missed;
  }

  /** Merges a reading and says what a complete observation at {@code nowMillis} would have. */
  public Observation apply(SetChanges read, long nowMillis) {
    if (read.revisionMissing()) {
      return new Observation(null, null, true, false, false, false);
    }
    SetSnapshot set = read.set();
    if (!set.exists()) {
      pods.clear();
      foreign.clear();
      completeAtMillis = -1;
      return new Observation(set, null, false, false, false, false);
    }
    missed = read.complete() && read.changedSince() != null && completeAtMillis >= 0 ? missedBy(read) : List.of();
    if (read.complete()) {
      pods.clear();
      foreign.clear();
      completeAtMillis = nowMillis;
    }
    read.goneOrdinals().forEach(ordinal -> {
      pods.remove(ordinal);
      foreign.remove(ordinal);
    });
    set.pods().forEach(pod -> {
      foreign.remove(pod.ordinal());
      pods.put(pod.ordinal(), pod);
    });
    set.foreignOrdinals().forEach(ordinal -> {
      pods.remove(ordinal);
      foreign.add(ordinal);
    });
    version = read.version();
    uid = read.uid();
    generation = set.generation();
    deleting = set.deleting();

    List<PodSnapshot> all = List.copyOf(pods.values());
    SetStatus status = SetStatus.compute(set.generation(), set.minReadySeconds(), set.rollingUpdate(), set.replicas(),
        read.storedCurrentRevision(), set.updateRevision(), read.collisionCount(), all, nowMillis);
    SetSnapshot known = set.withPods(all, status.currentRevision()).withForeignOrdinals(List.copyOf(foreign));
    if (read.withHooks()) {
      Set<Integer> members = new TreeSet<>(set.members());
      members.addAll(pods.keySet());
      known = known.withMembership(set.hooks(), new ArrayList<>(members), set.heldHook());
    }
    Set<String> live = new HashSet<>(Observation.liveRevisions(known));
    long prunable = read.revisions().stream().filter(revision -> !live.contains(revision)).count();
    SetStatus stored = read.storedStatus();
    return new Observation(known, status, false, !status.equals(stored), prunable > Math.max(0, read.revisionHistoryLimit()),
        stored == null || stored.observedGeneration() != status.observedGeneration(), read.node());
  }

  /** Ordinals a complete reading sees otherwise than known, among those it says did not change. */
  private List<Integer> missedBy(SetChanges complete) {
    Map<Integer, Object> now = new TreeMap<>();
    complete.set().pods().forEach(pod -> now.put(pod.ordinal(), pod));
    complete.set().foreignOrdinals().forEach(ordinal -> now.put(ordinal, FOREIGN));
    Set<Integer> ordinals = new TreeSet<>(now.keySet());
    ordinals.addAll(pods.keySet());
    ordinals.addAll(foreign);
    ordinals.removeAll(complete.changedSince());
    List<Integer> differing = new ArrayList<>();
    for (int ordinal : ordinals) {
      Object before = foreign.contains(ordinal) ? FOREIGN : pods.get(ordinal);
      if (!Objects.equals(before, now.get(ordinal))) {
        differing.add(ordinal);
      }
    }
    return differing;
  }
}
