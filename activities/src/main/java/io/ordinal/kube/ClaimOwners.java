package io.ordinal.kube;

import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;

/**
 * The ownerReferences a set's claim carries under its persistentVolumeClaimRetentionPolicy, as
 * upstream's {@code updateClaimOwnerRefForSetAndPod} and {@code isClaimOwnerUpToDate} (v1.32) write
 * them. A claim owned by something is deleted once that owner is gone (Ordinal's garbage collection):
 *
 * <table>
 *   <tr><th>whenScaled / whenDeleted</th><th>pod in range</th><th>pod condemned</th></tr>
 *   <tr><td>Retain / Retain</td><td>none</td><td>none</td></tr>
 *   <tr><td>Retain / Delete</td><td>set</td><td>set</td></tr>
 *   <tr><td>Delete / Retain</td><td>none</td><td>pod</td></tr>
 *   <tr><td>Delete / Delete</td><td>set</td><td>pod</td></tr>
 * </table>
 *
 * Both are controller references with blockOwnerDeletion. A claim that another controller owns, or
 * that still names an earlier set or pod of the same name (another uid), is left to that owner:
 * only references to this set and pod are removed from it, none added. Pure.
 */
public final class ClaimOwners {
  private ClaimOwners() {}

  /** An owner of a claim: the set or one of its pods. */
  public record Owner(String apiVersion, String kind, String name, String uid) {
    boolean sameObject(OwnerReference ref) {
      return kind.equals(ref.getKind()) && name.equals(ref.getName())
          && group(apiVersion).equals(group(ref.getApiVersion()));
    }

    OwnerReference controllerReference() {
      return new OwnerReferenceBuilder().withApiVersion(apiVersion).withKind(kind).withName(name).withUid(uid)
          .withController(true).withBlockOwnerDeletion(true).build();
    }

    private static String group(String apiVersion) {
      return apiVersion == null || !apiVersion.contains("/") ? "" : apiVersion.substring(0, apiVersion.indexOf('/'));
    }
  }

  public static Owner setOwner(StatefulSet set) {
    return new Owner("apps/v1", "StatefulSet", set.getMetadata().getName(), set.getMetadata().getUid());
  }

  public static Owner podOwner(String podName, String podUid) {
    return new Owner("v1", "Pod", podName, podUid);
  }

  /**
   * The references {@code current} should be, for a claim of pod {@code pod} ({@code null} before
   * the pod exists) of {@code set}; {@code current} itself when nothing is to change.
   */
  public static List<OwnerReference> desired(List<OwnerReference> current, StatefulSet set, Owner pod,
      boolean podInRange) {
    List<OwnerReference> refs = current == null ? List.of() : current;
    Owner owner = setOwner(set);
    if (staleReference(refs, owner) || (pod != null && staleReference(refs, pod))) {
      return refs; // managed by an earlier incarnation of the set or pod: left to the garbage collector
    }
    var policy = set.getSpec().getPersistentVolumeClaimRetentionPolicy();
    boolean scaledDelete = policy != null && StatefulSetFields.DELETE.equals(policy.getWhenScaled());
    boolean deletedDelete = policy != null && StatefulSetFields.DELETE.equals(policy.getWhenDeleted());
    List<OwnerReference> result = new ArrayList<>();
    for (OwnerReference ref : refs) {
      if (!owner.sameObject(ref) && (pod == null || !pod.sameObject(ref))) {
        result.add(ref);
      }
    }
    boolean anotherController = (scaledDelete || deletedDelete)
        && result.stream().anyMatch(ref -> Boolean.TRUE.equals(ref.getController()));
    if (!anotherController) {
      boolean condemned = pod != null && !podInRange;
      if (deletedDelete && !(scaledDelete && condemned)) {
        result.add(owner.controllerReference());
      }
      if (scaledDelete && condemned) {
        result.add(pod.controllerReference());
      }
    }
    return sameReferences(refs, result) ? refs : List.copyOf(result);
  }

  /** Upstream's {@code hasUnexpectedController} for a claim: another controller owns it (ConflictingController). */
  public static boolean ownedByAnotherController(List<OwnerReference> current, StatefulSet set, Owner pod) {
    Owner owner = setOwner(set);
    return current != null && current.stream().anyMatch(ref -> Boolean.TRUE.equals(ref.getController())
        && !owner.sameObject(ref) && (pod == null || !pod.sameObject(ref)));
  }

  /** True when {@code current} already is what the policy asks for (upstream's {@code isClaimOwnerUpToDate}). */
  public static boolean upToDate(List<OwnerReference> current, StatefulSet set, Owner pod, boolean podInRange) {
    List<OwnerReference> refs = current == null ? List.of() : current;
    return desired(refs, set, pod, podInRange) == refs;
  }

  /** The uids of the pods that own a claim: it goes when one of them is gone. */
  public static List<String> podOwnerUids(List<OwnerReference> current) {
    return current == null ? List.of() : current.stream()
        .filter(ref -> "Pod".equals(ref.getKind()) && "v1".equals(ref.getApiVersion()))
        .map(OwnerReference::getUid).toList();
  }

  /** True when the claim is owned by {@code set} itself (this uid): it goes with the set. */
  public static boolean ownedBySet(List<OwnerReference> current, StatefulSet set) {
    Owner owner = setOwner(set);
    return current != null && current.stream()
        .anyMatch(ref -> owner.sameObject(ref) && Objects.equals(owner.uid(), ref.getUid()));
  }

  /** A reference to the same object by kind and name but another uid: an earlier incarnation of it. */
  private static boolean staleReference(List<OwnerReference> refs, Owner owner) {
    return refs.stream().anyMatch(ref -> owner.sameObject(ref) && !Objects.equals(owner.uid(), ref.getUid()));
  }

  private static boolean sameReferences(List<OwnerReference> a, List<OwnerReference> b) {
    return a.size() == b.size() && new HashSet<>(a).equals(new HashSet<>(b));
  }
}
