package io.ordinal.workflow;

import io.ordinal.model.SetSnapshot;
import io.ordinal.model.SetStatus;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * What one read-only observation saw, and which writes it found due. The workflow makes those
 * writes as steps of their own, so its history shows them where they happen.
 *
 * @param set the snapshot the planner works on; meaningless while {@code revisionMissing}
 * @param status the status computed from what was seen; null while {@code revisionMissing}
 * @param revisionMissing the template has no ControllerRevision yet (or an older one must be
 *     renumbered as the newest): ensure it, then observe again
 * @param statusChanged {@code status} differs from the stored status
 * @param historyOverLimit revisions beyond {@code revisionHistoryLimit} can be pruned
 * @param newGeneration {@code status} observes a generation the stored status does not yet
 * @param node the node that runs the set's pods, whose task queue takes its pod, claim and hook
 *     activities; null when any instance can act on them (a cluster driver, and observations
 *     recorded before nodes existed)
 */
public record Observation(SetSnapshot set, SetStatus status, boolean revisionMissing, boolean statusChanged,
    boolean historyOverLimit, boolean newGeneration, String node) {

  public Observation(SetSnapshot set, SetStatus status, boolean revisionMissing, boolean statusChanged,
      boolean historyOverLimit, boolean newGeneration) {
    this(set, status, revisionMissing, statusChanged, historyOverLimit, newGeneration, null);
  }

  /** The revisions history pruning must keep: the current and update revisions and every pod's. */
  public static List<String> liveRevisions(SetSnapshot set) {
    Set<String> live = new LinkedHashSet<>();
    live.add(set.currentRevision());
    live.add(set.updateRevision());
    set.pods().forEach(pod -> {
      live.add(pod.revision());
      if (pod.labelledRevision() != null) {
        live.add(pod.labelledRevision()); // its template still comes from there (member overrides)
      }
    });
    return List.copyOf(live);
  }
}
