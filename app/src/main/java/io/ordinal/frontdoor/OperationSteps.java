package io.ordinal.frontdoor;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.micronaut.context.annotation.Value;
import io.ordinal.store.PodStore;
import io.ordinal.workflow.AdoptionActivities;
import io.temporal.activity.Activity;
import io.temporal.failure.ApplicationFailure;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The steps of an adoption or a release (and of a take-over or hand-back of an apps/v1 set by Ordinal
 * as the cluster's StatefulSet controller), said in the log as each starts ("adoption of shop/web:
 * moveOwnership"). {@code ordinal.adoption.step-pause} (default none) makes each wait that long
 * first, heartbeating: long enough for a test to kill the service inside every step.
 */
@Singleton
class OperationSteps {
  private static final Logger log = LoggerFactory.getLogger(OperationSteps.class);
  /** How long one attempt of a waiting step waits before it fails (and is retried). */
  private static final Duration WAIT = Duration.ofSeconds(90);
  private final Duration pause;

  OperationSteps(@Value("${ordinal.adoption.step-pause:0s}") Duration pause) {
    this.pause = pause;
  }

  /** Outside an activity (a dry run's plan) there is nothing to heartbeat to. */
  private static void heartbeat(String step) {
    try {
      Activity.getExecutionContext().heartbeat(step);
    } catch (IllegalStateException notInAnActivity) {
      // a dry run
    }
  }

  void begin(String operation, String namespace, String name, String step) {
    log.info("{} of {}/{}: {}", operation, namespace, name, step);
    Instant until = Instant.now().plus(pause);
    while (Instant.now().isBefore(until)) {
      heartbeat(step);
      try {
        Thread.sleep(Math.min(200, Duration.between(Instant.now(), until).toMillis() + 1));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted", e);
      }
    }
  }

  /**
   * Polls {@code waitingFor} (what is still awaited; empty when done) every half second, heartbeating,
   * for up to {@link #WAIT}; then fails saying what it still waited for, and the step is retried.
   */
  static void await(Supplier<Optional<String>> waitingFor) {
    Instant deadline = Instant.now().plus(WAIT);
    Optional<String> waiting = waitingFor.get();
    while (waiting.isPresent()) {
      if (Instant.now().isAfter(deadline)) {
        throw new IllegalStateException("still waiting for " + waiting.get());
      }
      heartbeat(waiting.get());
      try {
        Thread.sleep(500);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted", e);
      }
      waiting = waitingFor.get();
    }
  }

  /** Whether the object's controller (its owner reference with controller: true) has {@code uid}. */
  static boolean controlledBy(HasMetadata object, String uid) {
    return PodStore.controllerOf(object.getMetadata().getOwnerReferences())
        .filter(controller -> uid.equals(controller.getUid())).isPresent();
  }

  /** A step's refusal: not retried, and the API answers it as a 409 with {@code why}. */
  static ApplicationFailure refused(String why) {
    return ApplicationFailure.newNonRetryableFailure(why, AdoptionActivities.REFUSED);
  }
}
