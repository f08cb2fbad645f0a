package io.ordinal.workflow;

import io.ordinal.model.SetKey;
import io.ordinal.model.SetSnapshot;
import io.ordinal.workflow.PodActivities.ClaimDeletion;
import io.ordinal.workflow.PodActivities.ClaimUpdate;
import io.ordinal.workflow.PodActivities.PodCreation;
import io.ordinal.workflow.PodActivities.PodCreations;
import io.ordinal.workflow.PodActivities.PodDeletion;
import io.ordinal.workflow.PodActivities.PodDeletions;
import io.ordinal.workflow.PodActivities.PodInPlaceUpdate;
import io.ordinal.workflow.SetActivities.HistoryPruning;
import io.ordinal.workflow.SetActivities.StatusPublication;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.workflow.CancellationScope;
import io.temporal.workflow.Promise;
import io.temporal.workflow.TimerOptions;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;

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
 *
 * <p>The same change id numbers later changes of a run's commands, so that no run records more than
 * one version marker: since {@link #CANCELLED_WAIT_TIMERS_VERSION} an operation cancels the timer of
 * a wait that a signal ended first; since {@link #CONTINUES_AS_NEW_ON_BUDGET_VERSION} a run continues
 * as new as soon as its history budget is spent, whatever it is doing: an operation's wait ends for it,
 * and a controller hands its running operation over to its next run instead of waiting for the set to
 * converge; since {@link #FEWER_EVENTS_VERSION} a pod is made by one {@code CreatePod} (its claims
 * first, in the same activity), the pods a plan creates (or deletes) in a row are one {@code
 * CreatePods} ({@code DeletePods}), and a wait keeps the timer of an earlier wait that fires no later
 * than it needs instead of starting and cancelling one each time (two events a step); since {@link
 * #INCREMENTAL_OBSERVATION_VERSION} an observation is an {@code ObserveChanges} that reads only the pods
 * and claims that changed since the last one and records only those, merged into the run's {@link
 * KnownSet} (a complete reading at a run's start and every minute), with status and pruning computed
 * from it in the workflow; and a pod step publishes the status it acts on (no {@code PublishStatus}
 * after it).
 */
final class Steps {
  static final String NAMED_STEPS = "named-steps";
  private static final int NAMED_STEPS_VERSION = 1;
  private static final int CANCELLED_WAIT_TIMERS_VERSION = 2;
  private static final int CONTINUES_AS_NEW_ON_BUDGET_VERSION = 3;
  private static final int FEWER_EVENTS_VERSION = 4;
  private static final int INCREMENTAL_OBSERVATION_VERSION = 5;
  /** Pods a complete reading found otherwise than the incremental readings before it had said. */
  static final String INCREMENTAL_READING_MISSES = "ordinal_incremental_reading_misses";
  private static final Logger log = Workflow.getLogger(Steps.class);
  /** Ensure-then-observe settles in one pass (two when the template changes meanwhile); more is a bug. */
  private static final int MAX_REVISION_PASSES = 5;

  final SetActivities set = ActivityStubs.local(SetActivities.class);
  /** Where the set's pods live, as the last observation said: null for any instance. */
  private String node;
  private SetActivities nodeSet;
  /** This workflow task's worker refused a step as not the set's node: the rest of the plan goes there. */
  private boolean remoteUntilObserved;
  private final boolean startedBeforeNamedSteps;
  private final boolean cancelsWaitTimers;
  private final boolean continuesAsNewOnBudget;
  private final boolean fewerEvents;
  private final boolean incremental;
  /** What the run knows of its set between steps (version 5); made at the first observation. */
  private KnownSet known;
  /** The timer the last wait started (version 4): kept while it fires no later than a wait needs. */
  private Promise<Void> timer;
  private long timerFiresAt;
  private CancellationScope timerScope;
  /** The status the last observation computed, until it is published. */
  private StatusPublication unpublished;

  private Steps(int version) {
    this.startedBeforeNamedSteps = version < NAMED_STEPS_VERSION;
    this.cancelsWaitTimers = version >= CANCELLED_WAIT_TIMERS_VERSION;
    this.continuesAsNewOnBudget = version >= CONTINUES_AS_NEW_ON_BUDGET_VERSION;
    this.fewerEvents = version >= FEWER_EVENTS_VERSION;
    this.incremental = version >= INCREMENTAL_OBSERVATION_VERSION;
  }

  /** Must be the run's first command, as it is in every history recorded since the change. */
  static Steps ofThisRun() {
    return new Steps(Workflow.getVersion(NAMED_STEPS, Workflow.DEFAULT_VERSION, INCREMENTAL_OBSERVATION_VERSION));
  }

  /**
   * Whether this run continues as new once its history budget is spent whatever it is doing. Runs
   * that started before keep their rule: an operation looks at its budget only after a wait, a
   * controller only once its set has converged.
   */
  boolean continuesAsNewOnBudget() {
    return continuesAsNewOnBudget;
  }

  /**
   * Waits until {@code woken} holds or {@code timeout} passes. The SDK's own timed await leaves its
   * timer running when the condition ends the wait (temporalio/sdk-java#2312): every step of an
   * operation then left a timer behind, each firing later as a workflow task of its own (a
   * long operation had nearly one idle workflow task per step). So the timer is cancelled. Its
   * summary ({@code why}) says in the Web UI what it waits for.
   */
  void await(Duration timeout, String why, Supplier<Boolean> woken) {
    if (!cancelsWaitTimers) {
      Workflow.await(timeout, woken);
      return;
    }
    if (woken.get()) {
      return;
    }
    if (fewerEvents) {
      awaitOnStandingTimer(timeout, why, woken);
      return;
    }
    List<Promise<Void>> timer = new ArrayList<>(1);
    TimerOptions summary = TimerOptions.newBuilder().setSummary(why).build();
    CancellationScope scope = Workflow.newCancellationScope(() -> timer.add(Workflow.newTimer(timeout, summary)));
    scope.run();
    Workflow.await(() -> timer.getFirst().isCompleted() || woken.get());
    if (!timer.getFirst().isCompleted()) {
      scope.cancel();
    }
  }

  /**
   * The wait of version 4: a timer still pending that fires no later than {@code timeout} from now
   * serves this wait too (it may end it early: the caller observes and waits again, as after any
   * wake); only a wait that needs an earlier one starts a timer, and cancels the one it supersedes.
   * So a step ended by a pod's signal adds no timer events, where each added a start and a cancel.
   */
  private void awaitOnStandingTimer(Duration timeout, String why, Supplier<Boolean> woken) {
    long firesAt = Workflow.currentTimeMillis() + timeout.toMillis();
    if (timer == null || timer.isCompleted() || timerFiresAt > firesAt) {
      if (timerScope != null && timer != null && !timer.isCompleted()) {
        timerScope.cancel();
      }
      TimerOptions summary = TimerOptions.newBuilder().setSummary(why).build();
      List<Promise<Void>> started = new ArrayList<>(1);
      timerScope = Workflow.newCancellationScope(() -> started.add(Workflow.newTimer(timeout, summary)));
      timerScope.run();
      timer = started.getFirst();
      timerFiresAt = firesAt;
    }
    Promise<Void> waitingOn = timer;
    Workflow.await(() -> waitingOn.isCompleted() || woken.get());
  }

  /**
   * Observes the set and makes the writes the observation found due: the revision and the history
   * now, the status at {@link #publishStatus}, so that acting on the observation does not wait for it.
   */
  SetSnapshot observe(SetKey key) {
    if (startedBeforeNamedSteps) {
      return set.refresh(key);
    }
    Observation seen = read(key);
    for (int pass = 1; seen.revisionMissing(); pass++) {
      if (pass > MAX_REVISION_PASSES) {
        // Fails the workflow task, which is retried without growing the history.
        throw new IllegalStateException("the revision of " + key + " is still missing after " + pass + " passes");
      }
      set.ensureRevision(key);
      seen = read(key);
    }
    placeOn(seen.node());
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

  /** One observation: since version 5 of what changed since the last, merged into what the run knows. */
  private Observation read(SetKey key) {
    if (!incremental) {
      return set.observe(key);
    }
    if (known == null) {
      known = new KnownSet(key);
    }
    long now = Workflow.currentTimeMillis();
    Observation seen = known.apply(set.observeChanges(known.nextRequest(now)), now);
    if (!known.missed().isEmpty()) {
      // The complete reading repaired it; said, because only a store whose versions lie gets here.
      log.warn("{}: the complete reading found pods {} otherwise than the incremental readings had said", key,
          known.missed());
      Workflow.getMetricsScope().tagged(Map.of("namespace", key.namespace(), "statefulset", key.name()))
          .counter(INCREMENTAL_READING_MISSES).inc(known.missed().size());
    }
    return seen;
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

  /**
   * Since version 5 a pod step publishes the status of the observation it acts on, once it has acted:
   * no PublishStatus of its own. Null for earlier versions, which publish it after the step.
   */
  private StatusPublication statusForTheStep() {
    if (!incremental) {
      return null;
    }
    StatusPublication status = unpublished;
    unpublished = null;
    return status;
  }

  /** The stubs of the node the set's pods live on (a set's node never changes, so this is set once). */
  private void placeOn(String observed) {
    remoteUntilObserved = false;
    if (observed != null && !observed.equals(node)) {
      node = observed;
      nodeSet = ActivityStubs.onNode(SetActivities.class, node);
    }
  }

  /**
   * A pod or claim step. Without a node, in this workflow task (a local activity). With one, in this
   * workflow task too when its worker is that node (as always with one instance: no task-queue round
   * trip); a worker on another node refuses it ({@link PodActivities#WRONG_NODE}, recorded like any
   * outcome, so replay takes the same path) and the step goes to the node's task queue, as do the
   * plan's other steps until the next observation.
   */
  private void onNode(String summary, Consumer<PodActivities> step) {
    PodActivities here = ActivityStubs.local(PodActivities.class, summary);
    if (node == null) {
      step.accept(here);
      return;
    }
    if (!remoteUntilObserved) {
      try {
        step.accept(here);
        return;
      } catch (ActivityFailure failure) {
        if (!(failure.getCause() instanceof ApplicationFailure refused && PodActivities.WRONG_NODE.equals(refused.getType()))) {
          throw failure;
        }
        remoteUntilObserved = true;
      }
    }
    step.accept(ActivityStubs.onNode(PodActivities.class, node, summary + " (on node " + node + ")"));
  }

  /** The node whose worker runs the set's hooks; null for any instance. */
  String node() {
    return node;
  }

  /** Finishing a deletion removes volumes and addresses: on the set's node when it has one. */
  Boolean finishDeletion(SetKey key) {
    return (node == null ? set : nodeSet).finishDeletion(key);
  }

  void createPod(SetKey key, int ordinal, String revision) {
    PodCreation creation = new PodCreation(key, ordinal, revision, node, statusForTheStep());
    String pod = key.podName(ordinal);
    if (!startedBeforeNamedSteps && !fewerEvents) {
      onNode("create the claims of " + pod, pods -> pods.createClaims(creation));
    }
    onNode("create pod " + pod + " at revision " + revision, pods -> pods.createPod(creation));
  }

  /** Whether the plan's pod creations (and deletions) in a row are one step ({@link #createPods}). */
  boolean batchesPodSteps() {
    return fewerEvents;
  }

  /** Several pods of the set, in order, as one step (one of them as {@link #createPod}). */
  void createPods(SetKey key, List<PodCreation> creations) {
    if (creations.size() == 1) {
      createPod(key, creations.getFirst().ordinal(), creations.getFirst().revision());
      return;
    }
    List<PodCreation> placed = creations.stream().map(c -> new PodCreation(key, c.ordinal(), c.revision(), node)).toList();
    PodCreations step = new PodCreations(key, placed, node, statusForTheStep());
    onNode("create pods " + String.join(", ", placed.stream().map(c -> key.podName(c.ordinal()) + " at revision "
        + c.revision()).toList()), pods -> pods.createPods(step));
  }

  /** Several pods of the set deleted, in order, as one step. */
  void deletePods(SetKey key, List<PodDeletion> deletions) {
    if (deletions.size() == 1) {
      deletePod(key, deletions.getFirst().podName(), deletions.getFirst().reason());
      return;
    }
    List<PodDeletion> placed = deletions.stream().map(d -> new PodDeletion(key, d.podName(), d.reason(), node)).toList();
    PodDeletions step = new PodDeletions(key, placed, node, statusForTheStep());
    onNode("delete pods " + String.join(", ", placed.stream().map(d -> d.podName() + ": " + d.reason()).toList()),
        pods -> pods.deletePods(step));
  }

  void deletePod(SetKey key, String podName, String reason) {
    PodDeletion step = new PodDeletion(key, podName, reason, node, statusForTheStep());
    onNode("delete pod " + podName + ": " + reason, pods -> pods.deletePod(step));
  }

  void updatePodInPlace(SetKey key, String podName, String revision) {
    PodInPlaceUpdate step = new PodInPlaceUpdate(key, podName, revision, node, statusForTheStep());
    onNode("update pod " + podName + " in place to revision " + revision, pods -> pods.updatePodInPlace(step));
  }

  void updateClaims(SetKey key, int ordinal, String podName) {
    onNode("update the owners of " + podName + "'s claims",
        pods -> pods.updateClaims(new ClaimUpdate(key, ordinal, podName, node)));
  }

  void deleteClaim(SetKey key, String claimName, String reason) {
    onNode("delete claim " + claimName + ": " + reason,
        pods -> pods.deleteClaim(new ClaimDeletion(key, claimName, reason, node)));
  }
}
