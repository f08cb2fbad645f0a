package io.ordinal.podsecurity;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.PodSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Pod Security admission as upstream's {@code pod-security-admission}: a namespace's
 * {@code pod-security.kubernetes.io/*} labels choose a level to enforce, one to warn about and one
 * to audit; a pod is checked against each with {@link Checks}. Only version {@code latest} is
 * implemented: a label naming an older version is accepted and evaluated as latest.
 *
 * <p>Plus Ordinal's own rule for the local driver, whose "containers" share this machine's kernel
 * without a user namespace, so that root in a container is root on the machine: below
 * {@code privileged}, nothing may set {@code runAsUser: 0}.
 */
public final class PodSecurity {
  public static final String PREFIX = "pod-security.kubernetes.io/";
  public static final String ENFORCE = PREFIX + "enforce";
  public static final String WARN = PREFIX + "warn";
  public static final String AUDIT = PREFIX + "audit";
  private static final Pattern VERSION = Pattern.compile("latest|v1\\.(0|[1-9][0-9]{0,2})");

  /** The levels a namespace's labels choose; {@code enforce} falls back to the service's default, the others to privileged (nothing). */
  public record Policy(Level enforce, Level warn, Level audit) {}

  /** A bad label value: its field path, value and why. */
  public record LabelError(String field, String value, String detail) {}

  private PodSecurity() {}

  public static Policy policy(Map<String, String> labels, Level defaultEnforce) {
    Map<String, String> l = labels == null ? Map.of() : labels;
    return new Policy(level(l.get(ENFORCE), defaultEnforce), level(l.get(WARN), Level.PRIVILEGED),
        level(l.get(AUDIT), Level.PRIVILEGED));
  }

  private static Level level(String value, Level fallback) {
    return value == null ? fallback : Level.parse(value).orElse(fallback);
  }

  /** Upstream's namespace validation of the labels: levels privileged, baseline or restricted; versions latest or v1.N. */
  public static List<LabelError> validateLabels(Map<String, String> labels) {
    List<LabelError> errors = new ArrayList<>();
    if (labels == null) {
      return errors;
    }
    for (String mode : List.of("enforce", "warn", "audit")) {
      String level = labels.get(PREFIX + mode);
      if (level != null && Level.parse(level).isEmpty()) {
        errors.add(new LabelError("metadata.labels[" + PREFIX + mode + "]", level,
            "must be one of privileged, baseline, restricted"));
      }
      String version = labels.get(PREFIX + mode + "-version");
      if (version != null && !VERSION.matcher(version).matches()) {
        errors.add(new LabelError("metadata.labels[" + PREFIX + mode + "-version]", version,
            "must be \"latest\" or of the form \"v1.<minor>\""));
      }
    }
    return errors;
  }

  /**
   * What {@code level} forbids in a pod: upstream's checks, then Ordinal's root rule.
   *
   * @param specPath where the pod spec is in the object checked ({@code spec.template.spec} for a set,
   *     {@code spec} for a pod): the root rule names the very fields
   */
  public static List<CheckResult> evaluate(Level level, ObjectMeta meta, PodSpec spec, String specPath) {
    if (level == Level.PRIVILEGED) {
      return List.of();
    }
    List<CheckResult> results = new ArrayList<>(Checks.evaluate(level, meta, spec));
    List<String> rootFields = rootFields(spec, specPath);
    if (!rootFields.isEmpty()) {
      results.add(new CheckResult("root on the local driver", String.join(", ", rootFields)
          + " must not be 0: a local container shares this machine's kernel without a user namespace; only a namespace"
          + " labelled " + ENFORCE + "=privileged may run pods as root"));
    }
    return results;
  }

  /** The fields that set runAsUser to 0, by path. */
  static List<String> rootFields(PodSpec spec, String specPath) {
    List<String> fields = new ArrayList<>();
    if (spec.getSecurityContext() != null && Long.valueOf(0).equals(spec.getSecurityContext().getRunAsUser())) {
      fields.add(specPath + ".securityContext.runAsUser");
    }
    addRootContainers(fields, specPath + ".initContainers", spec.getInitContainers());
    addRootContainers(fields, specPath + ".containers", spec.getContainers());
    return fields;
  }

  private static void addRootContainers(List<String> fields, String path, List<Container> containers) {
    for (int i = 0; containers != null && i < containers.size(); i++) {
      var sc = containers.get(i).getSecurityContext();
      if (sc != null && Long.valueOf(0).equals(sc.getRunAsUser())) {
        fields.add(path + "[" + i + "].securityContext.runAsUser");
      }
    }
  }

  /** Upstream's {@code violates PodSecurity "restricted:latest": reason (detail), ...}. */
  public static String describe(Level level, List<CheckResult> results) {
    return "PodSecurity \"" + level.label() + ":latest\": "
        + String.join(", ", results.stream().map(CheckResult::toString).toList());
  }
}
