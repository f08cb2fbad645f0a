package io.ordinal.planner;

import io.ordinal.model.PodSnapshot;
import io.ordinal.model.SetSnapshot;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Decides the next step for a set: a pure function of an observed snapshot and the time.
 *
 * <p>It follows upstream's {@code updateStatefulSet} (seed 003): ordinals [0, replicas) are created
 * in order, failed pods are replaced, and ordinals at or above replicas ("condemned") are deleted
 * from the highest down. Under OrderedReady ("monotonic") each pass stops at the first pod that is
 * created, deleted, terminating or not yet available; under Parallel it goes on to the next pod.
 */
public final class Planner {

  private Planner() {}

  public static Plan plan(SetSnapshot set, long nowMillis) {
    if (!set.exists()) {
      return Plan.done();
    }
    if (set.deleting()) {
      return planDeletion(set);
    }
    boolean monotonic = !set.parallel();
    Map<Integer, PodSnapshot> byOrdinal = new TreeMap<>();
    List<PodSnapshot> condemned = new ArrayList<>();
    for (PodSnapshot pod : set.pods()) {
      if (pod.ordinal() < set.replicas()) {
        byOrdinal.put(pod.ordinal(), pod);
      } else {
        condemned.add(pod);
      }
    }
    condemned.sort(Comparator.comparingInt(PodSnapshot::ordinal));

    List<Action> actions = new ArrayList<>();
    long wakeAt = 0;
    String waitingFor = "";

    for (int ordinal = 0; ordinal < set.replicas(); ordinal++) {
      PodSnapshot pod = byOrdinal.get(ordinal);
      String name = set.key().podName(ordinal);
      if (pod == null) {
        actions.add(new Action.CreatePod(ordinal, revisionFor(set, ordinal)));
        if (monotonic) {
          return new Plan(actions, false, 0, "pod " + name + " to be Running and Ready");
        }
        continue;
      }
      if (pod.terminating()) {
        if (monotonic) {
          return new Plan(actions, false, 0, "pod " + name + " to terminate");
        }
        waitingFor = firstNonEmpty(waitingFor, "pod " + name + " to terminate");
        continue;
      }
      if (pod.finished()) {
        // Upstream deletes a Failed/Succeeded pod and recreates it under the same identity;
        // the create follows once the old pod is fully gone.
        actions.add(new Action.DeletePod(ordinal, name, "pod is " + pod.phase()));
        if (monotonic) {
          return new Plan(actions, false, 0, "pod " + name + " to be recreated");
        }
        continue;
      }
      if (!pod.healthy() && set.rollingUpdate() && !set.rollout().paused()
          && !pod.revision().equals(revisionFor(set, ordinal))) {
        // Forced rollback (seed 000's known issue, fixed here): an unhealthy pod from a revision that
        // is no longer the target is replaced instead of waited on, so a bad template that was
        // reverted never leaves the set stuck.
        actions.add(new Action.DeletePod(ordinal, name, "not ready and not on the target revision"));
        if (monotonic) {
          return new Plan(actions, false, 0, "pod " + name + " to be replaced at revision " + revisionFor(set, ordinal));
        }
        continue;
      }
      if (!pod.runningAndReady()) {
        if (monotonic) {
          return new Plan(actions, false, 0, "pod " + name + " to be Running and Ready");
        }
        waitingFor = firstNonEmpty(waitingFor, "pod " + name + " to be Running and Ready");
        continue;
      }
      if (!pod.available(set.minReadySeconds(), nowMillis)) {
        long availableAt = pod.availableAtMillis(set.minReadySeconds());
        String reason = "pod " + name + " to be Ready for minReadySeconds=" + set.minReadySeconds();
        if (monotonic) {
          return new Plan(actions, false, availableAt, reason);
        }
        wakeAt = wakeAt == 0 ? availableAt : Math.min(wakeAt, availableAt);
        waitingFor = firstNonEmpty(waitingFor, reason);
      }
    }

    // Scale down, highest ordinal first. Under OrderedReady a condemned pod is deleted only when
    // every pod below it is healthy (the [0, replicas) range is known healthy once we get here).
    // Upstream's code only blocks an *unhealthy* target that is not the first unhealthy pod; we
    // follow the documented guarantee ("all of its predecessors must be Running and Ready"), which
    // also holds a healthy target back while a lower condemned pod is unhealthy.
    PodSnapshot firstUnhealthy = condemned.stream().filter(p -> !p.healthy()).findFirst().orElse(null);
    for (int i = condemned.size() - 1; i >= 0; i--) {
      PodSnapshot pod = condemned.get(i);
      if (pod.terminating()) {
        if (monotonic) {
          return new Plan(actions, false, 0, "pod " + pod.name() + " to terminate");
        }
        waitingFor = firstNonEmpty(waitingFor, "pod " + pod.name() + " to terminate");
        continue;
      }
      if (monotonic && firstUnhealthy != null && firstUnhealthy.ordinal() < pod.ordinal()) {
        return new Plan(actions, false, 0, "pod " + firstUnhealthy.name() + " to be healthy before scaling down");
      }
      actions.add(new Action.DeletePod(pod.ordinal(), pod.name(), "scale down"));
      if (monotonic) {
        return new Plan(actions, false, 0, "pod " + pod.name() + " to terminate");
      }
    }

    if (set.rollingUpdate() && actions.isEmpty()) {
      Plan rolling = planRollingUpdate(set, byOrdinal, nowMillis);
      if (rolling != null) {
        return rolling;
      }
    }

    boolean converged = actions.isEmpty() && waitingFor.isEmpty() && wakeAt == 0;
    return new Plan(actions, converged, wakeAt, waitingFor);
  }

  /**
   * RollingUpdate once scaling is done (seed 002, seed 004): pods in [partition, replicas) that are not
   * on the update revision are deleted (and recreated at it by the scale pass) from the highest
   * ordinal down, as many at a time as maxUnavailable allows, counting every unavailable pod in
   * [0, replicas). Returns null when nothing is left to update.
   */
  private static Plan planRollingUpdate(SetSnapshot set, Map<Integer, PodSnapshot> byOrdinal, long nowMillis) {
    List<PodSnapshot> outdated = new ArrayList<>();
    for (int ordinal = set.replicas() - 1; ordinal >= Math.max(0, set.partition()); ordinal--) {
      PodSnapshot pod = byOrdinal.get(ordinal);
      if (pod != null && !pod.terminating() && !pod.revision().equals(set.updateRevision())) {
        outdated.add(pod);
      }
    }
    if (outdated.isEmpty()) {
      return null;
    }
    if (set.rollout().paused()) {
      return new Plan(List.of(), false, 0, "the rollout to be resumed (paused before updating "
          + outdated.getFirst().name() + ")");
    }
    int unavailable = 0;
    for (int ordinal = 0; ordinal < set.replicas(); ordinal++) {
      PodSnapshot pod = byOrdinal.get(ordinal);
      if (pod == null || pod.terminating() || !pod.available(set.minReadySeconds(), nowMillis)) {
        unavailable++;
      }
    }
    int budget = set.maxUnavailable() - unavailable;
    if (budget <= 0) {
      return new Plan(List.of(), false, 0, unavailable + " unavailable pods (maxUnavailable " + set.maxUnavailable()
          + ") before updating " + outdated.getFirst().name());
    }
    List<Action> deletions = new ArrayList<>();
    for (PodSnapshot pod : outdated.subList(0, Math.min(budget, outdated.size()))) {
      deletions.add(new Action.DeletePod(pod.ordinal(), pod.name(), "update to revision " + set.updateRevision()));
    }
    return new Plan(deletions, false, 0, "updated pods to become available");
  }

  /** Set deletion: pods go highest ordinal first, one at a time; the PVCs stay. */
  private static Plan planDeletion(SetSnapshot set) {
    PodSnapshot highest = set.pods().stream().max(Comparator.comparingInt(PodSnapshot::ordinal)).orElse(null);
    if (highest == null) {
      return new Plan(List.of(new Action.FinishDeletion()), false, 0, "the set to be removed");
    }
    if (highest.terminating()) {
      return new Plan(List.of(), false, 0, "pod " + highest.name() + " to terminate");
    }
    return new Plan(
        List.of(new Action.DeletePod(highest.ordinal(), highest.name(), "set deleted")),
        false, 0, "pod " + highest.name() + " to terminate");
  }

  /** True when a pod in [0, replicas) runs another revision than the one its ordinal should run. */
  public static boolean podsOffTarget(SetSnapshot set) {
    return set.pods().stream().anyMatch(pod -> pod.ordinal() < set.replicas() && !pod.terminating()
        && !pod.revision().equals(revisionFor(set, pod.ordinal())));
  }

  /**
   * Upstream {@code newVersionedStatefulSetPod}: under RollingUpdate, ordinals below the partition
   * are (re)created at the current revision, the others at the update revision.
   */
  static String revisionFor(SetSnapshot set, int ordinal) {
    if (set.rollingUpdate() && ordinal < set.partition() && set.currentRevision() != null) {
      return set.currentRevision();
    }
    return set.updateRevision();
  }

  private static String firstNonEmpty(String current, String candidate) {
    return current.isEmpty() ? candidate : current;
  }
}
