package io.ordinal.planner;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.ordinal.model.InPlaceUpdates;
import io.ordinal.model.MemberHooks;
import io.ordinal.model.PodSnapshot;
import io.ordinal.model.RolloutControl;
import io.ordinal.model.SetKey;
import io.ordinal.model.SetSnapshot;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The planner's rules as a table. Pods are written {@code <ordinal><state>}: R running and ready
 * (ready since t=0), N running not ready, P pending, F failed, S succeeded, T terminating (ready),
 * X terminating and not ready. Actions are written {@code +i} (create), {@code -i} (delete), {@code done}
 * (finish deletion); a trailing {@code ✓} means converged.
 */
class PlannerTest {
  static final long NOW = 100_000;
  static final SetKey KEY = new SetKey("default", "web");

  static Stream<Arguments> orderedReady() {
    return Stream.of(
        // name, replicas, minReadySeconds, pods, expected
        Arguments.of("empty set creates ordinal 0 only", 3, 0, "", "+0"),
        Arguments.of("creates the next ordinal once its predecessors are ready", 3, 0, "0R 1R", "+2"),
        Arguments.of("waits for a pending predecessor", 3, 0, "0R 1P", ""),
        Arguments.of("a predecessor that is running but not ready blocks progress", 3, 0, "0R 1N", ""),
        Arguments.of("a predecessor failing mid-scale is replaced before anything else", 3, 0, "0R 1F", "-1"),
        Arguments.of("a succeeded pod is replaced too", 3, 0, "0S 1R", "-0"),
        Arguments.of("a terminating predecessor blocks creation", 3, 0, "0T", ""),
        Arguments.of("a missing lower ordinal is recreated first", 3, 0, "1R 2R", "+0"),
        Arguments.of("converged at the target", 3, 0, "0R 1R 2R", "✓"),
        Arguments.of("minReadySeconds holds the next ordinal back", 3, 200, "0R", ""),
        Arguments.of("minReadySeconds elapsed lets the next ordinal go", 3, 100, "0R", "+1"),
        Arguments.of("scale down deletes the highest ordinal first, one at a time", 1, 0, "0R 1R 2R 3R", "-3"),
        Arguments.of("scale down waits for the previous pod to be fully gone", 1, 0, "0R 1R 2R 3T", ""),
        Arguments.of("an unhealthy lower ordinal blocks scale down", 2, 0, "0N 1R 2R", ""),
        Arguments.of("an unhealthy condemned pod below the target blocks its deletion", 1, 0, "0R 1N 2R", ""),
        Arguments.of("the lowest unhealthy condemned pod may itself be deleted", 1, 0, "0R 1R 2N", "-2"),
        Arguments.of("scale to zero deletes the last pod", 0, 0, "0R", "-0"),
        Arguments.of("scale to zero of an empty set is converged", 0, 0, "", "✓"),
        Arguments.of("a not-yet-available pod in range delays scale down", 1, 200, "0R 1R", ""));
  }

  static Stream<Arguments> parallel() {
    return Stream.of(
        Arguments.of("creates every missing ordinal at once", 3, 0, "", "+0 +1 +2"),
        Arguments.of("does not wait for unready pods", 4, 0, "0P 1N", "+2 +3"),
        Arguments.of("replaces failed pods without waiting", 3, 0, "0F 1R 2F", "-0 -2"),
        Arguments.of("deletes every condemned pod at once", 1, 0, "0R 1R 2N 3R", "-3 -2 -1"),
        Arguments.of("is not converged while a pod is unready", 2, 0, "0R 1N", ""),
        Arguments.of("is converged at the target", 2, 0, "0R 1R", "✓"),
        Arguments.of("skips terminating pods and goes on", 2, 0, "0X 2R", "+1 -2"));
  }

  @ParameterizedTest(name = "OrderedReady: {0}")
  @MethodSource("orderedReady")
  void orderedReady(String name, int replicas, int minReadySeconds, String pods, String expected) {
    assertEquals(expected, render(Planner.plan(set(replicas, false, minReadySeconds, pods), NOW)));
  }

  @ParameterizedTest(name = "Parallel: {0}")
  @MethodSource("parallel")
  void parallel(String name, int replicas, int minReadySeconds, String pods, String expected) {
    assertEquals(expected, render(Planner.plan(set(replicas, true, minReadySeconds, pods), NOW)));
  }

  @Test
  void minReadySecondsAsksForATimerAtTheInstantThePodBecomesAvailable() {
    Plan plan = Planner.plan(set(3, false, 200, "0R"), NOW);
    assertEquals(200_000, plan.wakeAtMillis());
  }

  @Test
  void deletionRemovesPodsHighestFirstIgnoringHealthThenFinishes() {
    assertEquals("-2", render(Planner.plan(deleting("0N 1R 2R"), NOW)));
    assertEquals("", render(Planner.plan(deleting("0R 1R 2T"), NOW)));
    assertEquals("done", render(Planner.plan(deleting(""), NOW)));
  }

  @Test
  void partitionKeepsLowerOrdinalsOnTheCurrentRevision() {
    SetSnapshot set = new SetSnapshot(KEY, true, false, 2, 3, true, 0, true, 2, 1, "rev-a", "rev-b", List.of());
    Plan plan = Planner.plan(set, NOW);
    assertEquals(List.of(new Action.CreatePod(0, "rev-a"), new Action.CreatePod(1, "rev-a"),
        new Action.CreatePod(2, "rev-b")), plan.actions());
  }

  static SetSnapshot rolling(int replicas, boolean parallel, int partition, int maxUnavailable, String pods) {
    // Pods written with a trailing revision letter: 0Ra is web-0 Running+Ready at revision "a".
    List<PodSnapshot> parsed = new ArrayList<>();
    for (String token : pods.trim().split("\\s+")) {
      if (token.isEmpty()) {
        continue;
      }
      String revision = token.substring(token.length() - 1);
      PodSnapshot p = pods(token.substring(0, token.length() - 1)).getFirst();
      parsed.add(new PodSnapshot(p.ordinal(), p.name(), revision, p.phase(), p.ready(), p.readySinceMillis(), p.terminating()));
    }
    return new SetSnapshot(KEY, true, false, 2, replicas, parallel, 0, true, partition, maxUnavailable, "a", "b", parsed);
  }

  static Stream<Arguments> rollingUpdates() {
    return Stream.of(
        Arguments.of("updates the highest outdated ordinal first", 3, false, 0, 1, "0Ra 1Ra 2Ra", "-2"),
        Arguments.of("recreates a deleted pod at the update revision before going on", 3, false, 0, 1, "0Ra 1Ra", "+2"),
        Arguments.of("waits for the updated pod to be ready", 3, false, 0, 1, "0Ra 1Ra 2Nb", ""),
        Arguments.of("goes on once it is", 3, false, 0, 1, "0Ra 1Ra 2Rb", "-1"),
        Arguments.of("is converged when every pod is updated", 3, false, 0, 1, "0Rb 1Rb 2Rb", "✓"),
        Arguments.of("partition keeps lower ordinals on the current revision", 3, false, 2, 1, "0Ra 1Ra 2Rb", "✓"),
        Arguments.of("a partition above replicas updates nothing", 3, false, 5, 1, "0Ra 1Ra 2Ra", "✓"),
        Arguments.of("maxUnavailable 2 deletes two at a time", 5, false, 0, 2, "0Ra 1Ra 2Ra 3Ra 4Ra", "-4 -3"),
        Arguments.of("maxUnavailable counts pods already unavailable", 5, true, 0, 2, "0Ra 1Rb 2Nb 3Rb 4Rb", "-0"),
        Arguments.of("no budget left: wait", 5, true, 0, 2, "0Ra 1Ra 2Nb 3Nb 4Rb", ""),
        Arguments.of("an unavailable outdated pod is replaced at once: it costs no availability", 5, true, 0, 2, "0Ra 1Na 2Ra 3Ra 4Ra", "-1"),
        Arguments.of("an unhealthy pod of an old revision is replaced, not waited on", 3, true, 0, 1, "0Rb 1Nb 2Na", "-2"),
        Arguments.of("a broken pod of a reverted revision is replaced (forced rollback)", 3, false, 0, 1, "0Rb 1Rb 2Na", "-2"));
  }

  @ParameterizedTest(name = "RollingUpdate: {0}")
  @MethodSource("rollingUpdates")
  void rollingUpdate(String name, int replicas, boolean parallel, int partition, int maxUnavailable, String pods, String expected) {
    assertEquals(expected, render(Planner.plan(rolling(replicas, parallel, partition, maxUnavailable, pods), NOW)));
  }

  static Stream<Arguments> pausedRollouts() {
    return Stream.of(
        Arguments.of("a paused rollout replaces no pod", 3, false, "0Ra 1Ra 2Rb", "", false),
        Arguments.of("a paused rollout still recreates a missing pod, at its target revision", 3, false, "0Ra 2Rb", "+1", false),
        Arguments.of("a paused rollout still scales up", 4, false, "0Ra 1Ra 2Rb", "+3", false),
        Arguments.of("a paused rollout still replaces a failed pod", 3, false, "0Ra 1Fa 2Rb", "-1", false),
        Arguments.of("a paused rollout holds even a broken outdated pod (no forced rollback while paused)", 3, true, "0Ra 1Na 2Rb", "", false),
        Arguments.of("a paused rollout that has nothing left to update is converged", 3, false, "0Rb 1Rb 2Rb", "✓", true),
        Arguments.of("resumed, it goes on where it stopped", 3, false, "0Ra 1Ra 2Rb", "-1", false));
  }

  @ParameterizedTest(name = "Paused: {0}")
  @MethodSource("pausedRollouts")
  void pausedRollout(String name, int replicas, boolean parallel, String pods, String expected, boolean converged) {
    boolean paused = !name.startsWith("resumed");
    SetSnapshot set = rolling(replicas, parallel, 0, 1, pods)
        .withRollout(new RolloutControl(paused, 600, false, false));
    Plan plan = Planner.plan(set, NOW);
    assertEquals(expected, render(plan));
    assertEquals(converged, plan.converged());
    if (paused && expected.isEmpty()) {
      Assertions.assertTrue(plan.waitingFor().contains("resumed"), plan.waitingFor());
    }
  }

  @Test
  void podsOffTargetSeesOutdatedPodsAtOrAbovePartitionOnly() {
    assertEquals(true, Planner.podsOffTarget(rolling(3, false, 0, 1, "0Rb 1Rb 2Ra")));
    assertEquals(false, Planner.podsOffTarget(rolling(3, false, 1, 1, "0Ra 1Rb 2Rb")));
    assertEquals(false, Planner.podsOffTarget(rolling(2, false, 0, 1, "0Rb 1Rb 2Ra")), "a condemned pod does not count");
  }

  @Test
  void onDeleteReplacesNothing() {
    SetSnapshot set = rolling(2, false, 0, 1, "0Ra 1Ra");
    SetSnapshot onDelete = new SetSnapshot(set.key(), true, false, 2, 2, false, 0, false, 0, 1, "a", "b", set.pods());
    assertEquals("✓", render(Planner.plan(onDelete, NOW)));
  }

  @Test
  void forcedRollbackReplacesOnlyUnhealthyPodsOffTheirTargetWhileNotPaused() {
    SetSnapshot set = rolling(3, false, 1, 1, "0Na 1Na 2Nb 3Ra");
    assertEquals(false, Planner.replaceInsteadOfWaiting(set, set.pods().get(0)), "below the partition a is the target");
    assertEquals(true, Planner.replaceInsteadOfWaiting(set, set.pods().get(1)), "unhealthy, and b is its target");
    assertEquals(false, Planner.replaceInsteadOfWaiting(set, set.pods().get(2)), "on its target: waited on");
    assertEquals(false, Planner.replaceInsteadOfWaiting(set, rolling(4, false, 0, 1, "3Ra").pods().getFirst()),
        "a healthy pod is updated by the rollout, not replaced");
    SetSnapshot paused = set.withRollout(new RolloutControl(true, 600, false, false));
    assertEquals(false, Planner.replaceInsteadOfWaiting(paused, paused.pods().get(1)), "a pause replaces nothing");
    SetSnapshot onDelete = new SetSnapshot(KEY, true, false, 2, 3, false, 0, false, 0, 1, "a", "b", set.pods());
    assertEquals(false, Planner.replaceInsteadOfWaiting(onDelete, onDelete.pods().get(1)), "OnDelete replaces nothing");
  }

  static Stream<Arguments> ordinalsStart() {
    return Stream.of(
        // name, start, replicas, parallel, pods, expected
        Arguments.of("an empty set starts at ordinals.start", 5, 2, false, "", "+5"),
        Arguments.of("then creates the next ordinal of the range", 5, 2, false, "5R", "+6"),
        Arguments.of("converged with ordinals [start, start + replicas)", 5, 2, false, "5R 6R", "✓"),
        Arguments.of("Parallel creates the whole range at once", 3, 3, true, "", "+3 +4 +5"),
        Arguments.of("scale down deletes the highest ordinal first", 5, 1, false, "5R 6R", "-6"),
        Arguments.of("raising start creates the new range first, then condemns the old from the highest",
            2, 3, false, "0R 1R 2R", "+3"),
        Arguments.of("raising start, new range ready: the highest condemned pod goes", 2, 3, false, "0R 1R 2R 3R 4R", "-1"),
        Arguments.of("lowering start: ordinals above the range go before those below it", 1, 1, true, "0R 1R 2R", "-2 -0"),
        Arguments.of("a pod below start is condemned, not a replica", 1, 2, false, "0R 1R 2R", "-0"));
  }

  @ParameterizedTest(name = "ordinals.start: {0}")
  @MethodSource("ordinalsStart")
  void ordinalsStart(String name, int start, int replicas, boolean parallel, String pods, String expected) {
    assertEquals(expected, render(Planner.plan(set(replicas, parallel, 0, pods).withOrdinalStart(start), NOW)));
  }

  @Test
  void partitionCountsFromOrdinalsStart() {
    // Upstream: ordinals below start + partition are (re)created at the current revision.
    SetSnapshot set = rolling(3, false, 1, 1, "5Ra 6Ra 7Ra").withOrdinalStart(5);
    assertEquals("-7", render(Planner.plan(set, NOW)));
    SetSnapshot updated = rolling(3, false, 1, 1, "5Ra 6Rb 7Rb").withOrdinalStart(5);
    assertEquals("✓", render(Planner.plan(updated, NOW)), "ordinal 5 is below start + partition");
    SetSnapshot missing = rolling(3, true, 1, 1, "6Rb 7Rb").withOrdinalStart(5);
    assertEquals(List.of(new Action.CreatePod(5, "a")), Planner.plan(missing, NOW).actions(),
        "recreated below the partition at the current revision");
    assertEquals(false, Planner.podsOffTarget(updated));
  }

  static Stream<Arguments> reservedOrdinals() {
    return Stream.of(
        // name, start, replicas, reserved, parallel, pods, expected
        Arguments.of("a reserved ordinal is skipped: the range reaches one further", 0, 3, "1", false, "", "+0"),
        Arguments.of("the next free ordinal follows the one below the reserved", 0, 3, "1", false, "0R", "+2"),
        Arguments.of("converged on the ordinals that are not reserved", 0, 3, "1", false, "0R 2R 3R", "✓"),
        Arguments.of("reserving a running member: it goes first", 0, 3, "1", false, "0R 1R 2R", "-1"),
        Arguments.of("then the next free ordinal is made", 0, 3, "1", false, "0R 2R", "+3"),
        Arguments.of("which waits for the reserved pod to be gone", 0, 3, "1", false, "0R 1T 2R", ""),
        Arguments.of("an unhealthy reserved member goes too (a failed disk)", 0, 3, "1", false, "0R 1N 2R", "-1"),
        Arguments.of("a reserved member waits while a pod of the range is unhealthy", 0, 3, "1", false,
            "0R 1R 2N", ""),
        Arguments.of("meanwhile a failed pod of the range is replaced", 0, 3, "1", false, "0R 1R 2F", "-2"),
        Arguments.of("a missing pod of the range is made first, the reserved member waits for it", 0, 3, "1", false,
            "0R 1R", "+2"),
        Arguments.of("no other reserved member holds one: the higher goes though the lower is broken", 0, 2, "1 2",
            false, "0R 1N 2R", "-2"),
        Arguments.of("Parallel: the reserved member goes, the next free ordinal waits for it", 0, 3, "1", true,
            "0R 1R 2R", "-1"),
        Arguments.of("Parallel: an unhealthy pod of the range holds nothing", 0, 3, "1", true, "0R 1R 2N", "-1"),
        Arguments.of("un-reserving brings the ordinal back before the highest goes", 0, 3, "", false,
            "0R 2R 3R", "+1"),
        Arguments.of("and the highest goes once it is ready", 0, 3, "", false, "0R 1R 2R 3R", "-3"),
        Arguments.of("reserved ordinals count from ordinals.start", 5, 2, "5", false, "", "+6"),
        Arguments.of("a reservation below ordinals.start changes nothing", 5, 2, "3", false, "5R", "+6"),
        Arguments.of("a run of reserved ordinals", 0, 2, "1 2 3", false, "0R", "+4"),
        Arguments.of("scaling down with a reservation deletes the highest of the range", 0, 1, "1", false,
            "0R 2R", "-2"),
        Arguments.of("every ordinal of the old range reserved", 0, 2, "0 1", true, "0R 1R", "-1 -0"),
        Arguments.of("and once they are gone, their places are taken", 0, 2, "0 1", true, "", "+2 +3"));
  }

  @ParameterizedTest(name = "reserved ordinals: {0}")
  @MethodSource("reservedOrdinals")
  void reservedOrdinals(String name, int start, int replicas, String reserved, boolean parallel, String pods,
      String expected) {
    SetSnapshot set = set(replicas, parallel, 0, pods).withOrdinalStart(start).withReservedOrdinals(ordinals(reserved));
    assertEquals(expected, render(Planner.plan(set, NOW)));
  }

  @Test
  void aReservedMemberLeavesThroughPreDeleteWithReasonReservedAndItsEventSaysSo() {
    SetSnapshot set = set(3, false, 0, "0R 1R 2R 3R").withMembership(HOOKS, List.of(0, 1, 2, 3), null)
        .withReservedOrdinals(List.of(1));
    Plan plan = Planner.plan(set, NOW);
    assertEquals("hook:PreDelete:1:Reserved -1", render(plan));
    assertEquals("ordinal 1 is reserved", ((Action.DeletePod) plan.actions().get(1)).reason());
    // A reserved member whose pod is already gone still leaves, with the same reason.
    SetSnapshot podless = set(3, false, 0, "0R 2R 3R").withMembership(HOOKS, List.of(0, 1, 2, 3), null)
        .withReservedOrdinals(List.of(1));
    assertEquals("hook:PreDelete:1:Reserved", render(Planner.plan(podless, NOW)));
    // It leaves before the ordinal that takes its place joins through preCreate.
    SetSnapshot leaving = set(3, false, 0, "0R 1R 2R").withMembership(HOOKS, List.of(0, 1, 2), null)
        .withReservedOrdinals(List.of(1));
    assertEquals("hook:PreDelete:1:Reserved -1", render(Planner.plan(leaving, NOW)));
    SetSnapshot joining = set(3, false, 0, "0R 2R").withMembership(HOOKS, List.of(0, 2), null)
        .withReservedOrdinals(List.of(1));
    assertEquals("hook:PreCreate:3:ScaleUp +3", render(Planner.plan(joining, NOW)));
  }

  @Test
  void aRollingUpdateSkipsReservedOrdinalsAndCountsOnlyTheRangeAsUnavailable() {
    // Range {0, 2, 3}: ordinal 1 is reserved and has no pod, which is not an unavailable pod.
    SetSnapshot set = rolling(3, false, 0, 1, "0Ra 2Ra 3Ra").withReservedOrdinals(List.of(1));
    assertEquals("-3", render(Planner.plan(set, NOW)));
    SetSnapshot next = rolling(3, false, 0, 1, "0Ra 2Ra 3Rb").withReservedOrdinals(List.of(1));
    assertEquals("-2", render(Planner.plan(next, NOW)));
    // The partition stays an ordinal: 2 and above are updated, 0 stays.
    SetSnapshot partitioned = rolling(3, false, 2, 1, "0Ra 2Rb 3Rb").withReservedOrdinals(List.of(1));
    assertEquals("✓", render(Planner.plan(partitioned, NOW)));
  }

  static Stream<Arguments> parallelConcurrency() {
    return Stream.of(
        // name, replicas, concurrency, pods, expected
        Arguments.of("an empty set makes only as many pods at once", 5, 2, "", "+0 +1"),
        Arguments.of("a pod not yet Ready takes a slot", 5, 2, "0R 1P", "+2"),
        Arguments.of("no slot left: the scale waits for a pod to become Ready", 5, 2, "0P 1N", ""),
        Arguments.of("a terminating pod takes a slot", 5, 2, "0R 1R 2X", "+3"),
        Arguments.of("scale down deletes as many healthy pods at once", 1, 2, "0R 1R 2R 3R", "-3 -2"),
        Arguments.of("deleting an unhealthy pod takes no slot of its own", 1, 2, "0R 1N 2R 3R", "-3 -1"),
        Arguments.of("a failed pod is replaced without a slot, recreated with one", 3, 1, "0R 1F 2R", "-1"),
        Arguments.of("a limit above what is to do changes nothing", 3, 10, "", "+0 +1 +2"));
  }

  @ParameterizedTest(name = "parallel concurrency: {0}")
  @MethodSource("parallelConcurrency")
  void parallelConcurrency(String name, int replicas, int concurrency, String pods, String expected) {
    assertEquals(expected, render(Planner.plan(set(replicas, true, 0, pods).withParallelConcurrency(concurrency), NOW)));
  }

  @Test
  void parallelConcurrencyIsParallelsOnlyAndSaysWhatTheScaleWaitsFor() {
    assertEquals("+1", render(Planner.plan(set(3, false, 0, "0R").withParallelConcurrency(1), NOW)));
    Plan waiting = Planner.plan(set(4, true, 0, "0R 1R 3P").withParallelConcurrency(1), NOW);
    assertEquals("", render(waiting));
    Assertions.assertTrue(waiting.waitingFor().contains("parallel concurrency"), waiting.waitingFor());
  }

  static final MemberHooks PRE_UPDATE = new MemberHooks(null, null, new MemberHooks.Timing(60, 3, 2));

  static SetSnapshot withLeader(SetSnapshot set, int ordinal) {
    return set.withPods(set.pods().stream().map(p -> p.asLeader(p.ordinal() == ordinal)).toList(), set.currentRevision());
  }

  @Test
  void aRollingUpdateReplacesTheFollowersFirstAndTheLeaderLast() {
    assertEquals("-1", render(Planner.plan(withLeader(rolling(3, false, 0, 1, "0Ra 1Ra 2Ra"), 2), NOW)));
    assertEquals("-0", render(Planner.plan(withLeader(rolling(3, false, 0, 1, "0Ra 1Rb 2Ra"), 2), NOW)));
    assertEquals("-2", render(Planner.plan(withLeader(rolling(3, false, 0, 1, "0Rb 1Rb 2Ra"), 2), NOW)));
    assertEquals("-2 -0", render(Planner.plan(withLeader(rolling(3, false, 0, 2, "0Ra 1Ra 2Ra"), 1), NOW)),
        "maxUnavailable 2: the two followers, then the leader");
    // Without a leader label, upstream's order.
    assertEquals("-2", render(Planner.plan(rolling(3, false, 0, 1, "0Ra 1Ra 2Ra"), NOW)));
  }

  @Test
  void aPreUpdateHookRunsBeforeEachMembersReplacementOneAtATimeAndAFailedOneHoldsTheRollout() {
    SetSnapshot set = withLeader(rolling(3, false, 0, 2, "0Ra 1Ra 2Ra"), 2).withMembership(PRE_UPDATE, List.of(0, 1, 2), null);
    Plan plan = Planner.plan(set, NOW);
    assertEquals("hook:PreUpdate:1:Update -1", render(plan), "one at a time, whatever maxUnavailable");
    SetSnapshot leaderNext = withLeader(rolling(3, false, 0, 1, "0Rb 1Rb 2Ra"), 2).withMembership(PRE_UPDATE,
        List.of(0, 1, 2), null);
    assertEquals("hook:PreUpdate:2:Update -2", render(Planner.plan(leaderNext, NOW)));
    SetSnapshot held = rolling(3, false, 0, 1, "0Ra 1Ra 2Ra").withMembership(PRE_UPDATE, List.of(0, 1, 2),
        "PreUpdate hook of web-2 failed");
    Plan waiting = Planner.plan(held, NOW);
    assertEquals("", render(waiting));
    Assertions.assertTrue(waiting.waitingFor().contains("resumed"), waiting.waitingFor());
    // Under Parallel too, the next member waits for the last one to be available again.
    SetSnapshot parallelNext = rolling(3, true, 0, 2, "0Ra 1Ra 2Nb").withMembership(PRE_UPDATE, List.of(0, 1, 2), null);
    assertEquals("", render(Planner.plan(parallelNext, NOW)));
    // A scale runs no preUpdate hook.
    assertEquals("+3", render(Planner.plan(rolling(4, false, 0, 1, "0Rb 1Rb 2Rb").withMembership(PRE_UPDATE,
        List.of(0, 1, 2), null), NOW)));
  }

  static Stream<Arguments> inPlaceUpdates() {
    // Revision a can be updated in place to b, revision c cannot.
    return Stream.of(
        Arguments.of("InPlaceIfPossible updates the highest outdated pod in place", IF_POSSIBLE, 3, false, 1,
            "0Ra 1Ra 2Ra", "~2"),
        Arguments.of("an in-place update makes the pod unavailable: the next one waits for it", IF_POSSIBLE, 3, false, 1,
            "0Ra 1Ra 2Nb", ""),
        Arguments.of("and goes on once it is Ready again", IF_POSSIBLE, 3, false, 1, "0Ra 1Ra 2Rb", "~1"),
        Arguments.of("maxUnavailable 2 updates two in place at a time", IF_POSSIBLE, 4, false, 2, "0Ra 1Ra 2Ra 3Ra",
            "~3 ~2"),
        Arguments.of("a revision that differs beyond images and resources is replaced", IF_POSSIBLE, 3, false, 2,
            "0Ra 1Rc 2Rc", "-2 -1"),
        Arguments.of("both ways in one step", IF_POSSIBLE, 3, false, 2, "0Ra 1Ra 2Rc", "-2 ~1"),
        Arguments.of("ReCreate replaces even what could go in place", RECREATE, 3, false, 1, "0Ra 1Ra 2Ra", "-2"),
        Arguments.of("InPlaceOnly updates in place", ONLY, 3, false, 1, "0Ra 1Ra 2Ra", "~2"),
        Arguments.of("InPlaceOnly never replaces: the pod waits to be deleted by hand", ONLY, 3, false, 1,
            "0Ra 1Ra 2Rc", ""),
        Arguments.of("InPlaceOnly stops at such a pod, highest first", ONLY, 3, false, 3, "0Ra 1Rc 2Ra", "~2"),
        Arguments.of("a broken pod of a revision that can go in place is restarted in place (forced rollback)",
            IF_POSSIBLE, 3, true, 1, "0Rb 1Rb 2Na", "~2"),
        Arguments.of("a broken pod of another revision is replaced (forced rollback)", IF_POSSIBLE, 3, true, 1,
            "0Rb 1Rb 2Nc", "-2"),
        Arguments.of("a pending pod of an old revision is replaced: nothing runs to restart", IF_POSSIBLE, 3, true, 1,
            "0Rb 1Rb 2Pa", "-2"),
        Arguments.of("InPlaceOnly replaces no broken pod that cannot go in place", ONLY, 3, true, 1, "0Rb 1Rb 2Nc", ""));
  }

  static final String IF_POSSIBLE = InPlaceUpdates.IF_POSSIBLE;
  static final String ONLY = InPlaceUpdates.ONLY;
  static final String RECREATE = InPlaceUpdates.RECREATE;

  @ParameterizedTest(name = "in place: {0}")
  @MethodSource("inPlaceUpdates")
  void inPlaceUpdate(String name, String policy, int replicas, boolean parallel, int maxUnavailable, String pods,
      String expected) {
    SetSnapshot set = rolling(replicas, parallel, 0, maxUnavailable, pods)
        .withInPlace(new InPlaceUpdates(policy, List.of("a")));
    Plan plan = Planner.plan(set, NOW);
    assertEquals(expected, render(plan));
    if (expected.isEmpty()) {
      Assertions.assertFalse(plan.converged());
    }
    if (name.startsWith("InPlaceOnly never")) {
      Assertions.assertTrue(plan.waitingFor().contains("deleted by hand"), plan.waitingFor());
    }
  }

  @Test
  void thePartitionHoldsInPlaceUpdatesToo() {
    assertEquals("~1", render(Planner.plan(rolling(3, false, 1, 3, "0Ra 1Ra 2Rb")
        .withInPlace(new InPlaceUpdates(IF_POSSIBLE, List.of("a"))), NOW)));
  }

  @Test
  void aPreUpdateHookRunsBeforeAnInPlaceUpdateToo() {
    SetSnapshot set = rolling(3, false, 0, 1, "0Ra 1Ra 2Ra").withMembership(PRE_UPDATE, List.of(0, 1, 2), null)
        .withInPlace(new InPlaceUpdates(IF_POSSIBLE, List.of("a")));
    assertEquals("hook:PreUpdate:2:Update ~2", render(Planner.plan(set, NOW)));
  }

  @Test
  void anInPlaceUpdateIsAStepOnPodsThatAPodChangeEnds() {
    Plan plan = Planner.plan(rolling(3, false, 0, 1, "0Ra 1Ra 2Ra").withInPlace(new InPlaceUpdates(IF_POSSIBLE,
        List.of("a"))), NOW);
    Assertions.assertTrue(plan.actsOnPods());
    Assertions.assertFalse(plan.observeAgainAtOnce());
  }

  static List<Integer> ordinals(String spec) {
    List<Integer> out = new ArrayList<>();
    for (String token : spec.trim().split("\\s+")) {
      if (!token.isEmpty()) {
        out.add(Integer.parseInt(token));
      }
    }
    return out;
  }

  static Stream<Arguments> claims() {
    return Stream.of(
        // name, replicas, pods (C: claims stale), claims to delete, expected
        Arguments.of("claims of a live replica are brought in line and nothing waits", 2, "0R 1RC", "", "owners1 ✗"),
        Arguments.of("a condemned pod's claims get their owner before the pod is deleted", 1, "0R 1RC", "",
            "owners1 -1"),
        Arguments.of("claims owned by a gone pod go, first", 1, "0R", "data-web-1", "claim:data-web-1 ✗"),
        Arguments.of("a claim deleted by a user goes before its pod is made again", 2, "0R", "data-web-1",
            "claim:data-web-1 +1"),
        Arguments.of("claims stale on a terminating pod are left alone", 1, "0R 1T", "", ""));
  }

  @ParameterizedTest(name = "claims: {0}")
  @MethodSource("claims")
  void claims(String name, int replicas, String pods, String claimsToDelete, String expected) {
    List<PodSnapshot> parsed = new ArrayList<>();
    for (String token : pods.split("\\s+")) {
      boolean stale = token.endsWith("C");
      PodSnapshot p = pods(stale ? token.substring(0, token.length() - 1) : token).getFirst();
      parsed.add(new PodSnapshot(p.ordinal(), p.name(), p.revision(), p.phase(), p.ready(), p.readySinceMillis(),
          p.terminating(), stale));
    }
    SetSnapshot set = new SetSnapshot(KEY, true, false, 1, replicas, false, 0, true, 0, 1, "rev", "rev", parsed)
        .withClaimsToDelete(claimsToDelete.isEmpty() ? List.of() : List.of(claimsToDelete.split(" ")));
    Plan plan = Planner.plan(set, NOW);
    assertEquals(expected, render(plan) + (plan.observeAgainAtOnce() ? " ✗" : ""));
  }

  static final MemberHooks HOOKS = new MemberHooks(new MemberHooks.Timing(60, 3, 2), new MemberHooks.Timing(60, 3, 2));

  static Stream<Arguments> membership() {
    return Stream.of(
        // name, replicas, parallel, pods, members (recorded), held, expected
        Arguments.of("the first pod founds the set: no hook", 3, false, "", "", false, "+0"),
        Arguments.of("a new ordinal joins through preCreate, then its pod is made", 3, false, "0R", "0", false,
            "hook:PreCreate:1:ScaleUp +1"),
        Arguments.of("a member's pod recreated after a deletion joins no one", 3, false, "0R 2R", "0 1 2", false, "+1"),
        Arguments.of("a condemned member leaves through preDelete before its pod is deleted", 1, false, "0R 1R", "0 1",
            false, "hook:PreDelete:1:ScaleDown -1"),
        Arguments.of("a pod made before the hooks existed counts as a member", 1, false, "0R 1R", "", false,
            "hook:PreDelete:1:ScaleDown -1"),
        Arguments.of("a condemned member whose pod is gone still leaves", 1, false, "0R", "0 1", false,
            "hook:PreDelete:1:ScaleDown ✗"),
        Arguments.of("Parallel: one founder at a time", 3, true, "", "", false, "+0"),
        Arguments.of("Parallel: one membership change at a time", 4, true, "0R", "0", false,
            "hook:PreCreate:1:ScaleUp +1"),
        Arguments.of("Parallel: scale down one member at a time", 1, true, "0R 1R 2R", "0 1 2", false,
            "hook:PreDelete:2:ScaleDown -2"),
        Arguments.of("a failed hook holds joining until resumed", 3, false, "0R", "0", true, ""),
        Arguments.of("a failed hook holds leaving until resumed", 1, false, "0R 1R", "0 1", true, ""),
        Arguments.of("a held hook does not hold what needs no hook", 2, false, "1R", "0 1", true, "+0"));
  }

  @ParameterizedTest(name = "membership: {0}")
  @MethodSource("membership")
  void membership(String name, int replicas, boolean parallel, String pods, String members, boolean held,
      String expected) {
    java.util.Set<Integer> memberOrdinals = new java.util.TreeSet<>();
    for (String m : members.trim().split("\\s+")) {
      if (!m.isEmpty()) {
        memberOrdinals.add(Integer.parseInt(m));
      }
    }
    pods(pods).forEach(p -> memberOrdinals.add(p.ordinal())); // as the observation counts them
    SetSnapshot set = set(replicas, parallel, 0, pods).withMembership(HOOKS, List.copyOf(memberOrdinals),
        held ? "PreCreate hook of web-1 failed" : null);
    Plan plan = Planner.plan(set, NOW);
    assertEquals(expected, render(plan) + (plan.observeAgainAtOnce() ? " ✗" : ""));
    if (held && expected.isEmpty()) {
      Assertions.assertTrue(plan.waitingFor().contains("resumed"), plan.waitingFor());
    }
  }

  @Test
  void deletingASetRunsEachMembersPreDeleteWithReasonDelete() {
    SetSnapshot set = deleting("0R 1R").withMembership(HOOKS, List.of(0, 1), null);
    assertEquals("hook:PreDelete:1:Delete -1", render(Planner.plan(set, NOW)));
    SetSnapshot withoutHooks = deleting("0R 1R");
    assertEquals("-1", render(Planner.plan(withoutHooks, NOW)));
  }

  @Test
  void aDeletedSetsOrphanedClaimsGoBeforeItFinishes() {
    SetSnapshot set = deleting("").withClaimsToDelete(List.of("data-web-2"));
    assertEquals("claim:data-web-2 done", render(Planner.plan(set, NOW)));
  }

  @Test
  void aPodNameHeldByAPodTheSetDoesNotControlIsNotCreatedAgain() {
    // web-1 was released (its labels stopped matching): upstream's create fails with AlreadyExists.
    SetSnapshot ordered = set(3, false, 0, "0R").withForeignOrdinals(List.of(1));
    Plan waiting = Planner.plan(ordered, NOW);
    assertEquals("", render(waiting));
    Assertions.assertTrue(waiting.waitingFor().contains("web-1"), waiting.waitingFor());
    // Under Parallel the other ordinals go on.
    assertEquals("+2", render(Planner.plan(set(3, true, 0, "0R").withForeignOrdinals(List.of(1)), NOW)));
  }

  @Test
  void anAbsentSetIsConverged() {
    assertEquals("✓", render(Planner.plan(SetSnapshot.absent(KEY), NOW)));
  }

  static SetSnapshot set(int replicas, boolean parallel, int minReadySeconds, String pods) {
    return new SetSnapshot(KEY, true, false, 1, replicas, parallel, minReadySeconds, true, 0, 1, "rev", "rev", pods(pods));
  }

  static SetSnapshot deleting(String pods) {
    return new SetSnapshot(KEY, true, true, 1, 3, false, 0, true, 0, 1, "rev", "rev", pods(pods));
  }

  static List<PodSnapshot> pods(String spec) {
    List<PodSnapshot> pods = new ArrayList<>();
    for (String token : spec.trim().split("\\s+")) {
      if (token.isEmpty()) {
        continue;
      }
      int ordinal = Integer.parseInt(token.substring(0, token.length() - 1));
      char state = token.charAt(token.length() - 1);
      String name = KEY.podName(ordinal);
      pods.add(switch (state) {
        case 'R' -> new PodSnapshot(ordinal, name, "rev", PodSnapshot.RUNNING, true, 0, false);
        case 'N' -> new PodSnapshot(ordinal, name, "rev", PodSnapshot.RUNNING, false, 0, false);
        case 'P' -> new PodSnapshot(ordinal, name, "rev", PodSnapshot.PENDING, false, 0, false);
        case 'F' -> new PodSnapshot(ordinal, name, "rev", PodSnapshot.FAILED, false, 0, false);
        case 'S' -> new PodSnapshot(ordinal, name, "rev", PodSnapshot.SUCCEEDED, false, 0, false);
        case 'T' -> new PodSnapshot(ordinal, name, "rev", PodSnapshot.RUNNING, true, 0, true);
        case 'X' -> new PodSnapshot(ordinal, name, "rev", PodSnapshot.RUNNING, false, 0, true);
        default -> throw new IllegalArgumentException(token);
      });
    }
    return pods;
  }

  static String render(Plan plan) {
    List<String> parts = new ArrayList<>();
    for (Action action : plan.actions()) {
      parts.add(switch (action) {
        case Action.CreatePod c -> "+" + c.ordinal();
        case Action.DeletePod d -> "-" + d.ordinal();
        case Action.UpdatePodInPlace u -> "~" + u.ordinal();
        case Action.FinishDeletion f -> "done";
        case Action.UpdateClaims o -> "owners" + o.ordinal();
        case Action.DeleteClaim c -> "claim:" + c.claimName();
        case Action.RunHook h -> "hook:" + h.hook() + ":" + h.ordinal() + ":" + h.reason();
      });
    }
    if (plan.converged()) {
      parts.add("✓");
    }
    return String.join(" ", parts);
  }
}
