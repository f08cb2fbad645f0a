package io.ordinal.model;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * The ordinals a set runs: the first {@code replicas} ordinals from {@code start} that are not
 * reserved ({@code ordinal.io/reserved-ordinals}). Without reservations it is upstream's
 * {@code [start, start + replicas)}; each reserved ordinal inside the range moves its end up by one,
 * so the set keeps its size with the next free ordinal.
 *
 * @param reserved the reserved ordinals, sorted and distinct (any order and repeats are accepted)
 */
public record OrdinalRange(int start, int replicas, List<Integer> reserved) {

  public OrdinalRange {
    reserved = reserved == null ? List.of() : List.copyOf(new TreeSet<>(reserved));
  }

  /** One past the highest ordinal the set runs. */
  public int end() {
    long end = (long) start + replicas;
    for (int ordinal : reserved) {
      if (ordinal >= end) {
        break;
      }
      if (ordinal >= start) {
        end++;
      }
    }
    return (int) Math.min(end, Integer.MAX_VALUE);
  }

  public boolean contains(int ordinal) {
    return ordinal >= start && ordinal < end() && !reserved.contains(ordinal);
  }

  /** The ordinals the set runs, lowest first: {@code replicas} of them. */
  public List<Integer> ordinals() {
    List<Integer> ordinals = new ArrayList<>(replicas);
    int end = end();
    for (int ordinal = start; ordinal < end; ordinal++) {
      if (!reserved.contains(ordinal)) {
        ordinals.add(ordinal);
      }
    }
    return ordinals;
  }

  /**
   * The ordinal runs only because reserved ordinals moved the range up: it takes a reserved member's
   * place (upstream's range would end below it).
   */
  public boolean replacesReserved(int ordinal) {
    return ordinal >= (long) start + replicas && contains(ordinal);
  }

  /** The ordinal is out of the set only because it is reserved: without the reservation it would run. */
  public boolean condemnedByReservation(int ordinal) {
    return reserved.contains(ordinal) && ordinal >= start && ordinal < end();
  }
}
