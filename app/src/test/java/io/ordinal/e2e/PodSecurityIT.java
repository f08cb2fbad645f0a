package io.ordinal.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.ordinal.store.KubeJson;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Pods with least privilege on the local driver: the default non-root user, securityContext
 * (runAsUser, runAsGroup, fsGroup, runAsNonRoot) read back from /proc, Pod Security admission by
 * namespace labels (kubectl create/label namespace), and names that would leave the data dir.
 */
@E2eTest
class PodSecurityIT {
  static final Duration TIMEOUT = Duration.ofSeconds(90);
  static Api api;
  static OrdinalService service;

  @Test
  void aPodWithoutSecurityContextRunsAsTheDefaultNonRootUserAndSoDoesExec(@Namespace String ns) throws Exception {
    api.createSet(ns, Manifests.commandSet("plain", 1, "/bin/sleep", "100000"));
    api.awaitConverged(ns, "plain", 1, TIMEOUT);
    Map<String, String> status = procStatus(pid(ns, "plain-0"));
    assertEquals("65534", field(status, "Uid", 0), status.toString());
    assertEquals("65534", field(status, "Gid", 0), status.toString());
    assertEquals("1", status.get("NoNewPrivs"), "no setuid escalation for a default non-root user");
    assertEquals("0000000000000000", status.get("CapEff"));
    Kubectl kubectl = new Kubectl(api.base(), api.caCertificate(), api.token(), ns);
    assertEquals("65534:65534", kubectl.run("exec", "plain-0", "--", "/bin/sh", "-c", "echo $(id -u):$(id -g)").ok().out().trim());
  }

  @Test
  void rootIsRefusedUnlessTheNamespaceIsPrivileged(@Namespace String ns) throws Exception {
    ObjectNode root = Manifests.commandSet("root", 1, "/bin/sleep", "100000");
    ((ObjectNode) root.at("/spec/template/spec/containers/0")).putObject("securityContext").put("runAsUser", 0);

    // The default level (baseline) refuses it, naming the field.
    Api.Reply refused = api.post(Paths.sets(ns), "application/json", KubeJson.write(root));
    assertEquals(403, refused.code(), refused.body());
    assertTrue(refused.json().path("message").asText().startsWith("statefulsets.apps \"root\" is forbidden: violates PodSecurity \"baseline:latest\": "),
        refused.body());
    assertTrue(refused.body().contains("spec.template.spec.containers[0].securityContext.runAsUser"), refused.body());

    // A pod-level runAsUser: 0 as well.
    ObjectNode podLevel = Manifests.commandSet("root", 1, "/bin/sleep", "100000");
    ((ObjectNode) podLevel.at("/spec/template/spec")).putObject("securityContext").put("runAsUser", 0);
    refused = api.post(Paths.sets(ns), "application/json", KubeJson.write(podLevel));
    assertEquals(403, refused.code(), refused.body());
    assertTrue(refused.body().contains("spec.template.spec.securityContext.runAsUser"), refused.body());

    // restricted: refused too, with upstream's runAsUser=0 among the reasons.
    labelNamespace(ns, "enforce", "restricted");
    refused = api.post(Paths.sets(ns), "application/json", KubeJson.write(root));
    assertEquals(403, refused.code(), refused.body());
    assertTrue(refused.body().contains("violates PodSecurity \\\"restricted:latest\\\""), refused.body());
    assertTrue(refused.body().contains("runAsUser=0 (container \\\"nginx\\\" must not set runAsUser=0)"), refused.body());
    assertTrue(refused.body().contains("spec.template.spec.containers[0].securityContext.runAsUser"), refused.body());

    // privileged: admitted, and it runs as root.
    labelNamespace(ns, "enforce", "privileged");
    api.createSet(ns, root);
    api.awaitConverged(ns, "root", 1, TIMEOUT);
    assertEquals("0", field(procStatus(pid(ns, "root-0")), "Uid", 0));
  }

  @Test
  void runAsUserRunAsGroupAndFsGroupTakeEffectAndTheVolumeIsTheirs(@Namespace String ns) throws Exception {
    ObjectNode set = Manifests.commandSet("ids", 1, "/bin/sh", "-c", "echo hello > /data/file && exec sleep 100000");
    ObjectNode spec = (ObjectNode) set.at("/spec/template/spec");
    ObjectNode sc = spec.putObject("securityContext");
    sc.put("runAsUser", 1000).put("runAsGroup", 3000).put("fsGroup", 2000).put("runAsNonRoot", true);
    sc.putArray("supplementalGroups").add(4000);
    ObjectNode container = (ObjectNode) spec.at("/containers/0");
    container.putArray("volumeMounts").addObject().put("name", "data").put("mountPath", "/data");
    ObjectNode claim = ((ObjectNode) set.get("spec")).putArray("volumeClaimTemplates").addObject();
    claim.putObject("metadata").put("name", "data");
    claim.putObject("spec").putArray("accessModes").add("ReadWriteOnce");
    ((ObjectNode) claim.get("spec")).putObject("resources").putObject("requests").put("storage", "1Gi");
    api.createSet(ns, set);
    api.awaitConverged(ns, "ids", 1, TIMEOUT);

    Map<String, String> status = procStatus(pid(ns, "ids-0"));
    assertEquals("1000", field(status, "Uid", 0), status.toString());
    assertEquals("3000", field(status, "Gid", 0), status.toString());
    List<String> groups = Arrays.asList(status.get("Groups").trim().split("\\s+"));
    assertTrue(groups.containsAll(List.of("2000", "4000")), groups.toString());

    Path volume = service.dataDir.resolve("local/volumes/" + ns + "/data-ids-0");
    assertEquals(1000, Files.getAttribute(volume, "unix:uid", LinkOption.NOFOLLOW_LINKS));
    assertEquals(2000, Files.getAttribute(volume, "unix:gid", LinkOption.NOFOLLOW_LINKS));
    int mode = (Integer) Files.getAttribute(volume, "unix:mode", LinkOption.NOFOLLOW_LINKS);
    assertEquals(02070, mode & 02070, "group rwx and setgid, as the kubelet leaves an fsGroup volume: " + Integer.toOctalString(mode));
    api.await(Paths.pod(ns, "ids-0"), TIMEOUT, r -> Files.exists(volume.resolve("file")));
    assertEquals("hello\n", Files.readString(volume.resolve("file")));
    assertEquals(2000, Files.getAttribute(volume.resolve("file"), "unix:gid", LinkOption.NOFOLLOW_LINKS),
        "a new file takes the fsGroup (setgid directory)");
  }

  @Test
  void runAsNonRootIsHonoured(@Namespace String ns) throws Exception {
    // With runAsUser 0 it is refused at admission (root rule) in the default namespace.
    ObjectNode contradiction = Manifests.commandSet("nr", 1, "/bin/sleep", "100000");
    ((ObjectNode) contradiction.at("/spec/template/spec/containers/0")).putObject("securityContext")
        .put("runAsUser", 0).put("runAsNonRoot", true);
    assertEquals(403, api.post(Paths.sets(ns), "application/json", KubeJson.write(contradiction)).code());

    // In a privileged namespace the default user is root: runAsNonRoot keeps the container from starting.
    labelNamespace(ns, "enforce", "privileged");
    ObjectNode nonRoot = Manifests.commandSet("nr", 1, "/bin/sleep", "100000");
    ((ObjectNode) nonRoot.at("/spec/template/spec/containers/0")).putObject("securityContext").put("runAsNonRoot", true);
    api.createSet(ns, nonRoot);
    JsonNode pod = api.await(Paths.pod(ns, "nr-0"), TIMEOUT, r -> r.code() == 200
        && "CreateContainerConfigError".equals(r.json().at("/status/containerStatuses/0/state/waiting/reason").asText()));
    assertTrue(pod.at("/status/containerStatuses/0/state/waiting/message").asText()
        .startsWith("container has runAsNonRoot and image will run as root"), pod.toString());
    api.await(Paths.core(ns, "events"), TIMEOUT, r -> r.body().contains("container has runAsNonRoot and image will run as root"));
  }

  @Test
  void restrictedRefusesAnUnhardenedTemplateWithUpstreamsListingAndAdmitsAHardenedOne(@Namespace String ns) throws Exception {
    labelNamespace(ns, "enforce", "restricted");
    Api.Reply refused = api.post(Paths.sets(ns), "application/json", KubeJson.write(Manifests.commandSet("r", 1, "/bin/sleep", "100000")));
    assertEquals(403, refused.code(), refused.body());
    assertEquals("Forbidden", refused.json().path("reason").asText());
    assertEquals("statefulsets.apps \"r\" is forbidden: violates PodSecurity \"restricted:latest\": allowPrivilegeEscalation != false"
        + " (container \"nginx\" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities"
        + " (container \"nginx\" must set securityContext.capabilities.drop=[\"ALL\"]), runAsNonRoot != true (pod or container"
        + " \"nginx\" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container \"nginx\" must set"
        + " securityContext.seccompProfile.type to \"RuntimeDefault\" or \"Localhost\")", refused.json().path("message").asText());

    ObjectNode hardened = Manifests.commandSet("r", 1, "/bin/sleep", "100000");
    ObjectNode sc = ((ObjectNode) hardened.at("/spec/template/spec/containers/0")).putObject("securityContext");
    sc.put("allowPrivilegeEscalation", false).put("runAsNonRoot", true).put("runAsUser", 1000).put("readOnlyRootFilesystem", true);
    sc.putObject("capabilities").putArray("drop").add("ALL");
    sc.putObject("seccompProfile").put("type", "RuntimeDefault");
    api.createSet(ns, hardened);
    api.awaitConverged(ns, "r", 1, TIMEOUT);
    Map<String, String> status = procStatus(pid(ns, "r-0"));
    assertEquals("1000", field(status, "Uid", 0));
    Kubectl kubectl = new Kubectl(api.base(), api.caCertificate(), api.token(), ns);
    Kubectl.Result write = kubectl.run("exec", "r-0", "--", "/bin/sh", "-c", "touch /var/tmp/ordinal-ro-test");
    assertTrue(write.code() != 0 && write.err().contains("Read-only file system"), write.toString());
  }

  @Test
  void theWarnLabelGivesAWarningHeader(@Namespace String ns) {
    labelNamespace(ns, "warn", "restricted");
    Api.Reply created = api.createSet(ns, Manifests.commandSet("w", 0, "/bin/sleep", "100000"));
    assertTrue(created.warnings().stream().anyMatch(w -> w.startsWith("299 - \"would violate PodSecurity \\\"restricted:latest\\\": "
        + "allowPrivilegeEscalation != false")), created.warnings().toString());
  }

  @Test
  void aNamespaceLabelledAfterTheSetWasAdmittedStopsItsNextPod(@Namespace String ns) {
    api.createSet(ns, Manifests.commandSet("late", 1, "/bin/sleep", "100000"));
    api.awaitConverged(ns, "late", 1, TIMEOUT);
    labelNamespace(ns, "enforce", "restricted");
    // Scaling does not change the template: it is not refused; its new pod is.
    api.patchSet(ns, "late", "{\"spec\":{\"replicas\":2}}");
    api.await(Paths.core(ns, "events"), TIMEOUT, r -> r.body().contains("FailedCreate")
        && r.body().contains("create Pod late-1 in StatefulSet late failed error: pods \\\"late-1\\\" is forbidden: violates PodSecurity \\\"restricted:latest\\\""));
    assertEquals(404, api.get(Paths.pod(ns, "late-1")).code());
  }

  @Test
  void kubectlCreatesLabelsShowsAndDeletesNamespaces(@Namespace String prefix) {
    String ns = prefix + "-k";
    Kubectl kubectl = new Kubectl(api.base(), api.caCertificate(), api.token(), ns);
    assertTrue(kubectl.run("create", "namespace", ns).ok().out().contains("namespace/" + ns + " created"));
    assertTrue(kubectl.run("create", "namespace", ns).err().contains("AlreadyExists")
        || kubectl.run("create", "namespace", ns).err().contains("already exists"));
    assertTrue(kubectl.run("label", "namespace", ns, "pod-security.kubernetes.io/enforce=restricted").ok().out()
        .contains("namespace/" + ns + " labeled"));
    String yaml = kubectl.run("get", "ns", ns, "-o", "yaml").ok().out();
    assertTrue(yaml.contains("pod-security.kubernetes.io/enforce: restricted"), yaml);
    assertTrue(yaml.contains("kubernetes.io/metadata.name: " + ns), yaml);
    Kubectl.Result bad = kubectl.run("label", "--overwrite", "namespace", ns, "pod-security.kubernetes.io/enforce=strict");
    assertTrue(bad.code() != 0 && bad.err().contains("metadata.labels[pod-security.kubernetes.io/enforce]"), bad.toString());
    assertTrue(kubectl.run("get", "ns").ok().out().contains(ns));
    // kubectl waits until the namespace is gone or has another uid: the implicit one left has none.
    assertTrue(kubectl.run("delete", "namespace", ns).ok().out().contains("deleted"));
    String after = kubectl.run("get", "ns", ns, "-o", "yaml").ok().out();
    assertFalse(after.contains("pod-security.kubernetes.io/enforce"), "its labels went with it: " + after);
  }

  @Test
  void namesThatWouldLeaveTheDataDirAreInvalid(@Namespace String ns) {
    ObjectNode set = Manifests.commandSet("names", 1, "/bin/sleep", "100000");
    ((ObjectNode) set.at("/spec/template/spec/containers/0")).putArray("volumeMounts").addObject()
        .put("name", "data").put("mountPath", "/data").put("subPath", "../..");
    ObjectNode claim = ((ObjectNode) set.get("spec")).putArray("volumeClaimTemplates").addObject();
    claim.putObject("metadata").put("name", "../../etc");
    claim.putObject("spec").putArray("accessModes").add("ReadWriteOnce");
    ((ObjectNode) claim.get("spec")).putObject("resources").putObject("requests").put("storage", "1Gi");
    Api.Reply invalid = api.post(Paths.sets(ns), "application/json", KubeJson.write(set));
    assertEquals(422, invalid.code(), invalid.body());
    List<String> fields = invalid.json().at("/details/causes").findValuesAsText("field");
    assertTrue(fields.contains("spec.volumeClaimTemplates[0].metadata.name"), fields.toString());
    assertTrue(fields.contains("spec.template.spec.containers[0].volumeMounts.subPath"), fields.toString());

    ObjectNode absolute = Manifests.commandSet("names", 1, "/bin/sleep", "100000");
    ((ObjectNode) absolute.at("/spec/template/spec")).putArray("volumes").addObject().put("name", "scratch").putObject("emptyDir");
    ((ObjectNode) absolute.at("/spec/template/spec/containers/0")).putArray("volumeMounts").addObject()
        .put("name", "scratch").put("mountPath", "/scratch").put("subPath", "/etc");
    invalid = api.post(Paths.sets(ns), "application/json", KubeJson.write(absolute));
    assertEquals(422, invalid.code(), invalid.body());
    assertTrue(invalid.body().contains("spec.template.spec.containers[0].volumeMounts.subPath"), invalid.body());
    assertTrue(invalid.body().contains("must be a relative path"), invalid.body());

    Api.Reply badName = api.post(Paths.sets(ns), "application/json",
        KubeJson.write(((ObjectNode) Manifests.commandSet("x", 1, "/bin/true")).set("metadata",
            KubeJson.JSON.createObjectNode().put("name", "../x"))));
    assertEquals(422, badName.code(), badName.body());
    assertTrue(badName.body().contains("metadata.name"), badName.body());
  }

  private static void labelNamespace(String ns, String mode, String level) {
    Api.Reply reply = api.patch("/api/v1/namespaces/" + ns, "application/merge-patch+json",
        "{\"metadata\":{\"labels\":{\"pod-security.kubernetes.io/" + mode + "\":\"" + level + "\"}}}");
    assertEquals(200, reply.code(), reply.body());
  }

  private static long pid(String ns, String pod) {
    return service.containerPid(api.pod(ns, pod).at("/status/containerStatuses/0/containerID").asText());
  }

  private static Map<String, String> procStatus(long pid) throws Exception {
    Map<String, String> fields = new java.util.LinkedHashMap<>();
    for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
      int colon = line.indexOf(':');
      if (colon > 0) {
        fields.put(line.substring(0, colon), line.substring(colon + 1).trim());
      }
    }
    return fields;
  }

  private static String field(Map<String, String> status, String name, int index) {
    return status.get(name).split("\\s+")[index];
  }
}
