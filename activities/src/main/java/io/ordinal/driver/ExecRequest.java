package io.ordinal.driver;

import java.util.List;

/**
 * A command to run in a container of a running pod (kubectl exec), with the streams the client
 * attached: {@code stdin} piped from the client, {@code stdout} and {@code stderr} sent back to it,
 * and {@code tty} for a terminal (which carries stderr on its one output).
 */
public record ExecRequest(DriverPod pod, String container, List<String> command, boolean stdin, boolean stdout,
    boolean stderr, boolean tty) {

  public ExecRequest {
    command = List.copyOf(command);
    if (command.isEmpty()) {
      throw new IllegalArgumentException("an exec needs a command");
    }
  }
}
