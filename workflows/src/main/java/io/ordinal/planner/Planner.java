package io.ordinal.planner;

import io.ordinal.model.InPlaceUpdates;
import io.ordinal.model.MemberHooks;
import io.ordinal.model.OrdinalRange;
import io.ordinal.model.PodSnapshot;
import io.ordinal.model.SetSnapshot;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * Decides the next step for a set: a pure function of an observed snapshot and the time.
 *
 * <p>It follows upstream's StatefulSet controller ({@code updateStatefulSet}): ordinals [start, start +
 * replicas) ({@code spec.ordinals.start}) are created in order, failed pods are replaced, and ordinals
 * outside that range ("condemned") are deleted from the highest down. Reserved ordinals are left out of
 * the range, which reaches one ordinal further for each ({@link OrdinalRange}): a reserved member goes
 * like a scaled-down one, before the next free ordinal takes its place. Under OrderedReady ("monotonic")
 * each pass stops at the first pod that is created, deleted, terminating or not yet available; under
 * Parallel it goes on to the next pod.
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
    Pass pass = new Pass(set, nowMillis);
    OrdinalRange range = pass.range;
    Map<Integer, PodSnapshot> byOrdinal = new TreeMap<>();
    List<PodSnapshot> condemned = new ArrayList<>();
    for (PodSnapshot pod : set.pods()) {
      if (range.contains(pod.ordinal())) {
        byOrdinal.put(pod.ordinal(), pod);
      } else {
        condemned.add(pod);
      }
    }
    condemned.sort(Comparator.comparingInt(PodSnapshot::ordinal).reversed());

    pass.deleteClaims();
    List<Integer> ordinals = range.ordinals();
    List<Integer> departedMembers = set.hooks().preDelete() == null ? List.of() : set.members().stream()
        .filter(ordinal -> !range.contains(ordinal) && set.pods().stream().noneMatch(p -> p.ordinal() == ordinal))
        .sorted(Comparator.reverseOrder()).toList();
    // Reserved members leave before the ordinals that take their place join: a failed member must be
    // removed before a consensus system accepts a new one (etcd refuses a member add while one is down).
    List<PodSnapshot> reserved = condemned.stream().filter(p -> range.condemnedByReservation(p.ordinal())).toList();
    List<PodSnapshot> scaledAway = condemned.stream().filter(p -> !reserved.contains(p)).toList();
    Map<Boolean, List<Integer>> departed = departedMembers.stream()
        .collect(Collectors.partitioningBy(range::condemnedByReservation));
    pass.reservedLeaving = !reserved.isEmpty() || !departed.get(true).isEmpty();
    if (pass.leaveReserved(reserved, departed.get(true), byOrdinal)
        || pass.runForAll(ordinals, ordinal -> pass.processReplica(ordinal, byOrdinal.get(ordinal)))
        || pass.runForAll(scaledAway, pod -> pass.processCondemned(pod, scaledAway))
        || pass.runForAll(departed.get(false), pass::leaveWithoutPod)) {
      return pass.plan();
    }
    if (set.rollingUpdate() && pass.podActions() == 0) {
      Optional<Plan> rolling = planRollingUpdate(set, ordinals, byOrdinal, nowMillis);
      if (rolling.isPresent()) {
        return rolling.get().after(pass.actions);
      }
    }
    return pass.plan();
  }

  /** The reason a preDelete hook is given when its member's ordinal was reserved (else ScaleDown or Delete). */
  public static final String RESERVED = "Reserved";

  /** The reason of a {@link #replaceInsteadOfWaiting} deletion (its event's message says it too). */
  public static final String FORCED_REPLACEMENT = "not ready and not on the target revision";

  /**
   * Forced rollback, which upstream leaves to a human (its documented known issue): a pod that is not
   * healthy and runs a revision that is no longer its target is replaced instead of waited on, so a
   * bad template that was reverted never leaves the set stuck. A paused rollout replaces nothing.
   * Under a pod update policy, a Running one that can go in place to its target is updated in place
   * instead; under InPlaceOnly one that cannot waits to be deleted by hand.
   */
  static boolean replaceInsteadOfWaiting(SetSnapshot set, PodSnapshot pod) {
    return !pod.healthy() && set.rollingUpdate() && !set.rollout().paused()
        && !pod.revision().equals(revisionFor(set, pod.ordinal()));
  }

  /**
   * What processing one pod leaves the pass with. Under OrderedReady ("monotonic") any step but
   * {@link Next} ends the pass there; under Parallel the pass goes on, remembering what it waits for.
   */
  private sealed interface Step {
    Step NEXT = new Next();

    /** The pod is as it should be: on to the next. */
    record Next() implements Step {}

    /**
     * An action was just planned for the pod; under OrderedReady the next pod waits for its
     * {@code outcome}, which the pod's own change announces.
     */
    record Acted(String outcome) implements Step {}

    /** The pod waits for {@code condition}, which only a change (of a pod, of the spec) brings. */
    record Waits(String condition) implements Step {}

    /** The pod waits for {@code condition}, which holds by itself at {@code atMillis}: a durable timer ends the wait. */
    record WaitsUntil(String condition, long atMillis) implements Step {}
  }

  /**
   * A membership change (a hook, or founding the set) that a pod's action must follow: planned, or
   * held by what it waits for. Membership changes one at a time, and none while a failed hook holds them.
   */
  private sealed interface MembershipChange {
    record Planned() implements MembershipChange {}

    record Held(Step.Waits step) implements MembershipChange {}
  }

  /** One pass of upstream's {@code updateStatefulSet} over a set: the actions and waits it collects. */
  private static final class Pass {
    private final SetSnapshot set;
    private final long nowMillis;
    private final boolean monotonic;
    /** The ordinals the set runs, worked out once for the pass. */
    final OrdinalRange range;
    final List<Action> actions = new ArrayList<>();
    /** What the plan waits for, for humans; empty when nothing. */
    private String waitingFor = "";
    /** When a timer must end the plan's wait, as {@link Plan#wakeAtMillis}: 0 when only a change can. */
    private long wakeAtMillis;
    /** Membership changes one at a time, even under Parallel. */
    private boolean hookPlanned;
    private boolean founded;
    /** Under Parallel with a concurrency, how many more pods may be set on their way in this pass. */
    private int slotsLeft;
    /** A member condemned by its reservation has yet to leave: the ordinals taking reserved places wait. */
    boolean reservedLeaving;

    Pass(SetSnapshot set, long nowMillis) {
      this.set = set;
      this.nowMillis = nowMillis;
      this.monotonic = !set.parallel();
      this.range = set.range();
      long onTheirWay = set.pods().stream().filter(p -> !p.healthy()).count();
      this.slotsLeft = monotonic || set.parallelConcurrency() <= 0 ? Integer.MAX_VALUE
          : (int) Math.max(0, set.parallelConcurrency() - onTheirWay);
    }

    /**
     * Whether one more pod may be set on its way (made, or a healthy one deleted) under the set's
     * parallel concurrency; empty when it may, and the slot is taken.
     */
    Optional<Step> holdForConcurrency(String podName) {
      if (slotsLeft <= 0) {
        return Optional.of(new Step.Waits("fewer than " + set.parallelConcurrency()
            + " pods on their way (parallel concurrency) before " + podName));
      }
      slotsLeft--;
      return Optional.empty();
    }

    /**
     * Upstream {@code runForAll}: processes each item in order. Under OrderedReady the first step that
     * blocks ends the pass (returns true); under Parallel every item is processed.
     */
    <T> boolean runForAll(List<T> items, Function<T, Step> process) {
      for (T item : items) {
        Step step = process.apply(item);
        if (step instanceof Step.Next) {
          continue;
        }
        if (monotonic) {
          waitOnlyFor(step);
          return true;
        }
        alsoWaitFor(step);
      }
      return false;
    }

    /** OrderedReady: the pass ends at this pod, and the plan waits for what the pod waits for. */
    private void waitOnlyFor(Step step) {
      switch (step) {
        case Step.Next next -> {}
        case Step.Acted acted -> waitingFor = acted.outcome();
        case Step.Waits waits -> waitingFor = waits.condition();
        case Step.WaitsUntil until -> {
          waitingFor = until.condition();
          wakeAtMillis = until.atMillis();
        }
      }
    }

    /**
     * Parallel: the pass goes on to the next pod. The plan says the first condition it met, and its
     * timer ends at the earliest time any pod becomes available by itself. An action's outcome needs no
     * remembering: the pod's own change wakes the operation.
     */
    private void alsoWaitFor(Step step) {
      switch (step) {
        case Step.Next next -> {}
        case Step.Acted acted -> {}
        case Step.Waits waits -> waitingFor = waitingFor.isEmpty() ? waits.condition() : waitingFor;
        case Step.WaitsUntil until -> {
          waitingFor = waitingFor.isEmpty() ? until.condition() : waitingFor;
          wakeAtMillis = wakeAtMillis == 0 ? until.atMillis() : Math.min(wakeAtMillis, until.atMillis());
        }
      }
    }

    /** Claims that must go, first: a pod recreated in the same pass gets a new claim from the template. */
    void deleteClaims() {
      for (String claim : set.claimsToDelete()) {
        actions.add(new Action.DeleteClaim(claim, "its owner is gone or it was deleted and is no longer used"));
      }
    }

    int podActions() {
      return (int) actions.stream()
          .filter(a -> a instanceof Action.CreatePod || a instanceof Action.DeletePod || a instanceof Action.RunHook
              || a instanceof Action.UpdatePodInPlace)
          .count();
    }

    /** Upstream {@code processReplica}: an ordinal of the range must have a healthy, available pod. */
    Step processReplica(int ordinal, PodSnapshot pod) {
      String name = set.key().podName(ordinal);
      if (pod != null && pod.claimsStale() && !pod.terminating()) {
        // Upstream fixes the claims' owners of every live replica and goes on (the policy may have changed).
        actions.add(new Action.UpdateClaims(ordinal, name));
      }
      if (pod == null && set.foreignOrdinals().contains(ordinal)) {
        // Upstream's create fails with AlreadyExists and the sync is retried until the name is free.
        return new Step.Waits("pod " + name + ", which this set does not control, to go or be adopted");
      }
      if (pod == null && reservedLeaving && range.replacesReserved(ordinal)) {
        return new Step.Waits("the reserved members to leave before " + name + " takes a place of theirs");
      }
      if (pod == null) {
        Optional<Step> noSlot = holdForConcurrency(name);
        if (noSlot.isPresent()) {
          return noSlot.get();
        }
        if (set.hooks().preCreate() != null && !set.members().contains(ordinal)) {
          MembershipChange joining = set.members().isEmpty() ? found(name)
              : planHook(MemberHooks.PRE_CREATE, ordinal, name, "ScaleUp");
          if (joining instanceof MembershipChange.Held held) {
            return held.step();
          }
        }
        actions.add(new Action.CreatePod(ordinal, revisionFor(set, ordinal)));
        return new Step.Acted("pod " + name + " to be Running and Ready");
      }
      if (pod.terminating()) {
        return new Step.Waits("pod " + name + " to terminate");
      }
      if (pod.finished()) {
        // Upstream deletes a Failed/Succeeded pod and recreates it under the same identity;
        // the create follows once the old pod is fully gone.
        actions.add(new Action.DeletePod(ordinal, name, "pod is " + pod.phase()));
        return new Step.Acted("pod " + name + " to be recreated");
      }
      if (replaceInsteadOfWaiting(set, pod)) {
        String target = revisionFor(set, ordinal);
        if (PodSnapshot.RUNNING.equals(pod.phase()) && target.equals(set.updateRevision())
            && set.inPlace().possibleFrom(pod.revision())) {
          // Its containers restart at the target revision: the same repair as a replacement, in place.
          actions.add(new Action.UpdatePodInPlace(ordinal, name, target));
          return new Step.Acted("pod " + name + " to be Running and Ready at revision " + target);
        }
        if (set.inPlace().only()) {
          return new Step.Waits(waitForDeletionByHand(set, pod).waitingFor());
        }
        actions.add(new Action.DeletePod(ordinal, name, FORCED_REPLACEMENT));
        return new Step.Acted("pod " + name + " to be replaced at revision " + target);
      }
      if (!pod.runningAndReady()) {
        return new Step.Waits("pod " + name + " to be Running and Ready");
      }
      if (!pod.available(set.minReadySeconds(), nowMillis)) {
        return new Step.WaitsUntil("pod " + name + " to be Ready for minReadySeconds=" + set.minReadySeconds(),
            pod.availableAtMillis(set.minReadySeconds()));
      }
      return Step.NEXT;
    }

    /**
     * Upstream {@code processCondemned}: scale down, highest ordinal first ({@code condemned} is in
     * that order). Under OrderedReady a condemned pod is deleted only when every pod below it is
     * healthy (the [0, replicas) range is known healthy once we get here). Upstream's code only
     * blocks an *unhealthy* target that is not the first unhealthy pod; we follow the documented
     * guarantee ("all of its predecessors must be Running and Ready"), which also holds a healthy
     * target back while a lower condemned pod is unhealthy.
     */
    Step processCondemned(PodSnapshot pod, List<PodSnapshot> condemned) {
      if (pod.terminating()) {
        return new Step.Waits("pod " + pod.name() + " to terminate");
      }
      if (monotonic) {
        PodSnapshot firstUnhealthy = condemned.reversed().stream().filter(p -> !p.healthy()).findFirst().orElse(null);
        if (firstUnhealthy != null && firstUnhealthy.ordinal() < pod.ordinal()) {
          return new Step.Waits("pod " + firstUnhealthy.name() + " to be healthy before scaling down");
        }
      }
      boolean reserved = range.condemnedByReservation(pod.ordinal());
      if (pod.healthy()) {
        Optional<Step> noSlot = holdForConcurrency(pod.name());
        if (noSlot.isPresent()) {
          return noSlot.get();
        }
      }
      if (set.hooks().preDelete() != null && set.members().contains(pod.ordinal())) {
        if (planHook(MemberHooks.PRE_DELETE, pod.ordinal(), pod.name(), reserved ? RESERVED : "ScaleDown")
            instanceof MembershipChange.Held held) {
          return held.step();
        }
      }
      if (pod.claimsStale()) {
        // Before the pod goes: with whenScaled: Delete its claims must be owned by it, to go with it.
        actions.add(new Action.UpdateClaims(pod.ordinal(), pod.name()));
      }
      actions.add(new Action.DeletePod(pod.ordinal(), pod.name(),
          reserved ? "ordinal " + pod.ordinal() + " is reserved" : "scale down"));
      return new Step.Acted("pod " + pod.name() + " to terminate");
    }

    /**
     * Members condemned by their reservation go first, highest first, the member whose pod is gone
     * through its preDelete hook too. One that must wait does not end the pass: the range's own pods
     * are still repaired meanwhile. True when, under OrderedReady, one acted (the pass ends there).
     */
    boolean leaveReserved(List<PodSnapshot> reserved, List<Integer> departedReserved,
        Map<Integer, PodSnapshot> byOrdinal) {
      List<Supplier<Step>> leaving = new ArrayList<>();
      reserved.forEach(pod -> leaving.add(() -> processReserved(pod, byOrdinal)));
      departedReserved.forEach(ordinal -> leaving.add(() -> leaveWithoutPod(ordinal)));
      for (Supplier<Step> leave : leaving) {
        Step step = leave.get();
        if (step instanceof Step.Acted && monotonic) {
          waitOnlyFor(step);
          return true;
        }
        alsoWaitFor(step);
      }
      return false;
    }

    /**
     * A reserved member leaves as a condemned one does, but no other reserved member holds it (it may
     * be reserved because it is broken); under OrderedReady only once every ordinal of upstream's
     * range has a healthy pod, so that taking one member out never adds to another's outage.
     */
    Step processReserved(PodSnapshot pod, Map<Integer, PodSnapshot> byOrdinal) {
      if (monotonic && !pod.terminating()) {
        for (int ordinal : range.ordinals()) {
          PodSnapshot other = byOrdinal.get(ordinal);
          if (!range.replacesReserved(ordinal) && (other == null || !other.healthy())) {
            return new Step.Waits("pod " + set.key().podName(ordinal) + " to be healthy before " + pod.name() + " leaves");
          }
        }
      }
      return processCondemned(pod, List.of());
    }

    /** A condemned member whose pod is already gone still leaves through its preDelete hook. */
    Step leaveWithoutPod(int ordinal) {
      String name = set.key().podName(ordinal);
      String reason = range.condemnedByReservation(ordinal) ? RESERVED : "ScaleDown";
      return switch (planHook(MemberHooks.PRE_DELETE, ordinal, name, reason)) {
        case MembershipChange.Planned planned -> new Step.Acted("member " + name + " to have left");
        case MembershipChange.Held held -> held.step();
      };
    }

    /**
     * Plans a membership hook, unless a failed hook holds membership changes (until the set is
     * resumed) or another change was planned first.
     */
    MembershipChange planHook(String hook, int ordinal, String podName, String reason) {
      if (set.heldHook() != null) {
        return new MembershipChange.Held(new Step.Waits("the set to be resumed (" + set.heldHook() + ")"));
      }
      if (hookPlanned) {
        return new MembershipChange.Held(new Step.Waits("the membership change before " + podName));
      }
      hookPlanned = true;
      actions.add(new Action.RunHook(hook, ordinal, podName, reason));
      return new MembershipChange.Planned();
    }

    /** A set without members is founded by one pod, which joins no one; the others join it. */
    MembershipChange found(String podName) {
      if (founded) {
        return new MembershipChange.Held(new Step.Waits("the founding member to be created before " + podName));
      }
      founded = true;
      return new MembershipChange.Planned();
    }

    Plan plan() {
      boolean converged = actions.isEmpty() && waitingFor.isEmpty() && wakeAtMillis == 0;
      return new Plan(actions, converged, wakeAtMillis, waitingFor);
    }
  }

  /**
   * RollingUpdate, once scaling is done, as upstream's rolling update with maxUnavailable: pods of the
   * range from start + partition up that are not on the update revision are deleted (and
   * recreated at it by the scale pass) from the highest ordinal down, as many at a time as
   * maxUnavailable allows, counting every unavailable pod of the range. The partition counts from
   * {@code ordinals.start}, as upstream's. A pod may instead be updated in place (its pod update
   * policy), which makes it unavailable as a deletion would. Empty when nothing is left to update.
   */
  private static Optional<Plan> planRollingUpdate(SetSnapshot set, List<Integer> ordinals,
      Map<Integer, PodSnapshot> byOrdinal, long nowMillis) {
    List<PodSnapshot> outdated = new ArrayList<>();
    int lowest = set.ordinalStart() + Math.max(0, set.partition());
    for (int ordinal : ordinals.reversed()) {
      PodSnapshot pod = byOrdinal.get(ordinal);
      if (ordinal >= lowest && pod != null && !pod.terminating() && !pod.revision().equals(set.updateRevision())) {
        outdated.add(pod);
      }
    }
    if (outdated.isEmpty()) {
      return Optional.empty();
    }
    // Followers first, the leader last (ordinal.io/leader-label); each highest ordinal first (a stable sort).
    outdated.sort(Comparator.comparing(PodSnapshot::leader));
    if (set.rollout().paused()) {
      return Optional.of(new Plan(List.of(), false, 0, "the rollout to be resumed (paused before updating "
          + outdated.getFirst().name() + ")"));
    }
    int unavailable = 0;
    for (int ordinal : ordinals) {
      PodSnapshot pod = byOrdinal.get(ordinal);
      if (pod == null || pod.terminating() || !pod.available(set.minReadySeconds(), nowMillis)) {
        unavailable++;
      }
    }
    int budget = set.maxUnavailable() - unavailable;
    if (budget <= 0) {
      return Optional.of(new Plan(List.of(), false, 0, unavailable + " unavailable pods (maxUnavailable "
          + set.maxUnavailable() + ") before updating " + outdated.getFirst().name()));
    }
    if (set.hooks().preUpdate() != null) {
      // A member hands its role away before its pod goes: one member at a time (also under Parallel,
      // whose pass does not wait for the last one), as every hook.
      PodSnapshot next = outdated.getFirst();
      if (set.heldHook() != null) {
        return Optional.of(new Plan(List.of(), false, 0, "the set to be resumed (" + set.heldHook() + ")"));
      }
      if (unavailable > 0) {
        return Optional.of(new Plan(List.of(), false, 0, unavailable + " unavailable pods before the preUpdate hook of "
            + next.name()));
      }
      Optional<Action> update = update(set, next);
      if (update.isEmpty()) {
        return Optional.of(waitForDeletionByHand(set, next));
      }
      List<Action> handOverThenUpdate = List.of(
          new Action.RunHook(MemberHooks.PRE_UPDATE, next.ordinal(), next.name(), "Update"), update.get());
      return Optional.of(new Plan(handOverThenUpdate, false, 0, "updated pods to become available"));
    }
    List<Action> updates = new ArrayList<>();
    for (PodSnapshot pod : outdated.subList(0, Math.min(budget, outdated.size()))) {
      Optional<Action> update = update(set, pod);
      if (update.isEmpty()) {
        // InPlaceOnly: the pods below it wait with it, as they would for a pod being replaced.
        return Optional.of(updates.isEmpty() ? waitForDeletionByHand(set, pod)
            : new Plan(updates, false, 0, "updated pods to become available"));
      }
      updates.add(update.get());
    }
    return Optional.of(new Plan(updates, false, 0, "updated pods to become available"));
  }

  /**
   * How a rolling update brings {@code pod} to the update revision: in place when the set's pod update
   * policy asks for it and the revisions allow it, else by replacing it; empty when only in place is
   * allowed and it is not possible.
   */
  private static Optional<Action> update(SetSnapshot set, PodSnapshot pod) {
    if (set.inPlace().possibleFrom(pod.revision())) {
      return Optional.of(new Action.UpdatePodInPlace(pod.ordinal(), pod.name(), set.updateRevision()));
    }
    if (set.inPlace().only()) {
      return Optional.empty();
    }
    return Optional.of(new Action.DeletePod(pod.ordinal(), pod.name(), "update to revision " + set.updateRevision()));
  }

  /**
   * InPlaceOnly, and the pod's revision differs from the update revision in more than images and
   * resources, or the set's driver does not update in place.
   */
  private static Plan waitForDeletionByHand(SetSnapshot set, PodSnapshot pod) {
    return new Plan(List.of(), false, 0, "pod " + pod.name() + " to be deleted by hand: its revision " + pod.revision()
        + " cannot be updated in place to " + set.updateRevision() + " (pod update policy " + InPlaceUpdates.ONLY
        + "; the revisions differ beyond images and resources, or the set's driver does not update in place)");
  }

  /**
   * Set deletion: pods go highest ordinal first, one at a time; then the set, and with it the claims
   * the retention policy gives to it ({@code whenDeleted: Delete}).
   */
  private static Plan planDeletion(SetSnapshot set) {
    Pass pass = new Pass(set, 0);
    pass.deleteClaims();
    PodSnapshot highest = set.pods().stream().max(Comparator.comparingInt(PodSnapshot::ordinal)).orElse(null);
    if (highest == null) {
      return new Plan(List.of(new Action.FinishDeletion()), false, 0, "the set to be removed").after(pass.actions);
    }
    if (highest.terminating()) {
      return new Plan(List.of(), false, 0, "pod " + highest.name() + " to terminate").after(pass.actions);
    }
    if (set.hooks().preDelete() != null && set.members().contains(highest.ordinal())
        && pass.planHook(MemberHooks.PRE_DELETE, highest.ordinal(), highest.name(), "Delete")
            instanceof MembershipChange.Held held) {
      return new Plan(List.of(), false, 0, held.step().condition()).after(pass.actions);
    }
    return new Plan(
        List.of(new Action.DeletePod(highest.ordinal(), highest.name(), "set deleted")),
        false, 0, "pod " + highest.name() + " to terminate").after(pass.actions);
  }

  /** True when a pod of the range runs another revision than the one its ordinal should run. */
  public static boolean podsOffTarget(SetSnapshot set) {
    OrdinalRange range = set.range();
    return set.pods().stream().anyMatch(pod -> range.contains(pod.ordinal()) && !pod.terminating()
        && !pod.revision().equals(revisionFor(set, pod.ordinal())));
  }

  /**
   * Upstream {@code newVersionedStatefulSetPod}: under RollingUpdate, ordinals below start + partition
   * are (re)created at the current revision, the others at the update revision.
   */
  static String revisionFor(SetSnapshot set, int ordinal) {
    if (set.rollingUpdate() && ordinal < set.ordinalStart() + set.partition() && set.currentRevision() != null) {
      return set.currentRevision();
    }
    return set.updateRevision();
  }

}
