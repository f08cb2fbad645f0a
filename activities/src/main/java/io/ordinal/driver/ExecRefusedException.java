package io.ordinal.driver;

/**
 * A command cannot be run in that container now: the container is not running, or the driver runs
 * no processes. The message is for the client (the API answers it as 400 BadRequest).
 */
public class ExecRefusedException extends RuntimeException {
  public ExecRefusedException(String message) {
    super(message);
  }

  /** Upstream's words (the kubelet's) for a container that has no running process to exec into. */
  public static ExecRefusedException containerNotFound(String container) {
    return new ExecRefusedException("unable to upgrade connection: container not found (\"" + container + "\")");
  }
}
