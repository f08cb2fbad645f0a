package io.ordinal.driver.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.PodSpec;
import io.ordinal.store.KubeJson;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ContainerUserTest {
  private static ContainerUser user(String spec, String defaultUser) {
    PodSpec pod = KubeJson.read(spec, PodSpec.class);
    return ContainerUser.of(pod, pod.getContainers().get(0), defaultUser);
  }

  @Test
  void withoutSecurityContextTheDefaultUserAndNoNewPrivs() {
    ContainerUser u = user("{\"containers\":[{\"name\":\"c\"}]}", "65534:65534");
    assertEquals(65534, u.uid());
    assertEquals(65534, u.gid());
    assertTrue(u.noNewPrivs());
    assertEquals(ContainerUser.FALLBACK_ID, user("{\"containers\":[{\"name\":\"c\"}]}", null).uid(), "no annotation: never root");
    ContainerUser root = user("{\"containers\":[{\"name\":\"c\"}]}", "0:0");
    assertTrue(root.root());
    assertFalse(root.noNewPrivs());
  }

  @Test
  void containerOverridesPodAndFsGroupIsASupplementaryGroup() {
    ContainerUser u = user("{\"securityContext\":{\"runAsUser\":1000,\"runAsGroup\":3000,\"fsGroup\":2000,\"supplementalGroups\":[4000]},"
        + "\"containers\":[{\"name\":\"c\",\"securityContext\":{\"runAsUser\":1001,\"allowPrivilegeEscalation\":true}}]}", "65534:65534");
    assertEquals(1001, u.uid());
    assertEquals(3000, u.gid());
    assertEquals(List.of(4000L, 2000L), u.groups());
    assertFalse(u.noNewPrivs(), "allowPrivilegeEscalation: true is honoured");
  }

  @Test
  void runAsNonRootInTheKubeletsWords() {
    assertEquals(Optional.of("container has runAsNonRoot and image will run as root (pod: \"p\", container: c)"),
        user("{\"containers\":[{\"name\":\"c\",\"securityContext\":{\"runAsNonRoot\":true}}]}", "0:0").configError("p", "c"));
    assertEquals(Optional.of("container's runAsUser breaks non-root policy (pod: \"p\", container: c)"),
        user("{\"securityContext\":{\"runAsNonRoot\":true,\"runAsUser\":0},\"containers\":[{\"name\":\"c\"}]}", "0:0").configError("p", "c"));
    assertEquals(Optional.empty(),
        user("{\"containers\":[{\"name\":\"c\",\"securityContext\":{\"runAsNonRoot\":true}}]}", "65534:65534").configError("p", "c"));
  }
}
