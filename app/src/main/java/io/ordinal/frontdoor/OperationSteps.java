package io.ordinal.frontdoor;

import io.micronaut.context.annotation.Value;
import io.temporal.activity.Activity;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The steps of an adoption or a release, said in the log as each starts ("adoption of shop/web:
 * moveOwnership"). {@code ordinal.adoption.step-pause} (default none) makes each wait that long
 * first, heartbeating: long enough for a test to kill the service inside every step.
 */
@Singleton
class OperationSteps {
  private static final Logger log = LoggerFactory.getLogger(OperationSteps.class);
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
}
