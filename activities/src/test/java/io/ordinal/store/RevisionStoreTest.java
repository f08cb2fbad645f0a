package io.ordinal.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpecBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The pure parts of ControllerRevision bookkeeping: naming, lookup without writes, pruning. */
class RevisionStoreTest {
  static PodTemplateSpec template(String image, Map<String, String> labels) {
    return new PodTemplateSpecBuilder().withNewMetadata().withLabels(labels).endMetadata()
        .withNewSpec().addNewContainer().withName("nginx").withImage(image).endContainer().endSpec().build();
  }

  static StatefulSet set(PodTemplateSpec template, Integer collisionCount) {
    return new StatefulSetBuilder().withNewMetadata().withNamespace("default").withName("web").endMetadata()
        .withNewSpec().withTemplate(template).endSpec()
        .withNewStatus().withCollisionCount(collisionCount).endStatus().build();
  }

  static ControllerRevisionRow row(String name, long revision, PodTemplateSpec template) {
    return new ControllerRevisionRow("default/" + name, "default", name, "web", "uid-" + name, revision,
        RevisionStore.canonical(template), Instant.EPOCH, revision, null, Instant.EPOCH, false);
  }

  @Test
  void theHashIgnoresMapOrderAndChangesWithTheTemplateAndTheCollisionCount() {
    String ab = RevisionStore.canonical(template("nginx:1", Map.of("a", "1", "b", "2")));
    String ba = RevisionStore.canonical(template("nginx:1", Map.of("b", "2", "a", "1")));
    assertEquals(RevisionStore.hash(ab, 0), RevisionStore.hash(ba, 0));
    assertNotEquals(RevisionStore.hash(ab, 0), RevisionStore.hash(RevisionStore.canonical(template("nginx:2", Map.of())), 0));
    assertNotEquals(RevisionStore.hash(ab, 0), RevisionStore.hash(ab, 1));
    // Upstream's SafeEncodeString alphabet: no vowels, no 0/1/3 that read as letters.
    assertTrue(RevisionStore.hash(ab, 0).matches("[bcdfghjklmnpqrstvwxz2456789]+"), RevisionStore.hash(ab, 0));
  }

  @Test
  void lookupFindsTheNewestStoredRevisionAndNothingElse() {
    PodTemplateSpec v1 = template("nginx:1", Map.of("app", "web"));
    PodTemplateSpec v2 = template("nginx:2", Map.of("app", "web"));
    String name1 = "web-" + RevisionStore.hash(RevisionStore.canonical(v1), 0);
    String name2 = "web-" + RevisionStore.hash(RevisionStore.canonical(v2), 0);
    List<ControllerRevisionRow> history = List.of(row(name1, 1, v1), row(name2, 2, v2));

    assertEquals(Optional.of(new RevisionStore.Ensured(name2, 0, false)), RevisionStore.lookup(set(v2, null), history));
    assertEquals(Optional.empty(), RevisionStore.lookup(set(v1, null), history), "brought back: must be renumbered");
    assertEquals(Optional.empty(), RevisionStore.lookup(set(template("nginx:3", Map.of()), null), history), "new");
    assertEquals(Optional.empty(), RevisionStore.lookup(set(v2, 1), history), "another collision count, another name");
  }

  @Test
  void lookupStepsPastAHashCollisionWithAnotherTemplate() {
    PodTemplateSpec mine = template("nginx:1", Map.of());
    PodTemplateSpec other = template("other", Map.of());
    String collided = "web-" + RevisionStore.hash(RevisionStore.canonical(mine), 0);
    String next = "web-" + RevisionStore.hash(RevisionStore.canonical(mine), 1);
    // A stored revision under mine's name but with another template: mine lives at collision count 1.
    List<ControllerRevisionRow> history = List.of(row(collided, 1, other), row(next, 2, mine));
    assertEquals(Optional.of(new RevisionStore.Ensured(next, 1, false)), RevisionStore.lookup(set(mine, 0), history));
  }

  @Test
  void pruningDeletesTheOldestBeyondTheLimitButNeverALiveRevision() {
    PodTemplateSpec t = template("x", Map.of());
    List<ControllerRevisionRow> history = new ArrayList<>();
    for (int i = 1; i <= 6; i++) {
      history.add(row("web-r" + i, i, t));
    }
    List<String> pruned = RevisionStore.prunable(history, 2, Set.of("web-r1", "web-r6")).stream()
        .map(ControllerRevisionRow::name).toList();
    assertEquals(List.of("web-r2", "web-r3"), pruned, "r4, r5 kept by the limit; r1 and r6 are live");
    assertEquals(List.of(), RevisionStore.prunable(history, 10, Set.of()));
    assertEquals(6, RevisionStore.prunable(history, 0, Set.of()).size());
  }
}
