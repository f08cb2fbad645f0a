package io.ordinal.kube;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

/** Upstream's retention table (updateClaimOwnerRefForSetAndPod, v1.32), and its e2e cases on other owners. */
class ClaimOwnersTest {
  static final ClaimOwners.Owner POD = ClaimOwners.podOwner("web-1", "pod-uid");

  static StatefulSet set(String whenScaled, String whenDeleted) {
    return new StatefulSetBuilder().withNewMetadata().withName("web").withNamespace("ns").withUid("set-uid").endMetadata()
        .withNewSpec().withReplicas(1).withNewPersistentVolumeClaimRetentionPolicy()
        .withWhenScaled(whenScaled).withWhenDeleted(whenDeleted).endPersistentVolumeClaimRetentionPolicy().endSpec()
        .build();
  }

  static Stream<Arguments> table() {
    return Stream.of(
        // whenScaled, whenDeleted, pod in range, owners
        Arguments.of("Retain", "Retain", true, ""),
        Arguments.of("Retain", "Retain", false, ""),
        Arguments.of("Retain", "Delete", true, "set"),
        Arguments.of("Retain", "Delete", false, "set"),
        Arguments.of("Delete", "Retain", true, ""),
        Arguments.of("Delete", "Retain", false, "pod"),
        Arguments.of("Delete", "Delete", true, "set"),
        Arguments.of("Delete", "Delete", false, "pod"));
  }

  @ParameterizedTest(name = "whenScaled {0}, whenDeleted {1}, in range {2}: {3}")
  @MethodSource("table")
  void ownersFollowThePolicy(String whenScaled, String whenDeleted, boolean inRange, String expected) {
    StatefulSet set = set(whenScaled, whenDeleted);
    // From any starting point (none, the set, the pod, both) the result is the same, and then up to date.
    for (List<OwnerReference> start : List.of(List.<OwnerReference>of(), List.of(setRef()), List.of(podRef()),
        List.of(setRef(), podRef()))) {
      List<OwnerReference> owners = ClaimOwners.desired(start, set, POD, inRange);
      assertEquals(expected, render(owners), "from " + render(start));
      assertTrue(ClaimOwners.upToDate(owners, set, POD, inRange));
      owners.forEach(ref -> {
        assertEquals(true, ref.getController());
        assertEquals(true, ref.getBlockOwnerDeletion());
      });
    }
  }

  @Test
  void aNewClaimIsOwnedByTheSetOnlyWhenItIsDeletedWithTheSet() {
    assertEquals("set", render(ClaimOwners.desired(List.of(), set("Delete", "Delete"), null, true)));
    assertEquals("", render(ClaimOwners.desired(List.of(), set("Delete", "Retain"), null, true)));
  }

  @Test
  void anotherControllerKeepsTheClaimAndOnlyOurReferencesAreRemoved() {
    OwnerReference configMap = new OwnerReferenceBuilder().withApiVersion("v1").withKind("ConfigMap").withName("cm")
        .withUid("cm-uid").withController(true).build();
    StatefulSet set = set("Delete", "Delete");
    assertEquals("ConfigMap", render(ClaimOwners.desired(List.of(configMap, setRef()), set, POD, false)));
    assertTrue(ClaimOwners.ownedByAnotherController(List.of(configMap), set, POD));
    assertTrue(ClaimOwners.upToDate(List.of(configMap), set, POD, false));
  }

  @Test
  void aNonControllerOwnerStaysBesideOurs() {
    OwnerReference configMap = new OwnerReferenceBuilder().withApiVersion("v1").withKind("ConfigMap").withName("cm")
        .withUid("cm-uid").build();
    assertEquals("ConfigMap set", render(ClaimOwners.desired(List.of(configMap), set("Retain", "Delete"), POD, true)));
  }

  @Test
  void aReferenceToAnEarlierSetOfTheSameNameLeavesTheClaimAlone() {
    OwnerReference earlier = new OwnerReferenceBuilder().withApiVersion("apps/v1").withKind("StatefulSet")
        .withName("web").withUid("old-uid").withController(true).build();
    StatefulSet set = set("Delete", "Delete");
    assertTrue(ClaimOwners.upToDate(List.of(earlier), set, POD, true));
    assertFalse(ClaimOwners.ownedBySet(List.of(earlier), set));
  }

  @Test
  void aNonControllerReferenceOfOursIsMadeAControllerOne() {
    OwnerReference plain = new OwnerReferenceBuilder().withApiVersion("apps/v1").withKind("StatefulSet")
        .withName("web").withUid("set-uid").build();
    assertFalse(ClaimOwners.upToDate(List.of(plain), set("Retain", "Delete"), POD, true));
  }

  @Test
  void podOwnedClaimsNameTheirPods() {
    assertEquals(List.of("pod-uid"), ClaimOwners.podOwnerUids(List.of(setRef(), podRef())));
    assertTrue(ClaimOwners.ownedBySet(List.of(setRef()), set("Retain", "Delete")));
  }

  static OwnerReference setRef() {
    return new OwnerReferenceBuilder().withApiVersion("apps/v1").withKind("StatefulSet").withName("web")
        .withUid("set-uid").withController(true).withBlockOwnerDeletion(true).build();
  }

  static OwnerReference podRef() {
    return new OwnerReferenceBuilder().withApiVersion("v1").withKind("Pod").withName("web-1")
        .withUid("pod-uid").withController(true).withBlockOwnerDeletion(true).build();
  }

  static String render(List<OwnerReference> refs) {
    List<String> kinds = new ArrayList<>();
    for (OwnerReference ref : refs) {
      kinds.add(switch (ref.getKind()) {
        case "StatefulSet" -> "set";
        case "Pod" -> "pod";
        default -> ref.getKind();
      });
    }
    return String.join(" ", kinds);
  }
}
