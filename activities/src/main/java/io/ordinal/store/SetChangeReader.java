package io.ordinal.store;

import jakarta.inject.Singleton;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Reads a set's pods and claims that changed after a resourceVersion, and the version the reading is
 * consistent with. Resource versions commit in order (V4__watch_log.sql), so every change up to the
 * version read first is visible to the queries after it; a change after it that they see is read
 * again next time (merging is idempotent). Deletions are read before the rows, so a pod deleted in
 * between is still known (as a slightly older reading would have it), never taken for gone while it
 * exists. No transaction: each query holds a pooled connection only for itself, as the API's reads do.
 */
@Singleton
public class SetChangeReader {
  private final Repositories.Pods pods;
  private final Repositories.Pvcs pvcs;

  public SetChangeReader(Repositories.Pods pods, Repositories.Pvcs pvcs) {
    this.pods = pods;
    this.pvcs = pvcs;
  }

  /**
   * @param complete every pod and claim of the set was read
   * @param pods the pods that changed, and those whose claims changed (every pod when complete)
   * @param claims the claims of those pods' ordinals (every claim when complete)
   * @param goneOrdinals ordinals whose pod was deleted after {@code since} (none when complete)
   * @param changedOrdinals of a complete reading after {@code since}: the ordinals whose pod or
   *     claims changed or went after it; null when the watch log no longer holds them all
   */
  public record Reading(long version, boolean complete, List<PodRow> pods, List<PvcRow> claims,
      List<Integer> goneOrdinals, Set<Integer> changedOrdinals) {}

  /**
   * What changed after {@code since}, or everything when {@code complete} (or {@code since} is 0, or
   * the watch log no longer holds every deletion after it).
   */
  public Reading since(String namespace, String setName, long since, boolean complete) {
    long version = pods.currentVersion();
    boolean logged = since > 0 && since >= pods.compactedVersion();
    if (!logged || complete) {
      return new Reading(version, true, pods.findByNamespaceAndSetNameOrderByOrdinal(namespace, setName),
          pvcs.findByNamespaceAndSetNameOrderByName(namespace, setName), List.of(),
          logged ? changedOrdinals(namespace, setName, since) : null);
    }
    List<Integer> gone = pods.deletedOrdinals("pods", namespace, setName, since);
    // A claim's change (or deletion) changes whether its pod's claims are up to date: read that pod too.
    Set<Integer> ordinals = claimOrdinalsChanged(namespace, setName, since);
    List<PodRow> changed = pods.findByNamespaceAndSetNameAndResourceVersionGreaterThanOrderByOrdinal(namespace, setName, since);
    changed.forEach(pod -> ordinals.remove(pod.ordinal()));
    List<PodRow> read = changed;
    if (!ordinals.isEmpty()) {
      read = new ArrayList<>(changed);
      read.addAll(pods.findByNamespaceAndSetNameAndOrdinalInListOrderByOrdinal(namespace, setName, ordinals));
      read.sort(Comparator.comparingInt(PodRow::ordinal));
    }
    Set<Integer> podOrdinals = new TreeSet<>();
    read.forEach(pod -> podOrdinals.add(pod.ordinal()));
    List<PvcRow> claims = podOrdinals.isEmpty() ? List.of()
        : pvcs.findByNamespaceAndSetNameAndOrdinalInListOrderByName(namespace, setName, podOrdinals);
    return new Reading(version, false, read, claims, gone, null);
  }

  /** The ordinals whose pod or claims changed or went after {@code since}. */
  private Set<Integer> changedOrdinals(String namespace, String setName, long since) {
    Set<Integer> changed = claimOrdinalsChanged(namespace, setName, since);
    pods.findByNamespaceAndSetNameAndResourceVersionGreaterThanOrderByOrdinal(namespace, setName, since)
        .forEach(pod -> changed.add(pod.ordinal()));
    changed.addAll(pods.deletedOrdinals("pods", namespace, setName, since));
    return changed;
  }

  /** The ordinals of the set's claims that changed or went after {@code since}. */
  private Set<Integer> claimOrdinalsChanged(String namespace, String setName, long since) {
    Set<Integer> ordinals = new TreeSet<>();
    pvcs.findByNamespaceAndSetNameAndResourceVersionGreaterThan(namespace, setName, since)
        .forEach(claim -> ordinals.add(claim.ordinal()));
    ordinals.addAll(pods.deletedOrdinals("persistent_volume_claims", namespace, setName, since));
    return ordinals;
  }
}
