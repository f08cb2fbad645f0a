package io.ordinal.api.exec;

import io.micronaut.core.convert.value.ConvertibleMultiValues;
import io.ordinal.api.PodService;
import io.ordinal.apimachinery.ApiException;
import io.ordinal.driver.ExecRequest;
import java.util.List;

/**
 * The query of {@code pods/{name}/exec} (upstream's PodExecOptions): {@code command} (repeated),
 * {@code container}, and which of {@code stdin}, {@code stdout}, {@code stderr}, {@code tty} the
 * client attaches. stdout and stderr default to true, as upstream defaults them.
 */
public record ExecOptions(List<String> command, String container, boolean stdin, boolean stdout, boolean stderr,
    boolean tty) {

  public static ExecOptions parse(ConvertibleMultiValues<String> query) {
    List<String> command = query.getAll("command");
    if (command.isEmpty()) {
      throw ApiException.badRequest("you must specify at least one command for the container");
    }
    boolean tty = flag(query, "tty", false);
    boolean stdin = flag(query, "stdin", false);
    boolean stdout = flag(query, "stdout", true);
    // A terminal has one output; the kubelet drops stderr with a tty rather than refusing it.
    boolean stderr = flag(query, "stderr", true) && !tty;
    if (!stdin && !stdout && !stderr) {
      throw ApiException.badRequest("you must specify at least 1 of stdin, stdout, stderr");
    }
    String container = query.get("container");
    return new ExecOptions(List.copyOf(command), container == null || container.isEmpty() ? null : container,
        stdin, stdout, stderr, tty);
  }

  /** What to run in the pod and container an exec was checked against. */
  public ExecRequest request(PodService.ExecTarget target) {
    return new ExecRequest(target.pod(), target.container(), command, stdin, stdout, stderr, tty);
  }

  /** A boolean query parameter as the API server decodes one (Go's strconv.ParseBool); 400 for anything else. */
  static boolean flag(ConvertibleMultiValues<String> query, String name, boolean absent) {
    String value = query.get(name);
    if (value == null || value.isEmpty()) {
      return absent;
    }
    return switch (value) {
      case "1", "t", "T", "true", "TRUE", "True" -> true;
      case "0", "f", "F", "false", "FALSE", "False" -> false;
      default -> throw ApiException.badRequest("invalid value for " + name + ": \"" + value
          + "\" (want true or false)");
    };
  }
}
