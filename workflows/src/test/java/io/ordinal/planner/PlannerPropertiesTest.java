package io.ordinal.planner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ordinal.model.InPlaceUpdates;
import io.ordinal.model.MemberHooks;
import io.ordinal.model.OrdinalRange;
import io.ordinal.model.PodSnapshot;
import io.ordinal.model.RolloutControl;
import io.ordinal.model.SetKey;
import io.ordinal.model.SetSnapshot;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The planner over 300 000 random snapshots (seeded, so a failure repeats): every combination of
 * policy, update strategy, partition, maxUnavailable, pod states and revisions, hooks, members and a
 * held hook. Member operations that default to off must plan exactly what the planner planned without
 * them, and with them on, the rules no table can enumerate must hold.
 */
class PlannerPropertiesTest {
  static final int SNAPSHOTS = Integer.getInteger("ordinal.planner.snapshots", 300_000);
  static final SetKey KEY = new SetKey("default", "web");
  static final long NOW = 100_000;
  static final MemberHooks HOOKS = new MemberHooks(new MemberHooks.Timing(60, 3, 2), new MemberHooks.Timing(60, 3, 2));

  @Test
  void reservationsThatTouchNoOrdinalOfTheSetPlanExactlyWhatNoReservationPlans() {
    Random random = new Random(20261127);
    for (int i = 0; i < SNAPSHOTS; i++) {
      SetSnapshot set = randomSet(random);
      // Below ordinals.start, or above every ordinal the range, a pod or a member uses.
      int above = Math.max(set.endOrdinal(), set.pods().stream().mapToInt(PodSnapshot::ordinal).max().orElse(0) + 1);
      above = Math.max(above, set.members().stream().mapToInt(Integer::intValue).max().orElse(0) + 1);
      List<Integer> untouched = new ArrayList<>();
      for (int ordinal = 0; ordinal < set.ordinalStart(); ordinal++) {
        if (random.nextBoolean()) {
          untouched.add(ordinal);
        }
      }
      untouched.add(above + random.nextInt(3));
      assertEquals(Planner.plan(set, NOW), Planner.plan(set.withReservedOrdinals(untouched), NOW), set::toString);
    }
  }

  @Test
  void noPodIsEverCreatedAtAReservedOrdinalOrOutsideTheRangeAndTheRangeKeepsItsSize() {
    Random random = new Random(20261128);
    for (int i = 0; i < SNAPSHOTS; i++) {
      SetSnapshot set = randomSet(random);
      List<Integer> reserved = new ArrayList<>();
      for (int ordinal = 0; ordinal < 10; ordinal++) {
        if (random.nextInt(4) == 0) {
          reserved.add(ordinal);
        }
      }
      SetSnapshot withReserved = set.withReservedOrdinals(reserved);
      OrdinalRange range = withReserved.range();
      List<Integer> ordinals = range.ordinals();
      assertEquals(set.replicas(), ordinals.size(), withReserved::toString);
      assertTrue(ordinals.stream().allMatch(o -> o >= set.ordinalStart() && !reserved.contains(o) && range.contains(o)),
          withReserved::toString);
      Set<Integer> existing = set.pods().stream().map(PodSnapshot::ordinal).collect(Collectors.toSet());
      Plan plan = Planner.plan(withReserved, NOW);
      for (Action action : plan.actions()) {
        switch (action) {
          case Action.CreatePod create -> {
            assertTrue(range.contains(create.ordinal()), () -> "created outside the range: " + withReserved);
            assertFalse(existing.contains(create.ordinal()), () -> "created over a pod: " + withReserved);
          }
          case Action.DeletePod delete ->
              assertTrue(existing.contains(delete.ordinal()), () -> "deleted a pod that is not there: " + withReserved);
          case Action.RunHook hook when !set.deleting() -> assertEquals(hook.hook().equals(MemberHooks.PRE_CREATE),
              range.contains(hook.ordinal()), () -> "a member joins in the range, leaves outside it: " + withReserved);
          default -> {}
        }
      }
    }
  }

  @Test
  void aParallelConcurrencyAboveWhatThereIsToDoOrUnderOrderedReadyPlansExactlyWhatNoneDoes() {
    Random random = new Random(20261129);
    for (int i = 0; i < SNAPSHOTS; i++) {
      SetSnapshot set = randomSet(random);
      // 10 ordinals at most: at most 10 pods on their way and 10 actions.
      int concurrency = set.parallel() ? 21 + random.nextInt(100) : 1 + random.nextInt(5);
      assertEquals(Planner.plan(set, NOW), Planner.plan(set.withParallelConcurrency(concurrency), NOW), set::toString);
    }
  }

  @Test
  void underParallelConcurrencyAPlanNeverSetsMorePodsOnTheirWayThanItAllows() {
    Random random = new Random(20261130);
    for (int i = 0; i < SNAPSHOTS; i++) {
      int concurrency = 1 + random.nextInt(4);
      SetSnapshot set = randomSet(random).withParallelConcurrency(concurrency);
      Set<Integer> healthy = set.pods().stream().filter(PodSnapshot::healthy).map(PodSnapshot::ordinal)
          .collect(Collectors.toSet());
      long before = set.pods().size() - healthy.size();
      long started = Planner.plan(set, NOW).actions().stream().filter(a -> a instanceof Action.CreatePod
          || a instanceof Action.DeletePod d && healthy.contains(d.ordinal()) && !isRollingUpdate(set, d)).count();
      if (set.parallel() && !set.deleting()) {
        assertTrue(before + started <= Math.max(concurrency, before) || started == 0,
            () -> before + " on their way, " + started + " more, limit " + concurrency + ": " + set);
      }
    }
  }

  @Test
  void aReCreatePolicyOrInPlaceRevisionsNoPodRunsPlanExactlyWhatNoPolicyPlans() {
    Random random = new Random(20261131);
    for (int i = 0; i < SNAPSHOTS; i++) {
      SetSnapshot set = randomSet(random);
      Plan plan = Planner.plan(set, NOW);
      assertEquals(plan, Planner.plan(set.withInPlace(new InPlaceUpdates(InPlaceUpdates.RECREATE, List.of("a", "b"))),
          NOW), set::toString);
      assertEquals(plan, Planner.plan(set.withInPlace(new InPlaceUpdates(InPlaceUpdates.IF_POSSIBLE, List.of("z"))),
          NOW), set::toString);
    }
  }

  @Test
  void inPlaceIfPossiblePlansWhatReCreatePlansWithEachUpdateOfAnInPlaceRevisionMadeInPlace() {
    Random random = new Random(20261201);
    for (int i = 0; i < SNAPSHOTS; i++) {
      SetSnapshot set = randomSet(random);
      List<String> from = switch (random.nextInt(3)) {
        case 0 -> List.of("a");
        case 1 -> List.of("b");
        default -> List.of("a", "b");
      };
      Map<Integer, PodSnapshot> pods = set.pods().stream().collect(Collectors.toMap(PodSnapshot::ordinal, p -> p));
      Plan recreate = Planner.plan(set, NOW);
      // An update's deletion, and a forced replacement of a Running pod whose target is the update
      // revision, are made in place when the pod's revision can go in place.
      List<Action> expected = recreate.actions().stream().map(action -> action instanceof Action.DeletePod d
          && from.contains(pods.get(d.ordinal()).revision()) && (isRollingUpdate(set, d)
              || Planner.FORCED_REPLACEMENT.equals(d.reason()) && PodSnapshot.RUNNING.equals(pods.get(d.ordinal()).phase())
                  && Planner.revisionFor(set, d.ordinal()).equals(set.updateRevision()))
          ? (Action) new Action.UpdatePodInPlace(d.ordinal(), d.podName(), set.updateRevision()) : action).toList();
      Plan inPlace = Planner.plan(set.withInPlace(new InPlaceUpdates(InPlaceUpdates.IF_POSSIBLE, from)), NOW);
      assertEquals(expected, inPlace.actions(), set::toString);
      assertEquals(recreate.converged(), inPlace.converged(), set::toString);
      assertEquals(recreate.wakeAtMillis(), inPlace.wakeAtMillis(), set::toString);
    }
  }

  /** A deletion of the rolling update, which maxUnavailable bounds instead. */
  static boolean isRollingUpdate(SetSnapshot set, Action.DeletePod delete) {
    return delete.reason().startsWith("update to revision");
  }

  /** A random set of up to 6 replicas over ordinals 0..9, with any policy, strategy, pods and membership. */
  static SetSnapshot randomSet(Random random) {
    int replicas = random.nextInt(7);
    int start = random.nextInt(4);
    boolean rolling = random.nextInt(4) != 0;
    String[] revisions = {"a", "b"};
    List<PodSnapshot> pods = new ArrayList<>();
    Set<Integer> members = new TreeSet<>();
    for (int ordinal = 0; ordinal < 10; ordinal++) {
      if (random.nextInt(3) == 0) {
        if (random.nextInt(4) == 0) {
          members.add(ordinal);
        }
        continue;
      }
      members.add(ordinal);
      String phase = switch (random.nextInt(8)) {
        case 0 -> PodSnapshot.PENDING;
        case 1 -> PodSnapshot.FAILED;
        case 2 -> PodSnapshot.SUCCEEDED;
        default -> PodSnapshot.RUNNING;
      };
      boolean ready = PodSnapshot.RUNNING.equals(phase) && random.nextInt(5) != 0;
      pods.add(new PodSnapshot(ordinal, KEY.podName(ordinal), revisions[random.nextInt(2)], phase, ready,
          ready ? random.nextInt(200_000) : 0, random.nextInt(8) == 0, random.nextInt(8) == 0));
    }
    SetSnapshot set = new SetSnapshot(KEY, true, random.nextInt(10) == 0, 1, replicas, random.nextBoolean(),
        new int[] {0, 0, 50, 200}[random.nextInt(4)], rolling, random.nextInt(5), 1 + random.nextInt(3), "a",
        revisions[random.nextInt(2)], pods)
        .withRollout(random.nextInt(5) == 0 ? new RolloutControl(true, 600, false, false) : RolloutControl.DEFAULT)
        .withOrdinalStart(start);
    if (random.nextInt(3) == 0) {
      set = set.withMembership(HOOKS, List.copyOf(members), random.nextInt(6) == 0 ? "PreCreate hook failed" : null);
    }
    if (random.nextInt(10) == 0) {
      set = set.withForeignOrdinals(List.of(random.nextInt(10)));
    }
    return set;
  }
}
