package io.ordinal.workflow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ordinal.model.MemberHooks;
import io.ordinal.model.PodSnapshot;
import io.ordinal.model.SetKey;
import io.ordinal.model.SetSnapshot;
import io.ordinal.model.SetStatus;
import java.util.List;
import org.junit.jupiter.api.Test;

class KnownSetTest {
  static final SetKey KEY = new SetKey("default", "web");

  static PodSnapshot pod(int ordinal, String revision, boolean ready) {
    return new PodSnapshot(ordinal, KEY.podName(ordinal), revision, PodSnapshot.RUNNING, ready, ready ? 1_000 : 0, false);
  }

  static SetSnapshot set(int replicas, String update, List<PodSnapshot> pods, List<Integer> foreign) {
    return new SetSnapshot(KEY, true, false, 2, replicas, false, 0, true, 0, 1, "a", update, pods)
        .withForeignOrdinals(foreign);
  }

  static SetChanges read(SetSnapshot set, boolean complete, List<Integer> gone, long version, SetStatus stored,
      List<String> revisions) {
    return new SetChanges(set, complete, gone, version, "uid-1", stored, "a", 0, revisions, 1, false, null, false, null);
  }

  @Test
  void changedPodsReplaceTheKnownOnesAndDeletedOnesGo() {
    KnownSet known = new KnownSet(KEY);
    known.apply(read(set(3, "a", List.of(pod(0, "a", true), pod(1, "a", true), pod(2, "a", false)), List.of()),
        true, List.of(), 10, null, List.of("a")), 5_000);
    Observation seen = known.apply(read(set(3, "a", List.of(pod(2, "a", true)), List.of()), false, List.of(1), 11, null,
        List.of("a")), 6_000);

    assertEquals(List.of(pod(0, "a", true), pod(2, "a", true)), seen.set().pods());
    assertEquals(new SetStatus(2, 2, 2, 2, 2, 2, "a", "a", 0), seen.status());
  }

  @Test
  void aPodNameMovesBetweenOwnedAndForeignAsItsRowSays() {
    KnownSet known = new KnownSet(KEY);
    known.apply(read(set(2, "a", List.of(pod(0, "a", true)), List.of(1)), true, List.of(), 10, null, List.of()), 0);
    Observation adopted = known.apply(read(set(2, "a", List.of(pod(1, "a", true)), List.of()), false, List.of(), 11,
        null, List.of()), 0);
    assertEquals(List.of(0, 1), adopted.set().pods().stream().map(PodSnapshot::ordinal).toList());
    assertEquals(List.of(), adopted.set().foreignOrdinals());

    Observation released = known.apply(read(set(2, "a", List.of(), List.of(0)), false, List.of(), 12, null, List.of()), 0);
    assertEquals(List.of(1), released.set().pods().stream().map(PodSnapshot::ordinal).toList());
    assertEquals(List.of(0), released.set().foreignOrdinals());
  }

  @Test
  void aCompleteReadingForgetsWhatItDoesNotList() {
    KnownSet known = new KnownSet(KEY);
    known.apply(read(set(2, "a", List.of(pod(0, "a", true), pod(1, "a", true)), List.of()), true, List.of(), 10, null,
        List.of()), 0);
    Observation seen = known.apply(read(set(2, "a", List.of(pod(1, "a", true)), List.of()), true, List.of(), 11, null,
        List.of()), 0);
    assertEquals(List.of(1), seen.set().pods().stream().map(PodSnapshot::ordinal).toList());
  }

  @Test
  void statusIsComparedWithTheStoredOneAndARolloutCompletesTheRevision() {
    KnownSet known = new KnownSet(KEY);
    SetStatus done = new SetStatus(2, 2, 2, 2, 2, 2, "b", "b", 0);
    Observation seen = known.apply(read(set(2, "b", List.of(pod(0, "b", true), pod(1, "b", true)), List.of()), true,
        List.of(), 10, done, List.of("a", "b")), 0);
    assertEquals("b", seen.set().currentRevision(), "every pod updated and Ready: b is current");
    assertFalse(seen.statusChanged());
    assertFalse(seen.newGeneration());
    assertFalse(seen.historyOverLimit(), "one revision beyond the live one, limit 1");
  }

  @Test
  void pruningIsDueWhenMoreRevisionsThanTheLimitAreNotLive() {
    Observation seen = new KnownSet(KEY).apply(read(set(1, "c", List.of(pod(0, "c", true)), List.of()), true,
        List.of(), 10, null, List.of("a", "b", "c")), 0);
    assertTrue(seen.historyOverLimit());
    assertTrue(seen.statusChanged());
    assertTrue(seen.newGeneration());
  }

  @Test
  void membersAreTheRecordedOnesAndEveryPodsWhenTheSetHasHooks() {
    MemberHooks hooks = new MemberHooks(new MemberHooks.Timing(10, 1, 1), null);
    SetSnapshot withHooks = set(3, "a", List.of(pod(2, "a", true)), List.of()).withMembership(hooks, List.of(0), null);
    Observation seen = new KnownSet(KEY).apply(new SetChanges(withHooks, true, List.of(), 10, "uid-1", null, "a", 0,
        List.of(), 10, false, null, true, null), 0);
    assertEquals(List.of(0, 2), seen.set().members());
  }

  @Test
  void aCompleteReadingSaysWhichPodsTheIncrementalOnesMissed() {
    KnownSet known = new KnownSet(KEY);
    known.apply(read(set(3, "a", List.of(pod(0, "a", false), pod(1, "a", false), pod(2, "a", false)), List.of()), true,
        List.of(), 10, null, List.of()), 0);
    // web-0 changed since version 10 and says so; web-1 changed without a version; web-2 went unsaid.
    SetChanges complete = new SetChanges(set(3, "a", List.of(pod(0, "a", true), pod(1, "a", true)), List.of()), true,
        List.of(), 20, "uid-1", null, "a", 0, List.of(), 1, false, null, false, List.of(0));
    Observation seen = known.apply(complete, 1_000);

    assertEquals(List.of(1, 2), known.missed());
    assertEquals(List.of(0, 1), seen.set().pods().stream().map(PodSnapshot::ordinal).toList(), "repaired");
    known.apply(read(set(3, "a", List.of(), List.of()), false, List.of(), 21, null, List.of()), 2_000);
    assertEquals(List.of(), known.missed());
  }

  @Test
  void aCompleteReadingIsAskedForFirstThenChangesSinceTheLastThenAgainEveryMinute() {
    KnownSet known = new KnownSet(KEY);
    assertTrue(known.nextRequest(0).complete());
    known.apply(read(set(1, "a", List.of(pod(0, "a", true)), List.of()), true, List.of(), 42, null, List.of()), 1_000);
    var next = known.nextRequest(2_000);
    assertFalse(next.complete());
    assertEquals(42, next.since());
    assertEquals("uid-1", next.uid());
    assertEquals(2, next.generation());
    var due = known.nextRequest(1_000 + KnownSet.COMPLETE_READING_EVERY.toMillis());
    assertTrue(due.complete());
    assertEquals(42, due.since(), "the complete reading says what changed since the last");
  }

  @Test
  void aSetThatIsGoneIsReadCompletelyWhenItComesBack() {
    KnownSet known = new KnownSet(KEY);
    known.apply(read(set(1, "a", List.of(pod(0, "a", true)), List.of()), true, List.of(), 42, null, List.of()), 0);
    Observation gone = known.apply(SetChanges.absent(KEY), 1);
    assertFalse(gone.set().exists());
    assertTrue(known.nextRequest(2).complete());
  }
}
