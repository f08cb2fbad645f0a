package io.ordinal.driver.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.ordinal.store.KubeJson;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The runtime spec a container gets: what it may see, be and do. */
class OciSpecTest {
  static final OciSpec.Sandbox SANDBOX = new OciSpec.Sandbox(Path.of("/run/netns/ordinal-x"), 42, false, false);

  private static ContainerUser user(String podSpec) {
    PodSpec pod = KubeJson.read(podSpec, PodSpec.class);
    return ContainerUser.of(pod, pod.getContainers().get(0), "65534:65534");
  }

  private static JsonNode spec(ContainerUser user) {
    return KubeJson.JSON.valueToTree(OciSpec.container(List.of("/bin/sh", "-c", "$BASH_ENV"), Map.of("BASH_ENV", "$(id)"),
        "/", user, List.of(new OciSpec.Volume(Path.of("/var/v"), "/data", true)), SANDBOX, "/ordinal/c/1"));
  }

  @Test
  void aDefaultContainerIsConfinedAndGetsItsEnvOnlyInItsOwnProcess() {
    JsonNode spec = spec(user("{\"containers\":[{\"name\":\"c\"}]}"));
    assertEquals("BASH_ENV=$(id)", spec.at("/process/env/0").asText(), "as given, expanded by nobody on the machine");
    assertEquals(65534, spec.at("/process/user/uid").asLong());
    assertTrue(spec.at("/process/noNewPrivileges").asBoolean());
    assertEquals("SCMP_ACT_ALLOW", spec.at("/linux/seccomp/defaultAction").asText());
    assertTrue(spec.at("/linux/seccomp/syscalls/0/names").toString().contains("\"unshare\""));
    assertTrue(spec.at("/linux/maskedPaths").toString().contains("/proc/kcore"));
    assertFalse(spec.at("/root/readonly").asBoolean());
    assertEquals("/proc/42/ns/pid", spec.at("/linux/namespaces/0/path").asText());
    assertEquals("/run/netns/ordinal-x", spec.at("/linux/namespaces/4/path").asText());
    assertTrue(spec.at("/mounts").toString().contains("{\"destination\":\"/usr\",\"type\":\"bind\",\"source\":\"/usr\",\"options\":[\"rbind\",\"ro\",\"nosuid\",\"nodev\"]}"));
    assertTrue(spec.at("/mounts").toString().contains("{\"destination\":\"/data\",\"type\":\"bind\",\"source\":\"/var/v\",\"options\":[\"bind\",\"nosuid\",\"nodev\",\"ro\"]}"));
    assertEquals(OciSpec.DEFAULT_CAPABILITIES.size(), spec.at("/process/capabilities/bounding").size());
    assertEquals(0, spec.at("/process/capabilities/ambient").size());
  }

  @Test
  void aVolumeMountPointTheMachineLacksUnderItsDirectoriesComesFromAReadOnlyOverlay(@TempDir Path bundle) throws Exception {
    List<OciSpec.Volume> volumes = List.of(new OciSpec.Volume(bundle, "/usr/share/ordinal-no-such-dir/html", false),
        new OciSpec.Volume(bundle, "/data", false), new OciSpec.Volume(bundle, "/usr/share", true));
    Path layers = OciSpec.makeMountPoints(bundle.resolve("mount-points"), volumes);
    assertTrue(Files.isDirectory(layers.resolve("usr/share/ordinal-no-such-dir/html")));
    assertFalse(Files.exists(layers.resolve("data")), "a mount point outside the machine's directories is the runtime's to make");
    assertFalse(Files.exists(layers.resolve("etc")));
    JsonNode spec = KubeJson.JSON.valueToTree(OciSpec.container(List.of("/bin/true"), Map.of(), "/",
        user("{\"containers\":[{\"name\":\"c\"}]}"), volumes, SANDBOX, "/ordinal/c/1", layers));
    String mounts = spec.at("/mounts").toString();
    assertTrue(mounts.contains("{\"destination\":\"/usr\",\"type\":\"overlay\",\"source\":\"overlay\",\"options\":[\"lowerdir="
        + layers.resolve("usr") + ":/usr\",\"ro\",\"nosuid\",\"nodev\"]}"), mounts);
    assertTrue(mounts.contains("{\"destination\":\"/etc\",\"type\":\"bind\",\"source\":\"/etc\",\"options\":[\"rbind\",\"ro\",\"nosuid\",\"nodev\"]}"),
        "a directory no volume needs stays a plain read-only bind");
  }

  @Test
  void dropAllAddOneReadOnlyRootAndPrivileged() {
    JsonNode hardened = spec(user("{\"containers\":[{\"name\":\"c\",\"securityContext\":{\"readOnlyRootFilesystem\":true,"
        + "\"capabilities\":{\"drop\":[\"ALL\"],\"add\":[\"NET_BIND_SERVICE\"]}}}]}"));
    assertEquals("[\"CAP_NET_BIND_SERVICE\"]", hardened.at("/process/capabilities/bounding").toString());
    assertTrue(hardened.at("/root/readonly").asBoolean());
    JsonNode privileged = spec(user("{\"containers\":[{\"name\":\"c\",\"securityContext\":{\"privileged\":true}}]}"));
    assertEquals(ContainerUser.ALL_CAPABILITIES.size(), privileged.at("/process/capabilities/bounding").size());
    assertTrue(privileged.at("/linux/seccomp").isMissingNode());
    assertEquals(0, privileged.at("/linux/maskedPaths").size());
  }

  @Test
  void idsTheKernelWouldTruncateAreRefusedByTheRuntimeToo() {
    assertTrue(user("{\"securityContext\":{\"runAsUser\":4294967296},\"containers\":[{\"name\":\"c\"}]}")
        .configError("p", "c").isPresent());
    assertTrue(user("{\"containers\":[{\"name\":\"c\",\"securityContext\":{\"runAsUser\":-1}}]}").configError("p", "c").isPresent());
    assertTrue(user("{\"securityContext\":{\"supplementalGroups\":[-5]},\"containers\":[{\"name\":\"c\"}]}")
        .configError("p", "c").isPresent());
  }

  @Test
  void theMachinesUnreadableFilesAreFound() {
    List<String> masked = HostSecrets.unreadable(Path.of("/etc"));
    if (java.nio.file.Files.exists(Path.of("/etc/shadow"))) {
      assertTrue(masked.contains("/etc/shadow"), masked.toString());
    }
    assertFalse(masked.contains("/etc/passwd"));
  }

  @Test
  void podNetworkBlocksAddressesAndMacs() {
    int[] cidr = PodNetwork.parseCidr("10.224.0.0/12");
    assertEquals("10.224.0.0", PodNetwork.format(cidr[0]));
    PodNetwork.Block block = new PodNetwork.Block(5, cidr[0] + 5 * 1024, 22);
    assertEquals("ordinal5", block.bridge());
    assertEquals("10.224.20.1", block.gateway());
    assertEquals("10.224.20.2", block.podAddresses().getFirst());
    assertEquals("10.224.23.253", block.podAddresses().getLast());
    assertEquals("10.224.23.254", block.serviceAddress(), "the Service proxy's namespace takes the last address");
    assertTrue(block.contains("10.224.21.7"));
    assertFalse(block.contains("127.0.1.1"));
    assertFalse(block.contains("10.224.24.1"));
    assertEquals("0a:58:0a:e0:14:02", PodNetwork.mac("10.224.20.2"));
    assertEquals("ov0123456789ab", PodNetwork.vethName("01234567-89ab-cdef-0123-456789abcdef"));
    assertNull(PodNetwork.parse("10.1.2"));
  }
}
