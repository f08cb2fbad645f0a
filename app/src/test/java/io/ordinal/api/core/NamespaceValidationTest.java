package io.ordinal.api.core;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.ordinal.apimachinery.FieldError;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class NamespaceValidationTest {
  private static Namespace namespace(String name, Map<String, String> labels) {
    return new NamespaceBuilder().withNewMetadata().withName(name).withLabels(labels).endMetadata().build();
  }

  @Test
  void aNamespaceNeedsAName() {
    assertEquals(List.of(FieldError.required("metadata.name", "name or generateName is required")),
        NamespaceValidation.validate(namespace(null, Map.of("-bad", ""))));
    assertEquals(List.of(FieldError.required("metadata.name", "name or generateName is required")),
        NamespaceValidation.validate(new Namespace()));
  }

  @Test
  void itsNameIsADnsLabelThenItsLabelsThenItsNameLabelThenItsPodSecurityLabels() {
    assertEquals(List.of(), NamespaceValidation.validate(namespace("team-a",
        Map.of("kubernetes.io/metadata.name", "team-a", "pod-security.kubernetes.io/enforce", "restricted"))));
    List<String> fields = NamespaceValidation.validate(namespace("team.a", Map.of("kubernetes.io/metadata.name", "team-b")))
        .stream().map(FieldError::field).toList();
    assertEquals(List.of("metadata.name", "metadata.labels[kubernetes.io/metadata.name]"), fields);
    assertEquals(List.of(
        FieldError.invalid("metadata.labels[pod-security.kubernetes.io/enforce]", "strict",
            "must be one of privileged, baseline, restricted"),
        FieldError.invalid("metadata.labels[pod-security.kubernetes.io/enforce-version]", "1.30",
            "must be \"latest\" or of the form \"v1.<minor>\"")),
        NamespaceValidation.validate(namespace("team-a", Map.of("pod-security.kubernetes.io/enforce", "strict",
            "pod-security.kubernetes.io/enforce-version", "1.30"))));
  }
}
