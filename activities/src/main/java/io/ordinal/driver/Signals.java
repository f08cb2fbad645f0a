package io.ordinal.driver;

import java.io.IOException;

/** Sends a POSIX signal by name (TERM, INT, KILL…) to a process or a whole process group, through kill(1). */
public final class Signals {
  private Signals() {}

  /** Returns false when kill(1) could not be run. */
  public static boolean send(long pid, String signal) {
    return kill(signal, Long.toString(pid));
  }

  /** The group whose leader is {@code pgid}: a container's session. */
  public static boolean sendToGroup(long pgid, String signal) {
    return kill(signal, "-" + pgid);
  }

  private static boolean kill(String signal, String target) {
    try {
      new ProcessBuilder("kill", "-" + signal, "--", target)
          .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectErrorStream(true).start().waitFor();
      return true;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }
}
