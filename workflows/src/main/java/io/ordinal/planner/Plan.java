package io.ordinal.planner;

import java.util.ArrayList;
import java.util.List;

/**
 * The next step for a set.
 *
 * @param actions what to do now, in order
 * @param converged true when the set matches its spec and nothing is left to do or wait for
 * @param wakeAtMillis when a timer must re-evaluate the set even without a pod change
 *     (minReadySeconds); 0 when only a pod change can unblock it
 * @param waitingFor what the set waits for, for humans (workflow details, status)
 */
public record Plan(List<Action> actions, boolean converged, long wakeAtMillis, String waitingFor) {

  /**
   * True when the plan only touches claims or membership: no pod change will follow to wake the
   * workflow, so it observes again at once instead of waiting.
   */
  public boolean observeAgainAtOnce() {
    return !actions.isEmpty() && actions.stream().allMatch(a -> a instanceof Action.UpdateClaims
        || a instanceof Action.DeleteClaim || a instanceof Action.RunHook);
  }

  /** True when the plan creates, deletes or updates a pod: a step of the operation. */
  public boolean actsOnPods() {
    return actions.stream().anyMatch(a -> a instanceof Action.CreatePod || a instanceof Action.DeletePod
        || a instanceof Action.UpdatePodInPlace);
  }

  /** This plan with {@code earlier} actions done first. */
  Plan after(List<Action> earlier) {
    if (earlier.isEmpty()) {
      return this;
    }
    List<Action> all = new ArrayList<>(earlier);
    all.addAll(actions);
    return new Plan(List.copyOf(all), false, wakeAtMillis, waitingFor);
  }

  static Plan done() {
    return new Plan(List.of(), true, 0, "");
  }
}
