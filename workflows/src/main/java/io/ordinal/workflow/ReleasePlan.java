package io.ordinal.workflow;

import java.util.List;

/**
 * A set of Ordinal's, mirrored from the cluster's apps.ordinal.io object, found ready to be handed
 * back: the object (by uid), the revision all its pods run, its pods (name, ordinal, uid in the
 * cluster) and the apps/v1 object that takes its place (JSON: labels, annotations and spec).
 */
public record ReleasePlan(String namespace, String name, String objectUid, String revision,
    List<AdoptionPlan.Member> pods, String successor) {}
