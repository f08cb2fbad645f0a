package io.ordinal.model;

/**
 * A set's membership hooks ({@code ordinal.io/member-hooks}), as far as a workflow needs them: which
 * exist, and how long and how often to try each. The commands are read by the hook activity.
 *
 * @param preUpdate run before a member's pod is replaced for a rolling update (hand leadership away);
 *     null without (and in histories recorded before it existed)
 */
public record MemberHooks(Timing preCreate, Timing preDelete, Timing preUpdate) {
  public static final String PRE_CREATE = "PreCreate";
  public static final String PRE_DELETE = "PreDelete";
  public static final String PRE_UPDATE = "PreUpdate";
  public static final MemberHooks NONE = new MemberHooks(null, null, null);

  public MemberHooks(Timing preCreate, Timing preDelete) {
    this(preCreate, preDelete, null);
  }

  /**
   * @param timeoutSeconds one attempt's limit
   * @param maxAttempts attempts before the hook counts as failed (and membership changes are held)
   * @param backoffSeconds the wait before the first retry, doubled for each next one
   * @param completionDeadlineSeconds how long an attempt that answered "accepted" waits for its member's
   *     completion report; 0 for a hook that must finish in its answer (and in histories before it existed)
   */
  public record Timing(int timeoutSeconds, int maxAttempts, int backoffSeconds, int completionDeadlineSeconds) {
    public Timing(int timeoutSeconds, int maxAttempts, int backoffSeconds) {
      this(timeoutSeconds, maxAttempts, backoffSeconds, 0);
    }
  }

  public boolean any() {
    return preCreate != null || preDelete != null || preUpdate != null;
  }

  public Timing timing(String hook) {
    return switch (hook) {
      case PRE_CREATE -> preCreate;
      case PRE_UPDATE -> preUpdate;
      default -> preDelete;
    };
  }
}
