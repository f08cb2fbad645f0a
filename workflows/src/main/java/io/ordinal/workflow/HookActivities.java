package io.ordinal.workflow;

import io.ordinal.model.SetKey;
import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;

/**
 * The port through which an operation runs a set's membership hooks ({@code ordinal.io/member-hooks}).
 * A regular activity, not a local one: a hook may take minutes (a Cassandra decommission), heartbeats
 * while it runs, is retried by its own policy, and shows in the Web UI with its output.
 */
@ActivityInterface
public interface HookActivities {

  /**
   * Runs {@code hook} for the member and records the membership change it makes (PreCreate: joined;
   * PreDelete: left). Returns the hook's output; fails when it exits non-zero or times out. Hooks
   * should be idempotent: an attempt cut short by a crash of the service runs again.
   */
  @ActivityMethod
  String runHook(HookRun run);

  /**
   * The result of a hook whose wait for an asynchronous completion was ended by a spec that no longer
   * wants it: the pod action that depended on it is not taken, and the operation plans again.
   */
  String ABANDONED = "abandoned: the set no longer asks for it";

  static boolean abandoned(String output) {
    return output != null && output.startsWith(ABANDONED);
  }

  /** @param reason {@code ScaleUp}, {@code ScaleDown}, {@code Reserved}, {@code Update} or {@code Delete}, passed to the hook */
  record HookRun(SetKey set, String hook, int ordinal, String podName, String reason) {}
}
