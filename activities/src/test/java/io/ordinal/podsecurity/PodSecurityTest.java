package io.ordinal.podsecurity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.ordinal.store.KubeJson;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PodSecurityTest {
  private static PodSpec spec(String json) {
    return KubeJson.read(json, PodSpec.class);
  }

  @Test
  void labelsChooseLevelsAndEnforceFallsBackToTheDefault() {
    assertEquals(new PodSecurity.Policy(Level.BASELINE, Level.PRIVILEGED, Level.PRIVILEGED), PodSecurity.policy(Map.of(), Level.BASELINE));
    assertEquals(new PodSecurity.Policy(Level.RESTRICTED, Level.RESTRICTED, Level.PRIVILEGED),
        PodSecurity.policy(Map.of(PodSecurity.ENFORCE, "restricted", PodSecurity.WARN, "restricted"), Level.BASELINE));
  }

  @Test
  void badLabelValuesAreNamedByField() {
    var errors = PodSecurity.validateLabels(Map.of(PodSecurity.ENFORCE, "strict", PodSecurity.ENFORCE + "-version", "1.30",
        PodSecurity.WARN + "-version", "v1.30"));
    assertEquals(List.of(
        new PodSecurity.LabelError("metadata.labels[pod-security.kubernetes.io/enforce]", "strict", "must be one of privileged, baseline, restricted"),
        new PodSecurity.LabelError("metadata.labels[pod-security.kubernetes.io/enforce-version]", "1.30",
            "must be \"latest\" or of the form \"v1.<minor>\"")), errors);
  }

  @Test
  void restrictedListsEachViolationInUpstreamsShape() {
    var results = PodSecurity.evaluate(Level.RESTRICTED, new ObjectMeta(), spec("{\"containers\":[{\"name\":\"c\",\"image\":\"x\"}]}"),
        "spec.template.spec");
    assertEquals("PodSecurity \"restricted:latest\": allowPrivilegeEscalation != false (container \"c\" must set"
        + " securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container \"c\" must set"
        + " securityContext.capabilities.drop=[\"ALL\"]), runAsNonRoot != true (pod or container \"c\" must set"
        + " securityContext.runAsNonRoot=true), seccompProfile (pod or container \"c\" must set"
        + " securityContext.seccompProfile.type to \"RuntimeDefault\" or \"Localhost\")",
        PodSecurity.describe(Level.RESTRICTED, results));
  }

  @Test
  void rootNeedsAPrivilegedNamespaceAndTheRefusalNamesTheFields() {
    PodSpec root = spec("{\"securityContext\":{\"runAsUser\":0},\"initContainers\":[{\"name\":\"i\"}],"
        + "\"containers\":[{\"name\":\"a\",\"securityContext\":{\"runAsUser\":1}},{\"name\":\"b\",\"securityContext\":{\"runAsUser\":0}}]}");
    assertEquals(List.of(), PodSecurity.evaluate(Level.PRIVILEGED, null, root, "spec.template.spec"));
    var baseline = PodSecurity.evaluate(Level.BASELINE, null, root, "spec.template.spec");
    assertEquals(1, baseline.size());
    assertTrue(baseline.get(0).detail().startsWith("spec.template.spec.securityContext.runAsUser, "
        + "spec.template.spec.containers[1].securityContext.runAsUser must not be 0"), baseline.get(0).detail());
    assertEquals(List.of(), PodSecurity.evaluate(Level.BASELINE, null,
        spec("{\"containers\":[{\"name\":\"a\",\"securityContext\":{\"runAsUser\":1000}}]}"), "spec"));
  }

  /** A set stored before admission checked the range must not get pods whose uid the local driver could run as root. */
  @Test
  void aRunAsUserOutsideUpstreamsRangeIsRefusedBelowPrivileged() {
    for (long uid : new long[] {-1, PodSecurity.MAX_ID + 1, 4294967296L}) {
      PodSpec spec = spec("{\"initContainers\":[{\"name\":\"i\",\"securityContext\":{\"runAsUser\":" + uid + "}}],"
          + "\"containers\":[{\"name\":\"a\"}]}");
      assertEquals(List.of(), PodSecurity.evaluate(Level.PRIVILEGED, null, spec, "spec"));
      var baseline = PodSecurity.evaluate(Level.BASELINE, null, spec, "spec");
      assertEquals(1, baseline.size(), baseline.toString());
      assertTrue(baseline.get(0).detail().startsWith(
          "spec.initContainers[0].securityContext.runAsUser must be between 0 and 2147483647, inclusive"), baseline.get(0).detail());
    }
    assertEquals(List.of(), PodSecurity.evaluate(Level.BASELINE, null,
        spec("{\"securityContext\":{\"runAsUser\":2147483647},\"containers\":[{\"name\":\"a\"}]}"), "spec"));
  }
}
