package io.ordinal.podsecurity;

import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.micronaut.context.annotation.Value;
import io.ordinal.store.NamespaceStore;
import jakarta.inject.Singleton;
import java.util.List;

/**
 * Pod Security admission against the stored namespaces: which levels a namespace enforces and warns
 * about, what a pod template violates, and which user a container that names none runs as.
 */
@Singleton
public class PodSecurityAdmission {
  /** On a pod: the uid:gid its containers run as when their securityContext names none (an image's USER, on a runtime with images). */
  public static final String DEFAULT_USER_ANNOTATION = "ordinal.io/default-user";

  private final NamespaceStore namespaces;
  private final Level defaultLevel;
  private final long defaultUid;
  private final long defaultGid;

  public PodSecurityAdmission(NamespaceStore namespaces,
      @Value("${ordinal.pod.security.default:baseline}") String defaultLevel,
      @Value("${ordinal.pod.default.uid:65534}") long defaultUid,
      @Value("${ordinal.pod.default.gid:65534}") long defaultGid) {
    this.namespaces = namespaces;
    this.defaultLevel = Level.parse(defaultLevel).orElseThrow(() -> new IllegalArgumentException(
        "ORDINAL_POD_SECURITY_DEFAULT must be privileged, baseline or restricted, not \"" + defaultLevel + "\""));
    if (defaultUid <= 0 || defaultGid <= 0) {
      throw new IllegalArgumentException("ORDINAL_POD_DEFAULT_UID and ORDINAL_POD_DEFAULT_GID must be above 0 (not root)");
    }
    this.defaultUid = defaultUid;
    this.defaultGid = defaultGid;
  }

  public Level defaultLevel() {
    return defaultLevel;
  }

  public PodSecurity.Policy policy(String namespace) {
    return PodSecurity.policy(namespaces.labels(namespace), defaultLevel);
  }

  /** The outcome for one pod (template): what the enforced level forbids, and what the warn level would. */
  public record Decision(Level enforce, List<CheckResult> forbidden, Level warn, List<CheckResult> warnings) {
    public boolean allowed() {
      return forbidden.isEmpty();
    }
  }

  public Decision evaluate(String namespace, ObjectMeta meta, PodSpec spec, String specPath) {
    PodSecurity.Policy policy = policy(namespace);
    List<CheckResult> forbidden = PodSecurity.evaluate(policy.enforce(), meta, spec, specPath);
    // As upstream, a warn level at or below the enforced one adds nothing the refusal did not say.
    List<CheckResult> warnings = policy.warn().compareTo(policy.enforce()) > 0
        ? PodSecurity.evaluate(policy.warn(), meta, spec, specPath) : List.of();
    return new Decision(policy.enforce(), forbidden, policy.warn(), warnings);
  }

  /** The uid:gid of a container without runAsUser/runAsGroup: root only where the namespace enforces privileged. */
  public String defaultUser(String namespace) {
    return policy(namespace).enforce() == Level.PRIVILEGED ? "0:0" : defaultUid + ":" + defaultGid;
  }
}
