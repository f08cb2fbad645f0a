package io.ordinal.activities;

import io.ordinal.node.ThisNode;
import io.ordinal.pods.PodLifecycle;
import io.ordinal.workflow.PodActivities;
import io.temporal.activity.Activity;
import io.temporal.failure.ApplicationFailure;
import jakarta.inject.Singleton;
import java.util.LinkedHashMap;
import java.util.Map;

@Singleton
public class PodActivitiesImpl implements PodActivities {
  private final PodLifecycle lifecycle;
  private final ThisNode thisNode;
  private final StatusPublisher statuses;

  public PodActivitiesImpl(PodLifecycle lifecycle, ThisNode thisNode, StatusPublisher statuses) {
    this.lifecycle = lifecycle;
    this.thisNode = thisNode;
    this.statuses = statuses;
  }

  @Override
  public void createClaims(PodCreation request) {
    onNode(request.node());
    lifecycle.createClaims(request.set(), request.ordinal());
  }

  @Override
  public void createPod(PodCreation request) {
    onNode(request.node());
    lifecycle.createPod(request.set(), request.ordinal(), request.revision());
    statuses.publish(request.status());
  }

  @Override
  public void deletePod(PodDeletion request) {
    onNode(request.node());
    lifecycle.deleteOwnedPod(request.set(), request.podName(), request.reason());
    statuses.publish(request.status());
  }

  @Override
  public void updatePodInPlace(PodInPlaceUpdate request) {
    onNode(request.node());
    lifecycle.updatePodInPlace(request.set(), request.podName(), request.revision());
    statuses.publish(request.status());
  }

  @Override
  public void createPods(PodCreations request) {
    onNode(request.node());
    Map<Integer, String> revisionByOrdinal = new LinkedHashMap<>();
    request.pods().forEach(pod -> revisionByOrdinal.put(pod.ordinal(), pod.revision()));
    lifecycle.createPods(request.set(), revisionByOrdinal);
    statuses.publish(request.status());
  }

  @Override
  public void deletePods(PodDeletions request) {
    onNode(request.node());
    request.pods().forEach(pod -> lifecycle.deleteOwnedPod(pod.set(), pod.podName(), pod.reason()));
    statuses.publish(request.status());
  }

  @Override
  public void updateClaims(ClaimUpdate request) {
    onNode(request.node());
    lifecycle.updateClaims(request.set(), request.ordinal(), request.podName());
  }

  @Override
  public void deleteClaim(ClaimDeletion request) {
    onNode(request.node());
    lifecycle.deleteClaim(request.set(), request.claimName(), request.reason());
  }

  /**
   * A step for another node's set, asked in a workflow task this node runs: refused before it acts,
   * not retried, so that the workflow asks that node's task queue instead.
   */
  private void onNode(String node) {
    if (node != null && !thisNode.is(node)) {
      throw ApplicationFailure.newNonRetryableFailure("node " + thisNode.name() + " is not node " + node
          + ", which runs this set's pods (" + Activity.getExecutionContext().getInfo().getActivityType() + ")",
          WRONG_NODE);
    }
  }
}
