package io.ordinal.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpecBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import io.ordinal.kube.MemberOverrides;
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
        RevisionStore.data(template), Instant.EPOCH, revision, null, Instant.EPOCH, false, null);
  }

  @Test
  void theHashIgnoresMapOrderAndChangesWithTheTemplateAndTheCollisionCount() {
    String ab = RevisionStore.data(template("nginx:1", Map.of("a", "1", "b", "2")));
    String ba = RevisionStore.data(template("nginx:1", Map.of("b", "2", "a", "1")));
    assertEquals(RevisionStore.hash(ab, null, 0), RevisionStore.hash(ba, null, 0));
    assertNotEquals(RevisionStore.hash(ab, null, 0), RevisionStore.hash(RevisionStore.data(template("nginx:2", Map.of())), null, 0));
    assertNotEquals(RevisionStore.hash(ab, null, 0), RevisionStore.hash(ab, null, 1));
    // Upstream's SafeEncodeString alphabet: no vowels, no 0/1/3 that read as letters.
    assertTrue(RevisionStore.hash(ab, null, 0).matches("[bcdfghjklmnpqrstvwxz2456789]+"), RevisionStore.hash(ab, null, 0));
  }

  @Test
  void lookupFindsTheNewestStoredRevisionAndNothingElse() {
    PodTemplateSpec v1 = template("nginx:1", Map.of("app", "web"));
    PodTemplateSpec v2 = template("nginx:2", Map.of("app", "web"));
    String name1 = RevisionStore.name("web", RevisionStore.data(v1), null, 0);
    String name2 = RevisionStore.name("web", RevisionStore.data(v2), null, 0);
    List<ControllerRevisionRow> history = List.of(row(name1, 1, v1), row(name2, 2, v2));

    assertEquals(Optional.of(new RevisionStore.Ensured(name2, 0, false)), RevisionStore.lookup(set(v2, null), history));
    assertEquals(Optional.empty(), RevisionStore.lookup(set(v1, null), history), "brought back: must be renumbered");
    assertEquals(Optional.empty(), RevisionStore.lookup(set(template("nginx:3", Map.of()), null), history), "new");
    // As upstream's FindEqualRevisions: a stored revision is found by its data, whatever the collision count.
    assertEquals(Optional.of(new RevisionStore.Ensured(name2, 1, false)), RevisionStore.lookup(set(v2, 1), history));
  }

  @Test
  void lookupStepsPastAHashCollisionWithAnotherTemplate() {
    PodTemplateSpec mine = template("nginx:1", Map.of());
    PodTemplateSpec other = template("other", Map.of());
    String collided = RevisionStore.name("web", RevisionStore.data(mine), null, 0);
    String next = RevisionStore.name("web", RevisionStore.data(mine), null, 1);
    // A stored revision under mine's name but with another template: mine was stored at collision count 1.
    List<ControllerRevisionRow> history = List.of(row(collided, 1, other), row(next, 2, mine));
    assertEquals(Optional.of(new RevisionStore.Ensured(next, 0, false)), RevisionStore.lookup(set(mine, 0), history));
    assertEquals(Optional.empty(), RevisionStore.lookup(set(mine, 0), List.of(row(collided, 1, other))), "to be made");
  }

  /**
   * A revision an older release stored (its template in another JSON form, its name from another
   * hash function) is still the set's revision while the template is unchanged: no pod is rolled
   * because the hash function changed.
   */
  @Test
  void aRevisionStoredByAnOlderReleaseIsFoundByItsTemplateNotItsName() {
    PodTemplateSpec v1 = template("nginx:1", Map.of("app", "web"));
    String olderForm = "{\"metadata\":{\"labels\":{\"app\":\"web\"}},\"spec\":{\"containers\":"
        + "[{\"image\":\"nginx:1\",\"name\":\"nginx\"}]}}";
    ControllerRevisionRow older = new ControllerRevisionRow("default/web-77cfdcbc66", "default", "web-77cfdcbc66", "web",
        "uid", 1, olderForm, Instant.EPOCH, 1, null, Instant.EPOCH, false, null);
    assertEquals(Optional.of(new RevisionStore.Ensured("web-77cfdcbc66", 0, false)),
        RevisionStore.lookup(set(v1, null), List.of(older)));
    assertEquals(Optional.empty(), RevisionStore.lookup(set(template("nginx:2", Map.of("app", "web")), null),
        List.of(older)), "a changed template is a new revision");
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

  @Test
  void memberOverridesAreOfTheRevisionTheirPatchSetsThemAndAnUndoPutsThemBackOrRemovesThem() {
    PodTemplateSpec v1 = template("nginx:1", Map.of("app", "web"));
    String overrides = "[{\"ordinals\":\"3-4\",\"template\":{\"spec\":{\"hostname\":\"big\"}}}]";
    String data = RevisionStore.data(v1);
    assertNotEquals(RevisionStore.name("web", data, null, 0), RevisionStore.name("web", data, overrides, 0));
    var patch = KubeJson.read(new String(RevisionStore.patch(data, overrides), java.nio.charset.StandardCharsets.UTF_8),
        com.fasterxml.jackson.databind.JsonNode.class);
    assertEquals(overrides, patch.at("/metadata/annotations").path(MemberOverrides.ANNOTATION).asText());
    assertTrue(KubeJson.read(new String(RevisionStore.patch(data, null), java.nio.charset.StandardCharsets.UTF_8),
        com.fasterxml.jackson.databind.JsonNode.class).path("metadata").isMissingNode(), "upstream's patch without them");

    StatefulSet plain = set(v1, null);
    plain.getSpec().setUpdateStrategy(new io.fabric8.kubernetes.api.model.apps.StatefulSetUpdateStrategy(null, "RollingUpdate"));
    StatefulSet withOverrides = KubeJson.copy(plain, StatefulSet.class);
    withOverrides.getMetadata().setAnnotations(Map.of(MemberOverrides.ANNOTATION, "- {ordinals: \"3-4\", template: {spec: {hostname: big}}}"));
    ControllerRevisionRow without = row("web-a", 1, v1);
    ControllerRevisionRow with = new ControllerRevisionRow("default/web-b", "default", "web-b", "web", "uid-b", 2,
        data, Instant.EPOCH, 2, null, Instant.EPOCH, false, overrides);
    assertEquals("web-a", RevisionStore.lookup(plain, List.of(with, without)).orElseThrow().name());
    assertEquals("web-b", RevisionStore.lookup(withOverrides, List.of(without, with)).orElseThrow().name());
    assertEquals(Optional.empty(), RevisionStore.lookup(withOverrides, List.of(without)), "a new revision is due");

    assertFalse(RevisionStore.revertedTo(withOverrides, without).getMetadata().getAnnotations()
        .containsKey(MemberOverrides.ANNOTATION));
    assertEquals(overrides, RevisionStore.revertedTo(plain, with).getMetadata().getAnnotations().get(MemberOverrides.ANNOTATION));
    assertEquals(withOverrides.getMetadata().getAnnotations(), RevisionStore.revertedTo(withOverrides, with).getMetadata()
        .getAnnotations(), "the same overrides keep the user's own text");
  }
}
