package io.ordinal.kube;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Probe;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The {@code ordinal.io/role-probe} annotation of a set: a probe (a Kubernetes {@code Probe} with
 * {@code exec} or {@code httpGet}, in JSON or YAML) whose output, its first line, is the member's
 * role, as KubeBlocks' {@code roleProbe}. The pod is given the label of {@code ordinal.io/leader-label}'s
 * key with the role as its value, so the software need not label its own pod: a Redis whose
 * {@code redis-cli role} says {@code master} is the leader of {@code role=master}. Run every
 * {@code periodSeconds} (default 5) in each running pod by the local driver; a failed run or an
 * output that is no label value changes nothing.
 */
public final class RoleProbe {
  public static final String ANNOTATION = "ordinal.io/role-probe";
  public static final int DEFAULT_PERIOD_SECONDS = 5;
  /** YAML or JSON (a JSON document is YAML). */
  private static final ObjectMapper READER = new YAMLMapper();
  private static final Pattern LABEL_VALUE = Pattern.compile("(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?");

  private RoleProbe() {}

  /** The set's role probe; empty without one (or with one admission refused). */
  public static Optional<Probe> of(ObjectMeta meta) {
    String text = Labels.annotation(meta, ANNOTATION);
    if (text == null || problem(text) != null) {
      return Optional.empty();
    }
    return Optional.of(parse(text));
  }

  private static Probe parse(String text) {
    try {
      return READER.readValue(text, Probe.class);
    } catch (java.io.IOException e) {
      throw new IllegalArgumentException(e.getMessage(), e);
    }
  }

  /** What is wrong with a value, for {@code metadata.annotations[ordinal.io/role-probe]}; null if valid. */
  public static String problem(String text) {
    Probe probe;
    try {
      probe = parse(text);
    } catch (IllegalArgumentException e) {
      return "must be a probe with exec or httpGet (JSON or YAML): " + e.getMessage().lines().findFirst().orElse("");
    }
    if (probe != null && !probe.getAdditionalProperties().isEmpty()) {
      // A typo is refused, not a probe that never runs.
      return "unknown field " + probe.getAdditionalProperties().keySet().iterator().next();
    }
    if (probe == null || (probe.getExec() == null) == (probe.getHttpGet() == null) || probe.getTcpSocket() != null
        || probe.getGrpc() != null) {
      return "must have exactly one of exec or httpGet, whose output is the member's role";
    }
    if (probe.getExec() != null && (probe.getExec().getCommand() == null || probe.getExec().getCommand().isEmpty())) {
      return "exec.command is required";
    }
    if (probe.getHttpGet() != null && probe.getHttpGet().getPort() == null) {
      return "httpGet.port is required";
    }
    if (probe.getPeriodSeconds() != null && probe.getPeriodSeconds() < 1
        || probe.getTimeoutSeconds() != null && probe.getTimeoutSeconds() < 1) {
      return "periodSeconds and timeoutSeconds must be at least 1";
    }
    return null;
  }

  /** The role in a probe's output: its first line, trimmed, if it is a valid label value; empty otherwise. */
  public static Optional<String> role(String output) {
    String first = output == null ? "" : output.strip().lines().findFirst().orElse("").strip();
    return !first.isEmpty() && first.length() <= 63 && LABEL_VALUE.matcher(first).matches() ? Optional.of(first)
        : Optional.empty();
  }

  public static int periodSeconds(Probe probe) {
    return probe.getPeriodSeconds() == null ? DEFAULT_PERIOD_SECONDS : probe.getPeriodSeconds();
  }
}
