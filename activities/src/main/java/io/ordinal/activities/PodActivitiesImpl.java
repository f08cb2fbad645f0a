package io.ordinal.activities;

import io.ordinal.pods.PodLifecycle;
import io.ordinal.workflow.PodActivities;
import jakarta.inject.Singleton;

@Singleton
public class PodActivitiesImpl implements PodActivities {
  private final PodLifecycle lifecycle;

  public PodActivitiesImpl(PodLifecycle lifecycle) {
    this.lifecycle = lifecycle;
  }

  @Override
  public void createClaims(PodCreation request) {
    lifecycle.createClaims(request.set(), request.ordinal());
  }

  @Override
  public void createPod(PodCreation request) {
    lifecycle.createPod(request.set(), request.ordinal(), request.revision());
  }

  @Override
  public void deletePod(PodDeletion request) {
    lifecycle.deleteOwnedPod(request.set(), request.podName(), request.reason());
  }

  @Override
  public void updateClaims(ClaimUpdate request) {
    lifecycle.updateClaims(request.set(), request.ordinal(), request.podName());
  }

  @Override
  public void deleteClaim(ClaimDeletion request) {
    lifecycle.deleteClaim(request.set(), request.claimName(), request.reason());
  }
}
