package io.ordinal.api.core;

import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.ordinal.apimachinery.FieldError;
import io.ordinal.apimachinery.ObjectMetaValidation;
import io.ordinal.podsecurity.PodSecurity;
import io.ordinal.store.NamespaceStore;
import java.util.ArrayList;
import java.util.List;

/**
 * The validation of a namespace written through the API (upstream's ValidateNamespace, for what Ordinal
 * stores of one): its name, labels and annotations, its {@link NamespaceStore#NAME_LABEL} label, and the
 * values of its Pod Security labels.
 */
public final class NamespaceValidation {
  private NamespaceValidation() {
  }

  /** Every failure of a created or updated namespace, with its field path; none when it is valid. */
  public static List<FieldError> validate(Namespace namespace) {
    List<FieldError> errors = new ArrayList<>();
    ObjectMeta meta = namespace.getMetadata();
    if (meta == null || meta.getName() == null || meta.getName().isEmpty()) {
      errors.add(FieldError.required("metadata.name", "name or generateName is required"));
      return errors;
    }
    errors.addAll(ObjectMetaValidation.validateDnsLabel("metadata.name", meta.getName()));
    errors.addAll(ObjectMetaValidation.validateLabelsAndAnnotations(meta));
    String nameLabel = meta.getLabels() == null ? null : meta.getLabels().get(NamespaceStore.NAME_LABEL);
    if (nameLabel != null && !nameLabel.equals(meta.getName())) {
      errors.add(FieldError.invalid("metadata.labels[" + NamespaceStore.NAME_LABEL + "]", nameLabel,
          "must be the namespace's name"));
    }
    for (PodSecurity.LabelError e : PodSecurity.validateLabels(meta.getLabels())) {
      errors.add(FieldError.invalid(e.field(), e.value(), e.detail()));
    }
    return errors;
  }
}
