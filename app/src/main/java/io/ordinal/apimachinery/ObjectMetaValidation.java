package io.ordinal.apimachinery;

import io.fabric8.kubernetes.api.model.ObjectMeta;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The rules for any object's metadata, shared by every kind: upstream's
 * k8s.io/apimachinery/pkg/api/validation (objectmeta.go: namespace names, labels, annotation keys) and
 * the name checks of k8s.io/apimachinery/pkg/util/validation (IsDNS1123Label, IsDNS1123Subdomain,
 * IsQualifiedName, IsValidLabelValue). Each method returns the failures it finds, in order, with their
 * field paths; none throws on a missing map.
 */
public final class ObjectMetaValidation {
  private static final Pattern DNS1123_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
  /** The format of a lowercase RFC 1123 subdomain, without its length limit ({@link #isDns1123Subdomain} has both). */
  public static final Pattern DNS1123_SUBDOMAIN =
      Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
  private static final Pattern QUALIFIED_NAME = Pattern.compile("([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]");
  private static final Pattern LABEL_VALUE = Pattern.compile("(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?");
  private static final int DNS1123_LABEL_MAX = 63;
  private static final int DNS1123_SUBDOMAIN_MAX = 253;

  private ObjectMetaValidation() {
  }

  /** Upstream's IsDNS1123Label: at most 63 lower case alphanumeric characters or '-', alphanumeric at both ends. */
  public static boolean isDns1123Label(String value) {
    return value.length() <= DNS1123_LABEL_MAX && DNS1123_LABEL.matcher(value).matches();
  }

  /** Upstream's IsDNS1123Subdomain: at most 253 characters, dot-separated DNS labels. */
  public static boolean isDns1123Subdomain(String value) {
    return value.length() <= DNS1123_SUBDOMAIN_MAX && DNS1123_SUBDOMAIN.matcher(value).matches();
  }

  /** Upstream's ValidateNamespaceName for a namespace as used in a path, reported at {@code metadata.namespace}. */
  public static List<FieldError> validateNamespace(String namespace) {
    return validateDnsLabel("metadata.namespace", namespace);
  }

  /**
   * Upstream's ValidateObjectMeta for a kind whose names are DNS subdomains (ConfigMaps, Secrets,
   * ServiceAccounts): a name, then labels and annotations.
   */
  public static List<FieldError> validateObjectMeta(ObjectMeta meta) {
    List<FieldError> errors = new ArrayList<>();
    String name = meta == null ? null : meta.getName();
    if (name == null || name.isEmpty()) {
      errors.add(FieldError.required("metadata.name", "name or generateName is required"));
    } else if (name.length() > 253) {
      errors.add(FieldError.invalid("metadata.name", name, "must be no more than 253 characters"));
    } else {
      errors.addAll(validateDnsSubdomain("metadata.name", name));
    }
    if (meta != null) {
      errors.addAll(validateLabelsAndAnnotations(meta));
    }
    return errors;
  }

  /** The labels at {@code metadata.labels}, then the annotation keys at {@code metadata.annotations}. */
  public static List<FieldError> validateLabelsAndAnnotations(ObjectMeta meta) {
    List<FieldError> errors = new ArrayList<>(validateLabels("metadata.labels", meta.getLabels()));
    errors.addAll(validateAnnotations("metadata.annotations", meta.getAnnotations()));
    return errors;
  }

  /** Upstream's ValidateLabels: each key a qualified name, each value a label value; null is no labels. */
  public static List<FieldError> validateLabels(String path, Map<String, String> labels) {
    List<FieldError> errors = new ArrayList<>();
    if (labels == null) {
      return errors;
    }
    labels.forEach((key, value) -> {
      errors.addAll(validateQualifiedName(path, key));
      if (value == null || value.length() > DNS1123_LABEL_MAX || !LABEL_VALUE.matcher(value).matches()) {
        errors.add(FieldError.invalid(path, value,
            "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.',"
                + " and must start and end with an alphanumeric character (at most 63 characters)"));
      }
    });
    return errors;
  }

  /**
   * Upstream's ValidateAnnotations but for their total size: each key a qualified name (as written, not
   * lower-cased as upstream does); null is no annotations.
   */
  public static List<FieldError> validateAnnotations(String path, Map<String, String> annotations) {
    List<FieldError> errors = new ArrayList<>();
    if (annotations != null) {
      annotations.keySet().forEach(key -> errors.addAll(validateQualifiedName(path, key)));
    }
    return errors;
  }

  /** Upstream's IsQualifiedName, a label or annotation key: an optional DNS subdomain prefix and a name of at most 63 characters. */
  public static List<FieldError> validateQualifiedName(String path, String key) {
    if (key == null) {
      return List.of(FieldError.required(path, "key is required"));
    }
    String name = key;
    int slash = key.indexOf('/');
    if (slash >= 0) {
      String prefix = key.substring(0, slash);
      name = key.substring(slash + 1);
      if (!isDns1123Subdomain(prefix)) {
        return List.of(FieldError.invalid(path, key, "prefix part must be a lowercase RFC 1123 subdomain"));
      }
    }
    if (name.isEmpty() || name.length() > DNS1123_LABEL_MAX || !QUALIFIED_NAME.matcher(name).matches()) {
      return List.of(FieldError.invalid(path, key,
          "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an"
              + " alphanumeric character (at most 63 characters)"));
    }
    return List.of();
  }

  /** A DNS label, required: null or empty is reported as missing. */
  public static List<FieldError> validateDnsLabel(String path, String value) {
    if (value == null || value.isEmpty()) {
      return List.of(FieldError.required(path, ""));
    }
    if (!isDns1123Label(value)) {
      return List.of(FieldError.invalid(path, value,
          "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start"
              + " and end with an alphanumeric character (at most 63 characters)"));
    }
    return List.of();
  }

  /** A DNS subdomain; the caller has checked that {@code value} is present. */
  public static List<FieldError> validateDnsSubdomain(String path, String value) {
    if (!isDns1123Subdomain(value)) {
      return List.of(FieldError.invalid(path, value, "a lowercase RFC 1123 subdomain must consist of lower case"
          + " alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character"));
    }
    return List.of();
  }
}
