package io.ordinal.kube;

import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.ordinal.model.OrdinalRange;
import java.util.List;

/** The enum values of apps/v1 StatefulSet fields, shared by defaulting, validation and the adapters. */
public final class StatefulSetFields {
  public static final String ORDERED_READY = "OrderedReady";
  public static final String PARALLEL = "Parallel";
  public static final String ROLLING_UPDATE = "RollingUpdate";
  public static final String ON_DELETE = "OnDelete";
  public static final String RETAIN = "Retain";
  public static final String DELETE = "Delete";

  private StatefulSetFields() {}

  /** {@code spec.ordinals.start}, 0 when unset. */
  public static int ordinalStart(StatefulSet set) {
    var ordinals = set.getSpec().getOrdinals();
    return ordinals == null || ordinals.getStart() == null ? 0 : ordinals.getStart();
  }

  /** The ordinals the set runs: upstream's [start, start + replicas), less its reserved ordinals. */
  public static OrdinalRange ordinalRange(StatefulSet set) {
    int replicas = set.getSpec().getReplicas() == null ? 1 : set.getSpec().getReplicas();
    return new OrdinalRange(ordinalStart(set), replicas, ReservedOrdinals.of(set.getMetadata()));
  }

  /** Upstream {@code podInOrdinalRange}, with reserved ordinals left out. */
  public static boolean inOrdinalRange(StatefulSet set, int ordinal) {
    return ordinalRange(set).contains(ordinal);
  }

  /** An optional list field of the fabric8 model, empty when unset. */
  public static <T> List<T> nullSafe(List<T> list) {
    return list == null ? List.of() : list;
  }
}
