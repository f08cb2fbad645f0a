package io.ordinal.planner;

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

  static Plan done() {
    return new Plan(List.of(), true, 0, "");
  }
}
