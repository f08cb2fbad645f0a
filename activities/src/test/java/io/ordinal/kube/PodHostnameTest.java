package io.ordinal.kube;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.fabric8.kubernetes.api.model.PodBuilder;
import org.junit.jupiter.api.Test;

/** A pod's hostname and FQDN as the kubelet derives them (GeneratePodHostNameAndDomain, truncatePodHostnameIfNeeded). */
class PodHostnameTest {
  @Test
  void specHostnameAndSubdomainMakeTheFqdn() {
    PodHostname name = PodHostname.of(new PodBuilder().withNewMetadata().withName("web-0").withNamespace("prod").endMetadata()
        .withNewSpec().withHostname("web-0").withSubdomain("nginx").endSpec().build());
    assertEquals("web-0", name.hostname());
    assertEquals("web-0.nginx.prod.svc.cluster.local", name.fqdn());
  }

  @Test
  void withoutSpecHostnameThePodNameIsUsedAndWithoutSubdomainTheFqdnIsTheHostname() {
    PodHostname name = PodHostname.of("prod", "web-1", null, "");
    assertEquals("web-1", name.hostname());
    assertNull(name.domain());
    assertEquals("web-1", name.fqdn());
    assertEquals("other", PodHostname.of("prod", "web-1", "other", null).hostname(), "spec.hostname wins over the name");
  }

  @Test
  void aHostnameOf63CharactersIsKept() {
    String name = "a".repeat(61) + "-0";
    assertEquals(63, name.length());
    assertEquals(name, PodHostname.truncate(name, name));
  }

  @Test
  void aLongerHostnameIsCutTo63CharactersWithoutTrailingDashesOrDots() {
    assertEquals("a".repeat(63), PodHostname.truncate("p", "a".repeat(64)));
    // Cut at 63, the name ends "-.-": all three go, as strings.TrimRight(truncated, "-.") does.
    String name = "b".repeat(60) + "-.-" + "tail";
    assertEquals("b".repeat(60), PodHostname.truncate("p", name));
    PodHostname pod = PodHostname.of("ns", "c".repeat(62) + "-12", null, "svc");
    assertEquals("c".repeat(62), pod.hostname());
    assertEquals("c".repeat(62) + ".svc.ns.svc.cluster.local", pod.fqdn(), "the FQDN is built on the cut hostname");
  }

  @Test
  void aHostnameOfOnlyDashesAndDotsInItsFirst63CharactersIsAnError() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> PodHostname.truncate("p", "-".repeat(40) + ".".repeat(30)));
    assertEquals("hostname for pod \"p\" was invalid: \"" + "-".repeat(40) + ".".repeat(30) + "\"", e.getMessage());
  }
}
