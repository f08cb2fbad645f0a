package io.ordinal.workflow;

import io.ordinal.model.SetKey;
import io.ordinal.model.SetSnapshot;
import io.ordinal.workflow.PodActivities.PodCreation;
import io.ordinal.workflow.PodActivities.PodDeletion;
import io.ordinal.workflow.SetActivities.HistoryPruning;
import io.ordinal.workflow.SetActivities.StatusPublication;
import io.temporal.workflow.Workflow;

/**
 * The activities one workflow run calls, as the version it started under calls them.
 *
 * <p>Since {@link #NAMED_STEPS} an observation is a read-only {@code Observe}, followed by
 * {@code EnsureRevision} and {@code PruneHistory} only when it found them due, and by
 * {@code PublishStatus} when the status changed: at once for a new generation, else once the step
 * has acted (the next pod does not wait for a count); a pod is made by {@code CreateClaims} then
 * {@code CreatePod}. Runs that started before it
 * (still open in an existing data directory after an upgrade) replay and go on with the old
 * sequence: one {@code Refresh} that did all of that, and claims made inside {@code CreatePod}.
 */
final class Steps {
  static final String NAMED_STEPS = "named-steps";
  private static final int NAMED_STEPS_VERSION = 1;
  /** Ensure-then-observe settles in one pass (two when the template changes meanwhile); more is a bug. */
  private static final int MAX_REVISION_PASSES = 5;

  final SetActivities set = ActivityStubs.local(SetActivities.class);
  final PodActivities pods = ActivityStubs.local(PodActivities.class);
  private final boolean startedBeforeNamedSteps;
  /** The status the last observation computed, until it is published. */
  private StatusPublication unpublished;

  private Steps(boolean startedBeforeNamedSteps) {
    this.startedBeforeNamedSteps = startedBeforeNamedSteps;
  }

  /** Must be the run's first command, as it is in every history recorded since the change. */
  static Steps ofThisRun() {
    int version = Workflow.getVersion(NAMED_STEPS, Workflow.DEFAULT_VERSION, NAMED_STEPS_VERSION);
    return new Steps(version == Workflow.DEFAULT_VERSION);
  }

  /**
   * Observes the set and makes the writes the observation found due: the revision and the history
   * now, the status at {@link #publishStatus}, so that acting on the observation does not wait for it.
   */
  SetSnapshot observe(SetKey key) {
    if (startedBeforeNamedSteps) {
      return set.refresh(key);
    }
    Observation seen = set.observe(key);
    for (int pass = 1; seen.revisionMissing(); pass++) {
      if (pass > MAX_REVISION_PASSES) {
        // Fails the workflow task, which is retried without growing the history.
        throw new IllegalStateException("the revision of " + key + " is still missing after " + pass + " passes");
      }
      set.ensureRevision(key);
      seen = set.observe(key);
    }
    // History is pruned before the status is published, so an observed generation implies its pruning.
    if (seen.historyOverLimit()) {
      set.pruneHistory(new HistoryPruning(key, Observation.liveRevisions(seen.set())));
    }
    unpublished = seen.statusChanged() ? new StatusPublication(key, seen.status()) : null;
    if (seen.newGeneration()) {
      publishStatus(); // a spec change shows as observed at once; counts alone wait for the actions
    }
    return seen.set();
  }

  /**
   * Publishes the status of the last observation, if it changed. An operation calls it after acting
   * and before it ends: status is always what was last observed, at most one step late.
   */
  void publishStatus() {
    if (unpublished != null) {
      set.publishStatus(unpublished);
      unpublished = null;
    }
  }

  void createPod(SetKey key, int ordinal, String revision) {
    PodCreation creation = new PodCreation(key, ordinal, revision);
    if (!startedBeforeNamedSteps) {
      pods.createClaims(creation);
    }
    pods.createPod(creation);
  }

  void deletePod(SetKey key, String podName, String reason) {
    pods.deletePod(new PodDeletion(key, podName, reason));
  }
}
