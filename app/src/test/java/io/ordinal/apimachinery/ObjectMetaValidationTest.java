package io.ordinal.apimachinery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ObjectMetaValidationTest {
  private static final String LABEL = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-',"
      + " and must start and end with an alphanumeric character (at most 63 characters)";
  private static final String NAME_PART = "name part must consist of alphanumeric characters, '-', '_' or '.', and must start"
      + " and end with an alphanumeric character (at most 63 characters)";
  private static final String LABEL_VALUE = "a valid label must be an empty string or consist of alphanumeric characters, '-',"
      + " '_' or '.', and must start and end with an alphanumeric character (at most 63 characters)";

  @Test
  void dnsNamesHaveUpstreamsFormatAndLengths() {
    assertTrue(ObjectMetaValidation.isDns1123Label("a".repeat(63)));
    assertFalse(ObjectMetaValidation.isDns1123Label("a".repeat(64)));
    assertFalse(ObjectMetaValidation.isDns1123Label("a.b"));
    assertFalse(ObjectMetaValidation.isDns1123Label("-a"));
    assertTrue(ObjectMetaValidation.isDns1123Subdomain("a.b-c.d"));
    assertFalse(ObjectMetaValidation.isDns1123Subdomain("a".repeat(254)));
    assertFalse(ObjectMetaValidation.isDns1123Subdomain("A"));
    assertFalse(ObjectMetaValidation.isDns1123Subdomain(""));
  }

  @Test
  void aNamespaceInAPathIsARequiredDnsLabel() {
    assertEquals(List.of(), ObjectMetaValidation.validateNamespace("team-a"));
    assertEquals(List.of(FieldError.required("metadata.namespace", "")), ObjectMetaValidation.validateNamespace(""));
    assertEquals(List.of(FieldError.required("metadata.namespace", "")), ObjectMetaValidation.validateNamespace(null));
    assertEquals(List.of(FieldError.invalid("metadata.namespace", "Team", LABEL)), ObjectMetaValidation.validateNamespace("Team"));
  }

  @Test
  void qualifiedNamesReportTheirPrefixOrTheirName() {
    assertEquals(List.of(), ObjectMetaValidation.validateQualifiedName("k", "example.com/my_key.1"));
    assertEquals(List.of(FieldError.required("k", "key is required")), ObjectMetaValidation.validateQualifiedName("k", null));
    assertEquals(List.of(FieldError.invalid("k", "Example.com/x", "prefix part must be a lowercase RFC 1123 subdomain")),
        ObjectMetaValidation.validateQualifiedName("k", "Example.com/x"));
    assertEquals(List.of(FieldError.invalid("k", "/x", "prefix part must be a lowercase RFC 1123 subdomain")),
        ObjectMetaValidation.validateQualifiedName("k", "/x"));
    assertEquals(List.of(FieldError.invalid("k", "example.com/", NAME_PART)),
        ObjectMetaValidation.validateQualifiedName("k", "example.com/"));
    assertEquals(List.of(FieldError.invalid("k", "a".repeat(64), NAME_PART)),
        ObjectMetaValidation.validateQualifiedName("k", "a".repeat(64)));
  }

  @Test
  void labelsAndAnnotationsAreReportedInOrderKeyBeforeValue() {
    Map<String, String> labels = new LinkedHashMap<>();
    labels.put("-bad", "-bad-");
    labels.put("empty", "");
    labels.put("tier", "a".repeat(64));
    Map<String, String> annotations = new LinkedHashMap<>();
    annotations.put("free text is fine", "any value");
    annotations.put("ok", "any value");
    var meta = new ObjectMetaBuilder().withLabels(labels).withAnnotations(annotations).build();
    assertEquals(List.of(
        FieldError.invalid("metadata.labels", "-bad", NAME_PART),
        FieldError.invalid("metadata.labels", "-bad-", LABEL_VALUE),
        FieldError.invalid("metadata.labels", "a".repeat(64), LABEL_VALUE),
        FieldError.invalid("metadata.annotations", "free text is fine", NAME_PART)),
        ObjectMetaValidation.validateLabelsAndAnnotations(meta));
    assertEquals(List.of(), ObjectMetaValidation.validateLabelsAndAnnotations(new ObjectMetaBuilder().build()));
  }
}
