package io.ordinal.api.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micronaut.core.convert.value.ConvertibleMultiValues;
import io.ordinal.apimachinery.ApiException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ExecOptionsTest {

  @Test
  void kubectlsQueryIsReadWithTheCommandInOrder() {
    ExecOptions options = ExecOptions.parse(query(Map.of("command", List.of("sh", "-c", "exit 3"),
        "container", List.of("main"), "stdin", List.of("true"), "stdout", List.of("true"), "stderr", List.of("true"))));
    assertEquals(List.of("sh", "-c", "exit 3"), options.command());
    assertEquals("main", options.container());
    assertTrue(options.stdin() && options.stdout() && options.stderr());
    assertFalse(options.tty());
  }

  @Test
  void stdoutAndStderrDefaultToTrueAsUpstreamDefaultsThem() {
    ExecOptions options = ExecOptions.parse(query(Map.of("command", List.of("true"))));
    assertTrue(options.stdout() && options.stderr());
    assertFalse(options.stdin());
    assertNull(options.container());
  }

  @Test
  void aTerminalHasNoSeparateStderr() {
    ExecOptions options = ExecOptions.parse(query(Map.of("command", List.of("sh"), "tty", List.of("1"),
        "stdin", List.of("t"), "stderr", List.of("true"))));
    assertTrue(options.tty() && options.stdin() && options.stdout());
    assertFalse(options.stderr());
  }

  @Test
  void badQueriesAreBadRequests() {
    assertEquals("you must specify at least one command for the container",
        refused(Map.of("stdout", List.of("true"))));
    assertEquals("you must specify at least 1 of stdin, stdout, stderr",
        refused(Map.of("command", List.of("true"), "stdout", List.of("false"), "stderr", List.of("0"))));
    assertEquals("invalid value for stdin: \"yes\" (want true or false)",
        refused(Map.of("command", List.of("true"), "stdin", List.of("yes"))));
  }

  private static String refused(Map<CharSequence, List<String>> query) {
    ApiException e = assertThrows(ApiException.class, () -> ExecOptions.parse(query(query)));
    assertEquals(400, e.code());
    return e.getMessage();
  }

  private static ConvertibleMultiValues<String> query(Map<CharSequence, List<String>> values) {
    return ConvertibleMultiValues.of(new LinkedHashMap<>(values));
  }
}
