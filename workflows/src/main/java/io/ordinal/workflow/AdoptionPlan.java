package io.ordinal.workflow;

import java.util.List;

/**
 * A running apps/v1 StatefulSet of a cluster found adoptable: the object (by uid, so a new one of the
 * same name is not touched), the revision all its pods run (the name Ordinal gives its template too),
 * its pods by name, ordinal and uid, and the apps.ordinal.io object that takes its place (JSON: its
 * labels, annotations and spec), made after the apps/v1 object is gone.
 */
public record AdoptionPlan(String namespace, String name, String setUid, String revision, List<Member> pods,
    String successor) {

  /** One pod of the set, as it was when the set was found adoptable. */
  public record Member(String name, int ordinal, String uid) {}
}
