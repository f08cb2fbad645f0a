package io.ordinal.podsecurity;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.PodSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.LongPredicate;
import java.util.regex.Pattern;

/**
 * Pod Security admission as upstream's {@code pod-security-admission}: a namespace's
 * {@code pod-security.kubernetes.io/*} labels choose a level to enforce, one to warn about and one
 * to audit; a pod is checked against each with {@link Checks}. Only version {@code latest} is
 * implemented: a label naming an older version is accepted and evaluated as latest.
 *
 * <p>Plus Ordinal's own rule for the local driver, whose "containers" share this machine's kernel
 * without a user namespace, so that root in a container is root on the machine: below
 * {@code privileged}, nothing may set {@code runAsUser: 0}, nor a runAsUser outside upstream's uid
 * range (admission refuses those; a set stored before it did must not get pods that run as root).
 */
public final class PodSecurity {
  public static final String PREFIX = "pod-security.kubernetes.io/";
  public static final String ENFORCE = PREFIX + "enforce";
  public static final String WARN = PREFIX + "warn";
  public static final String AUDIT = PREFIX + "audit";
  private static final Pattern VERSION = Pattern.compile("latest|v1\\.(0|[1-9][0-9]{0,2})");
  /**
   * The largest uid or gid upstream admits (apimachinery's {@code IsValidUserID}, {@code IsValidGroupID}
   * in v1.32: {@code math.MaxInt32}); the smallest is 0. Anything else (-1 keeps the caller's id in
   * setresuid, 2^32 wraps to 0) could run a local container as root.
   */
  public static final long MAX_ID = Integer.MAX_VALUE;
  /** Upstream's message for an id outside that range ({@code InclusiveRangeError(0, math.MaxInt32)}). */
  public static final String ID_RANGE = "must be between 0 and " + MAX_ID + ", inclusive";

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
    String local = ": a local container shares this machine's kernel without a user namespace; only a namespace"
        + " labelled " + ENFORCE + "=privileged may run pods as root";
    List<String> rootFields = runAsUserFields(spec, specPath, uid -> uid == 0);
    if (!rootFields.isEmpty()) {
      results.add(new CheckResult("root on the local driver", String.join(", ", rootFields) + " must not be 0" + local));
    }
    List<String> invalidFields = runAsUserFields(spec, specPath, uid -> !validId(uid));
    if (!invalidFields.isEmpty()) {
      results.add(new CheckResult("root on the local driver", String.join(", ", invalidFields) + " " + ID_RANGE
          + " (the local driver could run any other value as root)" + local));
    }
    return results;
  }

  /** Whether {@code id} is a uid or gid upstream admits: 0 to {@link #MAX_ID}. */
  public static boolean validId(long id) {
    return id >= 0 && id <= MAX_ID;
  }

  /** The fields whose runAsUser matches {@code test}, by path. */
  static List<String> runAsUserFields(PodSpec spec, String specPath, LongPredicate test) {
    List<String> fields = new ArrayList<>();
    if (spec.getSecurityContext() != null && matches(spec.getSecurityContext().getRunAsUser(), test)) {
      fields.add(specPath + ".securityContext.runAsUser");
    }
    addContainers(fields, specPath + ".initContainers", spec.getInitContainers(), test);
    addContainers(fields, specPath + ".containers", spec.getContainers(), test);
    return fields;
  }

  private static void addContainers(List<String> fields, String path, List<Container> containers, LongPredicate test) {
    for (int i = 0; containers != null && i < containers.size(); i++) {
      var sc = containers.get(i).getSecurityContext();
      if (sc != null && matches(sc.getRunAsUser(), test)) {
        fields.add(path + "[" + i + "].securityContext.runAsUser");
      }
    }
  }

  private static boolean matches(Long uid, LongPredicate test) {
    return uid != null && test.test(uid);
  }

  /** Upstream's {@code violates PodSecurity "restricted:latest": reason (detail), ...}. */
  public static String describe(Level level, List<CheckResult> results) {
    return "PodSecurity \"" + level.label() + ":latest\": "
        + String.join(", ", results.stream().map(CheckResult::toString).toList());
  }
}
