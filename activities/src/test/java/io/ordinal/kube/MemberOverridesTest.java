package io.ordinal.kube;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.ObjectMeta;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class MemberOverridesTest {
  private static ObjectMeta meta(String value) {
    ObjectMeta meta = new ObjectMeta();
    meta.setAnnotations(Map.of(MemberOverrides.ANNOTATION, value));
    return meta;
  }

  @Test
  void theSameOverridesInYamlOrJsonRecordTheSameCanonicalForm() {
    String yaml = """
        - ordinals: " 3-4 "
          template:
            spec: {nodeSelector: {zone: b, disk: ssd}}
        """;
    String json = "[{\"template\":{\"spec\":{\"nodeSelector\":{\"disk\":\"ssd\",\"zone\":\"b\"}}},\"ordinals\":\"3-4\"}]";
    assertEquals(MemberOverrides.canonical(meta(yaml)), MemberOverrides.canonical(meta(json)));
    assertEquals("[{\"ordinals\":\"3-4\",\"template\":{\"spec\":{\"nodeSelector\":{\"disk\":\"ssd\",\"zone\":\"b\"}}}}]",
        MemberOverrides.canonical(meta(json)));
  }

  @Test
  void noAnnotationAnEmptyListAndAnInvalidValueRecordNoOverrides() {
    assertNull(MemberOverrides.canonical(new ObjectMeta()));
    assertNull(MemberOverrides.canonical(meta("[]")));
    assertNull(MemberOverrides.canonical(meta("")));
    assertNull(MemberOverrides.canonical(meta("- {ordinals: x, template: {}}")));
  }

  @Test
  void eachOrdinalFindsTheOverrideThatCoversIt() {
    var overrides = MemberOverrides.parse(MemberOverrides.canonical(meta("""
        - {ordinals: "0, 7-9", template: {}}
        - {ordinals: 3, template: {}}
        """)));
    assertEquals(Optional.of(0), MemberOverrides.indexFor(overrides, 0));
    assertEquals(Optional.of(0), MemberOverrides.indexFor(overrides, 8));
    assertEquals(Optional.of(1), MemberOverrides.indexFor(overrides, 3));
    assertEquals(Optional.empty(), MemberOverrides.indexFor(overrides, 5));
    assertEquals(Optional.empty(), MemberOverrides.indexFor(List.of(), 5));
  }

  @Test
  void problemsNameTheOverrideAndWhatIsWrong() {
    assertNull(MemberOverrides.problem("- {ordinals: \"1-2\", template: {spec: {}}}"));
    assertNull(MemberOverrides.problem(""));
    assertTrue(MemberOverrides.problem("{ordinals: 1}").startsWith("must be a list"));
    assertTrue(MemberOverrides.problem("- [1]").startsWith("[0] must be an object"));
    assertEquals("[0]: unknown field ordinal (an override has ordinals and template)",
        MemberOverrides.problem("- {ordinal: 1, template: {}}"));
    assertTrue(MemberOverrides.problem("- {template: {}}").startsWith("[0].ordinals is required"));
    assertTrue(MemberOverrides.problem("- {ordinals: \"4-2\", template: {}}").contains("ends before it starts"));
    assertTrue(MemberOverrides.problem("- {ordinals: \"1\"}").startsWith("[0].template is required"));
    assertTrue(MemberOverrides.problem("- {ordinals: \"1\", template: [1]}").startsWith("[0].template is required"));
    assertEquals("[1].ordinals: 5 is in two overrides; each ordinal may have one",
        MemberOverrides.problem("- {ordinals: \"1-5\", template: {}}\n- {ordinals: \"5-9\", template: {}}"));
    assertTrue(MemberOverrides.problem("- {ordinals: \"1\", template: {}\n").startsWith("must be a list"));
  }
}
