package io.ordinal.podsecurity;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.ordinal.store.KubeJson;
import java.util.List;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Each check against cases after upstream's {@code policy/check_*_test.go}: a pod spec (JSON), and
 * the reason and detail expected, or none.
 */
class ChecksTest {
  private static final String C = "\"containers\":[{\"name\":\"a\",\"image\":\"x\"}";

  static Stream<Arguments> cases() {
    return Stream.of(
        // hostNamespaces
        c("hostNamespaces", Checks::hostNamespaces, "{\"hostNetwork\":true,\"hostPID\":true," + C + "]}",
            "host namespaces", "hostNetwork=true, hostPID=true"),
        c("hostNamespaces", Checks::hostNamespaces, "{\"hostIPC\":false," + C + "]}", null, null),
        // privileged
        c("privileged", Checks::privileged, "{\"containers\":[{\"name\":\"a\",\"securityContext\":{\"privileged\":true}},"
            + "{\"name\":\"b\",\"securityContext\":{\"privileged\":false}},{\"name\":\"c\",\"securityContext\":{\"privileged\":true}}]}",
            "privileged", "containers \"a\", \"c\" must not set securityContext.privileged=true"),
        // capabilities_baseline
        c("capabilities_baseline", Checks::capabilitiesBaseline, "{\"containers\":[{\"name\":\"a\",\"securityContext\":"
            + "{\"capabilities\":{\"add\":[\"CHOWN\",\"NET_ADMIN\",\"SYS_ADMIN\"]}}}]}",
            "non-default capabilities", "container \"a\" must not include \"NET_ADMIN\", \"SYS_ADMIN\" in securityContext.capabilities.add"),
        c("capabilities_baseline", Checks::capabilitiesBaseline, "{\"containers\":[{\"name\":\"a\",\"securityContext\":"
            + "{\"capabilities\":{\"add\":[\"NET_BIND_SERVICE\",\"KILL\"]}}}]}", null, null),
        // hostPathVolumes
        c("hostPathVolumes", Checks::hostPathVolumes, "{" + C + "],\"volumes\":[{\"name\":\"a\",\"hostPath\":{\"path\":\"/\"}},"
            + "{\"name\":\"b\",\"emptyDir\":{}},{\"name\":\"c\",\"hostPath\":{\"path\":\"/etc\"}}]}",
            "hostPath volumes", "volumes \"a\", \"c\""),
        // hostPorts
        c("hostPorts", Checks::hostPorts, "{\"containers\":[{\"name\":\"a\",\"ports\":[{\"containerPort\":80,\"hostPort\":10}]},"
            + "{\"name\":\"b\",\"ports\":[{\"containerPort\":80,\"hostPort\":20},{\"containerPort\":81,\"hostPort\":0}]}]}",
            "hostPort", "containers \"a\", \"b\" use hostPorts 10, 20"),
        c("hostPorts", Checks::hostPorts, "{\"containers\":[{\"name\":\"a\",\"ports\":[{\"containerPort\":80,\"hostPort\":10}]}]}",
            "hostPort", "container \"a\" uses hostPort 10"),
        // hostProbesAndHostLifecycle (upstream's cases: loopback names too, sorted containers and hosts)
        c("hostProbesAndHostLifecycle", Checks::hostProbesAndHostLifecycle, "{\"containers\":[{\"name\":\"a\","
            + "\"livenessProbe\":{\"httpGet\":{\"host\":\"127.0.0.1\",\"port\":1}},\"readinessProbe\":{\"tcpSocket\":{\"host\":\"::1\",\"port\":1}},"
            + "\"startupProbe\":{\"httpGet\":{\"host\":\"localhost\",\"port\":1}}}]}",
            "probe or lifecycle host", "container \"a\" uses probe or lifecycle hosts \"127.0.0.1\", \"::1\", \"localhost\""),
        c("hostProbesAndHostLifecycle", Checks::hostProbesAndHostLifecycle, "{\"initContainers\":[{\"name\":\"z\","
            + "\"lifecycle\":{\"preStop\":{\"tcpSocket\":{\"host\":\"b.com\",\"port\":1}}}}],\"containers\":[{\"name\":\"valid\","
            + "\"readinessProbe\":{\"httpGet\":{\"host\":\"\",\"port\":1}}},{\"name\":\"invalid1\",\"lifecycle\":{\"postStart\":"
            + "{\"httpGet\":{\"host\":\"a.com\",\"port\":1}}}}]}",
            "probe or lifecycle host", "containers \"invalid1\", \"z\" use probe or lifecycle hosts \"a.com\", \"b.com\""),
        // procMount
        c("procMount", Checks::procMount, "{\"containers\":[{\"name\":\"a\",\"securityContext\":{\"procMount\":\"Unmasked\"}},"
            + "{\"name\":\"b\",\"securityContext\":{\"procMount\":\"Default\"}}]}",
            "procMount", "container \"a\" must not set securityContext.procMount to \"Unmasked\""),
        // seccompProfile_baseline
        c("seccompProfile_baseline", Checks::seccompProfileBaseline, "{\"securityContext\":{\"seccompProfile\":{\"type\":\"Unconfined\"}},"
            + "\"containers\":[{\"name\":\"a\",\"securityContext\":{\"seccompProfile\":{\"type\":\"Unconfined\"}}},{\"name\":\"b\"}]}",
            "seccompProfile", "pod and container \"a\" must not set securityContext.seccompProfile.type to \"Unconfined\""),
        // seLinuxOptions
        c("seLinuxOptions", Checks::seLinuxOptions, "{\"securityContext\":{\"seLinuxOptions\":{\"type\":\"bar\"}},"
            + "\"containers\":[{\"name\":\"a\",\"securityContext\":{\"seLinuxOptions\":{\"user\":\"u\",\"role\":\"r\"}}}]}",
            "seLinuxOptions", "pod and container \"a\" set forbidden securityContext.seLinuxOptions: type \"bar\"; user may not be set; role may not be set"),
        c("seLinuxOptions", Checks::seLinuxOptions, "{\"securityContext\":{\"seLinuxOptions\":{\"type\":\"container_t\",\"level\":\"s0\"}}," + C + "]}",
            null, null),
        // sysctls
        c("sysctls", Checks::sysctls, "{\"securityContext\":{\"sysctls\":[{\"name\":\"net.ipv4.tcp_syncookies\",\"value\":\"1\"},"
            + "{\"name\":\"kernel.msgmax\",\"value\":\"1\"}]}," + C + "]}", "forbidden sysctls", "kernel.msgmax"),
        // appArmorProfile
        c("appArmorProfile", Checks::appArmorProfile, "{\"containers\":[{\"name\":\"a\",\"securityContext\":{\"appArmorProfile\":{\"type\":\"Unconfined\"}}}]}",
            "forbidden AppArmor profile", "container \"a\" must not set securityContext.appArmorProfile.type to \"Unconfined\""),
        // allowPrivilegeEscalation
        c("allowPrivilegeEscalation", Checks::allowPrivilegeEscalation, "{\"containers\":[{\"name\":\"a\"},"
            + "{\"name\":\"b\",\"securityContext\":{\"allowPrivilegeEscalation\":true}},{\"name\":\"c\",\"securityContext\":{\"allowPrivilegeEscalation\":false}}]}",
            "allowPrivilegeEscalation != false", "containers \"a\", \"b\" must set securityContext.allowPrivilegeEscalation=false"),
        // capabilities_restricted
        c("capabilities_restricted", Checks::capabilitiesRestricted, "{\"containers\":[{\"name\":\"a\"},"
            + "{\"name\":\"b\",\"securityContext\":{\"capabilities\":{\"drop\":[\"ALL\"],\"add\":[\"NET_BIND_SERVICE\",\"CHOWN\"]}}}]}",
            "unrestricted capabilities", "container \"a\" must set securityContext.capabilities.drop=[\"ALL\"]; "
                + "container \"b\" must not include \"CHOWN\" in securityContext.capabilities.add"),
        // restrictedVolumes
        c("restrictedVolumes", Checks::restrictedVolumes, "{" + C + "],\"volumes\":[{\"name\":\"a\",\"hostPath\":{\"path\":\"/\"}},"
            + "{\"name\":\"b\",\"emptyDir\":{}},{\"name\":\"c\",\"nfs\":{\"server\":\"s\",\"path\":\"/\"}},"
            + "{\"name\":\"d\",\"persistentVolumeClaim\":{\"claimName\":\"x\"}}]}",
            "restricted volume types", "volumes \"a\", \"c\" use restricted volume types \"hostPath\", \"nfs\""),
        // runAsNonRoot
        c("runAsNonRoot", Checks::runAsNonRoot, "{\"containers\":[{\"name\":\"a\"},{\"name\":\"b\",\"securityContext\":{\"runAsNonRoot\":true}}]}",
            "runAsNonRoot != true", "pod or container \"a\" must set securityContext.runAsNonRoot=true"),
        c("runAsNonRoot", Checks::runAsNonRoot, "{\"securityContext\":{\"runAsNonRoot\":false},"
            + "\"containers\":[{\"name\":\"a\",\"securityContext\":{\"runAsNonRoot\":false}},{\"name\":\"b\"}]}",
            "runAsNonRoot != true", "pod and container \"a\" must not set securityContext.runAsNonRoot=false"),
        c("runAsNonRoot", Checks::runAsNonRoot, "{\"securityContext\":{\"runAsNonRoot\":true}," + C + "]}", null, null),
        // runAsUser
        c("runAsUser", Checks::runAsUser, "{\"securityContext\":{\"runAsUser\":0},"
            + "\"containers\":[{\"name\":\"a\",\"securityContext\":{\"runAsUser\":0}},{\"name\":\"b\",\"securityContext\":{\"runAsUser\":1000}}]}",
            "runAsUser=0", "pod and container \"a\" must not set runAsUser=0"),
        // seccompProfile_restricted
        c("seccompProfile_restricted", Checks::seccompProfileRestricted, "{" + C + "]}",
            "seccompProfile", "pod or container \"a\" must set securityContext.seccompProfile.type to \"RuntimeDefault\" or \"Localhost\""),
        c("seccompProfile_restricted", Checks::seccompProfileRestricted, "{\"securityContext\":{\"seccompProfile\":{\"type\":\"RuntimeDefault\"}},"
            + "\"containers\":[{\"name\":\"a\",\"securityContext\":{\"seccompProfile\":{\"type\":\"Unconfined\"}}},{\"name\":\"b\"}]}",
            "seccompProfile", "container \"a\" must not set securityContext.seccompProfile.type to \"Unconfined\""),
        c("seccompProfile_restricted", Checks::seccompProfileRestricted, "{\"securityContext\":{\"seccompProfile\":{\"type\":\"Localhost\"}}," + C + "]}",
            null, null));
  }

  private static Arguments c(String id, BiFunction<ObjectMeta, PodSpec, Optional<CheckResult>> check, String spec,
      String reason, String detail) {
    return Arguments.of(id, check, spec, reason, detail);
  }

  @ParameterizedTest(name = "{0}: {2}")
  @MethodSource("cases")
  void check(String id, BiFunction<ObjectMeta, PodSpec, Optional<CheckResult>> check, String spec, String reason, String detail) {
    Optional<CheckResult> result = check.apply(new ObjectMeta(), KubeJson.read(spec, PodSpec.class));
    assertEquals(reason == null ? Optional.empty() : Optional.of(new CheckResult(reason, detail)), result);
  }

  @ParameterizedTest
  @MethodSource("levels")
  void levelsApplyTheirChecksAndOverrides(Level level, List<String> ids) {
    assertEquals(ids, Checks.forLevel(level).stream().map(Checks.Check::id).toList());
  }

  static Stream<Arguments> levels() {
    return Stream.of(
        Arguments.of(Level.PRIVILEGED, List.of()),
        Arguments.of(Level.BASELINE, List.of("appArmorProfile", "capabilities_baseline", "hostNamespaces",
            "hostPathVolumes", "hostPorts", "hostProbesAndHostLifecycle", "privileged", "procMount", "seLinuxOptions",
            "seccompProfile_baseline", "sysctls")),
        Arguments.of(Level.RESTRICTED, List.of("allowPrivilegeEscalation", "appArmorProfile", "capabilities_restricted",
            "hostNamespaces", "hostPorts", "hostProbesAndHostLifecycle", "privileged", "procMount", "restrictedVolumes", "runAsNonRoot", "runAsUser",
            "seLinuxOptions", "seccompProfile_restricted", "sysctls")));
  }
}
