package io.ordinal.kube;

import io.fabric8.kubernetes.api.model.ObjectMeta;
import java.util.Map;
import java.util.Optional;

/**
 * The {@code ordinal.io/leader-label} annotation of a set: the pod label ({@code key=value}) that
 * marks a member as its leader, as the software itself or its sidecar sets it (Patroni's
 * {@code role=master}, CloudNativePG's {@code cnpg.io/instanceRole=primary}). A rolling update
 * replaces the followers first and the leader last, and a preUpdate hook learns the member's role
 * ({@code ORDINAL_MEMBER_ROLE}), to hand leadership away before the leader's pod goes.
 */
public record LeaderLabel(String key, String value) {
  public static final String ANNOTATION = "ordinal.io/leader-label";

  /** The set's leader label; empty without the annotation (an invalid one was refused at admission). */
  public static Optional<LeaderLabel> of(ObjectMeta meta) {
    String text = Labels.annotation(meta, ANNOTATION);
    if (text == null || problem(text) != null) {
      return Optional.empty();
    }
    int equals = text.indexOf('=');
    return Optional.of(new LeaderLabel(text.substring(0, equals).trim(), text.substring(equals + 1).trim()));
  }

  public boolean matches(Map<String, String> labels) {
    return value.equals(labels.get(key));
  }

  /**
   * What is wrong with a value's shape, for {@code metadata.annotations[ordinal.io/leader-label]}; null
   * if it is {@code key=value} (the API checks the key and value as a label's).
   */
  public static String problem(String text) {
    int equals = text.indexOf('=');
    if (equals <= 0 || text.substring(0, equals).isBlank() || text.substring(equals + 1).isBlank()) {
      return "must be a pod label as key=value (\"role=primary\")";
    }
    return null;
  }

  public Map<String, String> asLabels() {
    return Map.of(key, value);
  }
}
