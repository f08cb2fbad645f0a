package io.ordinal.kube;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpecBuilder;
import io.ordinal.store.KubeJson;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The defaults of Kubernetes v1.34.2's SetObjectDefaults_StatefulSet for the pod template and claim
 * templates. Each case names where upstream sets the field: defaults.go is pkg/apis/core/v1/defaults.go,
 * zz_generated.defaults.go is pkg/apis/apps/v1's, which writes out the +default markers of the types.
 * The image names, quantities and the whole template below were also run through upstream's own
 * functions, which gave the values expected here.
 */
class PodTemplateDefaultsTest {
  private static final String DIGEST = "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

  /** A case: the template's spec (flow YAML), the JSON pointer looked at after apply, and its value (YAML). */
  static Arguments c(String upstream, String spec, String pointer, String value) {
    return Arguments.of(upstream + ": " + pointer + " = " + value, spec, pointer, value);
  }

  static Stream<Arguments> templateDefaults() {
    String c = "containers: [{name: a, image: 'x:1'";
    String probe = c + ", livenessProbe: ";
    return Stream.of(
        c("defaults.go:SetDefaults_PodSpec", "{}", "/spec/dnsPolicy", "ClusterFirst"),
        c("defaults.go:SetDefaults_PodSpec, \"\" being Go's unset", "{dnsPolicy: ''}",
            "/spec/dnsPolicy", "ClusterFirst"),
        c("defaults.go:SetDefaults_PodSpec", "{}", "/spec/restartPolicy", "Always"),
        c("defaults.go:SetDefaults_PodSpec", "{}", "/spec/securityContext", "{}"),
        c("defaults.go:SetDefaults_PodSpec", "{}", "/spec/terminationGracePeriodSeconds", "30"),
        c("defaults.go:SetDefaults_PodSpec", "{}", "/spec/schedulerName", "default-scheduler"),
        // Volumes.
        c("defaults.go:SetDefaults_Volume, a volume without source", "{volumes: [{name: v}]}",
            "/spec/volumes/0/emptyDir", "{}"),
        c("defaults.go:SetDefaults_HostPathVolumeSource", "{volumes: [{name: v, hostPath: {path: /x}}]}",
            "/spec/volumes/0/hostPath/type", "''"),
        c("defaults.go:SetDefaults_SecretVolumeSource", "{volumes: [{name: v, secret: {secretName: s}}]}",
            "/spec/volumes/0/secret/defaultMode", "420"),
        c("defaults.go:SetDefaults_ConfigMapVolumeSource", "{volumes: [{name: v, configMap: {name: c}}]}",
            "/spec/volumes/0/configMap/defaultMode", "420"),
        c("defaults.go:SetDefaults_DownwardAPIVolumeSource", "{volumes: [{name: v, downwardAPI: {}}]}",
            "/spec/volumes/0/downwardAPI/defaultMode", "420"),
        c("defaults.go:SetDefaults_ObjectFieldSelector of a downwardAPI volume",
            "{volumes: [{name: v, downwardAPI: {items: [{path: n, fieldRef: {fieldPath: metadata.name}}]}}]}",
            "/spec/volumes/0/downwardAPI/items/0/fieldRef/apiVersion", "v1"),
        c("defaults.go:SetDefaults_ProjectedVolumeSource", "{volumes: [{name: v, projected: {sources: []}}]}",
            "/spec/volumes/0/projected/defaultMode", "420"),
        c("defaults.go:SetDefaults_ObjectFieldSelector of a projected downwardAPI",
            "{volumes: [{name: v, projected: {sources: [{downwardAPI: {items: [{path: n, fieldRef: {fieldPath: x}}]}}]}}]}",
            "/spec/volumes/0/projected/sources/0/downwardAPI/items/0/fieldRef/apiVersion", "v1"),
        c("defaults.go:SetDefaults_ServiceAccountTokenProjection",
            "{volumes: [{name: v, projected: {sources: [{serviceAccountToken: {path: t}}]}}]}",
            "/spec/volumes/0/projected/sources/0/serviceAccountToken/expirationSeconds", "3600"),
        c("zz_generated.defaults.go, ISCSIVolumeSource",
            "{volumes: [{name: v, iscsi: {targetPortal: p, iqn: q, lun: 0}}]}",
            "/spec/volumes/0/iscsi/iscsiInterface", "default"),
        c("zz_generated.defaults.go, RBDVolumeSource", "{volumes: [{name: v, rbd: {monitors: [m], image: i}}]}",
            "/spec/volumes/0/rbd/pool", "rbd"),
        c("zz_generated.defaults.go, RBDVolumeSource", "{volumes: [{name: v, rbd: {monitors: [m], image: i}}]}",
            "/spec/volumes/0/rbd/user", "admin"),
        c("zz_generated.defaults.go, RBDVolumeSource", "{volumes: [{name: v, rbd: {monitors: [m], image: i}}]}",
            "/spec/volumes/0/rbd/keyring", "/etc/ceph/keyring"),
        c("zz_generated.defaults.go, AzureDiskVolumeSource",
            "{volumes: [{name: v, azureDisk: {diskName: d, diskURI: u}}]}",
            "/spec/volumes/0/azureDisk/cachingMode", "ReadWrite"),
        c("zz_generated.defaults.go, AzureDiskVolumeSource",
            "{volumes: [{name: v, azureDisk: {diskName: d, diskURI: u}}]}",
            "/spec/volumes/0/azureDisk/fsType", "ext4"),
        c("zz_generated.defaults.go, AzureDiskVolumeSource",
            "{volumes: [{name: v, azureDisk: {diskName: d, diskURI: u}}]}",
            "/spec/volumes/0/azureDisk/readOnly", "false"),
        c("zz_generated.defaults.go, AzureDiskVolumeSource",
            "{volumes: [{name: v, azureDisk: {diskName: d, diskURI: u}}]}",
            "/spec/volumes/0/azureDisk/kind", "Shared"),
        c("zz_generated.defaults.go, ScaleIOVolumeSource", "{volumes: [{name: v, scaleIO: {gateway: g, system: s}}]}",
            "/spec/volumes/0/scaleIO/storageMode", "ThinProvisioned"),
        c("zz_generated.defaults.go, ScaleIOVolumeSource", "{volumes: [{name: v, scaleIO: {gateway: g, system: s}}]}",
            "/spec/volumes/0/scaleIO/fsType", "xfs"),
        c("defaults.go:SetDefaults_PersistentVolumeClaimSpec of an ephemeral volume",
            "{volumes: [{name: v, ephemeral: {volumeClaimTemplate: {spec: {accessModes: [ReadWriteOnce]}}}}]}",
            "/spec/volumes/0/ephemeral/volumeClaimTemplate/spec/volumeMode", "Filesystem"),
        c("defaults.go:SetDefaults_ResourceList of an ephemeral volume's claim",
            "{volumes: [{name: v, ephemeral: {volumeClaimTemplate: {spec: {resources: {requests: {storage: '0.0001'}}}}}}]}",
            "/spec/volumes/0/ephemeral/volumeClaimTemplate/spec/resources/requests/storage", "1m"),
        // Containers.
        c("defaults.go:SetDefaults_Container, a tag", "{" + c + "}]}",
            "/spec/containers/0/imagePullPolicy", "IfNotPresent"),
        c("defaults.go:SetDefaults_Container, no tag", "{containers: [{name: a, image: x}]}",
            "/spec/containers/0/imagePullPolicy", "Always"),
        c("defaults.go:SetDefaults_Container", "{" + c + "}]}",
            "/spec/containers/0/terminationMessagePath", "/dev/termination-log"),
        c("defaults.go:SetDefaults_Container", "{" + c + "}]}", "/spec/containers/0/terminationMessagePolicy", "File"),
        c("zz_generated.defaults.go, ContainerPort", "{" + c + ", ports: [{containerPort: 80}]}]}",
            "/spec/containers/0/ports/0/protocol", "TCP"),
        c("zz_generated.defaults.go, ContainerPort, \"\" being Go's unset",
            "{" + c + ", ports: [{containerPort: 80, protocol: ''}]}]}",
            "/spec/containers/0/ports/0/protocol", "TCP"),
        c("defaults.go:SetDefaults_ObjectFieldSelector of an env var",
            "{" + c + ", env: [{name: N, valueFrom: {fieldRef: {fieldPath: metadata.name}}}]}]}",
            "/spec/containers/0/env/0/valueFrom/fieldRef/apiVersion", "v1"),
        c("defaults.go:SetDefaults_ResourceList of limits", "{" + c + ", resources: {limits: {cpu: '0.0001'}}}]}",
            "/spec/containers/0/resources/limits/cpu", "1m"),
        c("defaults.go:SetDefaults_ResourceList of requests", "{" + c + ", resources: {requests: {memory: 1.5Gi}}}]}",
            "/spec/containers/0/resources/requests/memory", "1536Mi"),
        c("defaults.go:SetDefaults_Probe", "{" + probe + "{exec: {command: ['true']}}}]}",
            "/spec/containers/0/livenessProbe/timeoutSeconds", "1"),
        c("defaults.go:SetDefaults_Probe", "{" + probe + "{exec: {command: ['true']}}}]}",
            "/spec/containers/0/livenessProbe/periodSeconds", "10"),
        c("defaults.go:SetDefaults_Probe", "{" + probe + "{exec: {command: ['true']}}}]}",
            "/spec/containers/0/livenessProbe/successThreshold", "1"),
        c("defaults.go:SetDefaults_Probe", "{" + probe + "{exec: {command: ['true']}}}]}",
            "/spec/containers/0/livenessProbe/failureThreshold", "3"),
        c("defaults.go:SetDefaults_Probe, 0 being Go's unset",
            "{" + probe + "{tcpSocket: {port: 1}, timeoutSeconds: 0}}]}",
            "/spec/containers/0/livenessProbe/timeoutSeconds", "1"),
        c("defaults.go:SetDefaults_Probe of a readiness probe", "{" + c + ", readinessProbe: {tcpSocket: {port: 1}}}]}",
            "/spec/containers/0/readinessProbe/periodSeconds", "10"),
        c("defaults.go:SetDefaults_Probe of a startup probe", "{" + c + ", startupProbe: {tcpSocket: {port: 1}}}]}",
            "/spec/containers/0/startupProbe/failureThreshold", "3"),
        c("defaults.go:SetDefaults_HTTPGetAction of a probe", "{" + probe + "{httpGet: {port: 80}}}]}",
            "/spec/containers/0/livenessProbe/httpGet/path", "/"),
        c("defaults.go:SetDefaults_HTTPGetAction of a probe", "{" + probe + "{httpGet: {port: 80}}}]}",
            "/spec/containers/0/livenessProbe/httpGet/scheme", "HTTP"),
        c("zz_generated.defaults.go, GRPCAction", "{" + probe + "{grpc: {port: 9}}}]}",
            "/spec/containers/0/livenessProbe/grpc/service", "''"),
        c("defaults.go:SetDefaults_HTTPGetAction of postStart",
            "{" + c + ", lifecycle: {postStart: {httpGet: {port: 80}}}}]}",
            "/spec/containers/0/lifecycle/postStart/httpGet/path", "/"),
        c("defaults.go:SetDefaults_HTTPGetAction of preStop",
            "{" + c + ", lifecycle: {preStop: {httpGet: {port: 80}}}}]}",
            "/spec/containers/0/lifecycle/preStop/httpGet/scheme", "HTTP"),
        c("defaults.go:SetDefaults_Container of an init container", "{initContainers: [{name: i, image: busybox}]}",
            "/spec/initContainers/0/imagePullPolicy", "Always"),
        c("defaults.go:SetDefaults_Container of an init container", "{initContainers: [{name: i, image: busybox}]}",
            "/spec/initContainers/0/terminationMessagePolicy", "File"),
        c("zz_generated.defaults.go, an init container's ContainerPort",
            "{initContainers: [{name: i, ports: [{containerPort: 1}]}]}",
            "/spec/initContainers/0/ports/0/protocol", "TCP"),
        c("defaults.go:SetDefaults_Probe of an init container",
            "{initContainers: [{name: i, startupProbe: {httpGet: {port: 1}}}]}",
            "/spec/initContainers/0/startupProbe/httpGet/path", "/"),
        c("defaults.go:SetDefaults_EphemeralContainer", "{ephemeralContainers: [{name: e, image: 'busybox:1.36'}]}",
            "/spec/ephemeralContainers/0/imagePullPolicy", "IfNotPresent"),
        c("defaults.go:SetDefaults_EphemeralContainer", "{ephemeralContainers: [{name: e, image: 'busybox:1.36'}]}",
            "/spec/ephemeralContainers/0/terminationMessagePath", "/dev/termination-log"),
        c("defaults.go:SetDefaults_Probe of an ephemeral container",
            "{ephemeralContainers: [{name: e, livenessProbe: {grpc: {port: 1}}}]}",
            "/spec/ephemeralContainers/0/livenessProbe/successThreshold", "1"),
        c("defaults.go:SetDefaults_ObjectFieldSelector of an ephemeral container's env",
            "{ephemeralContainers: [{name: e, env: [{name: N, valueFrom: {fieldRef: {fieldPath: x}}}]}]}",
            "/spec/ephemeralContainers/0/env/0/valueFrom/fieldRef/apiVersion", "v1"),
        // The pod's own resources.
        c("defaults.go:SetDefaults_ResourceList of the overhead", "{overhead: {cpu: '0.0001'}}",
            "/spec/overhead/cpu", "1m"),
        c("defaults.go:SetDefaults_ResourceList of pod-level resources", "{resources: {requests: {cpu: 1.0001m}}}",
            "/spec/resources/requests/cpu", "2m"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("templateDefaults")
  void anUnsetFieldGetsUpstreamsDefault(String upstream, String spec, String pointer, String value) {
    assertEquals(yaml(value), defaulted(spec).at(pointer));
  }

  static Stream<Arguments> setValues() {
    String c = "containers: [{name: a, image: x";
    return Stream.of(
        c("defaults.go:SetDefaults_PodSpec", "{dnsPolicy: None}", "/spec/dnsPolicy", "None"),
        c("defaults.go:SetDefaults_PodSpec", "{restartPolicy: Never}", "/spec/restartPolicy", "Never"),
        c("defaults.go:SetDefaults_PodSpec", "{securityContext: {runAsUser: 1000}}",
            "/spec/securityContext", "{runAsUser: 1000}"),
        c("defaults.go:SetDefaults_PodSpec, a pointer: 0 is set", "{terminationGracePeriodSeconds: 0}",
            "/spec/terminationGracePeriodSeconds", "0"),
        c("defaults.go:SetDefaults_PodSpec", "{schedulerName: mine}", "/spec/schedulerName", "mine"),
        c("defaults.go:SetDefaults_HostPathVolumeSource",
            "{volumes: [{name: v, hostPath: {path: /x, type: Directory}}]}",
            "/spec/volumes/0/hostPath/type", "Directory"),
        c("defaults.go:SetDefaults_SecretVolumeSource",
            "{volumes: [{name: v, secret: {secretName: s, defaultMode: 256}}]}",
            "/spec/volumes/0/secret/defaultMode", "256"),
        c("defaults.go:SetDefaults_ConfigMapVolumeSource, a pointer: 0 is set",
            "{volumes: [{name: v, configMap: {name: c, defaultMode: 0}}]}", "/spec/volumes/0/configMap/defaultMode", "0"),
        c("defaults.go:SetDefaults_ServiceAccountTokenProjection",
            "{volumes: [{name: v, projected: {sources: [{serviceAccountToken: {path: t, expirationSeconds: 600}}]}}]}",
            "/spec/volumes/0/projected/sources/0/serviceAccountToken/expirationSeconds", "600"),
        c("zz_generated.defaults.go, RBDVolumeSource",
            "{volumes: [{name: v, rbd: {monitors: [m], image: i, pool: mine}}]}",
            "/spec/volumes/0/rbd/pool", "mine"),
        c("zz_generated.defaults.go, AzureDiskVolumeSource, a pointer: \"\" is set",
            "{volumes: [{name: v, azureDisk: {diskName: d, diskURI: u, fsType: '', readOnly: true}}]}",
            "/spec/volumes/0/azureDisk",
            "{diskName: d, diskURI: u, fsType: '', readOnly: true, cachingMode: ReadWrite, kind: Shared}"),
        c("defaults.go:SetDefaults_Container", "{" + c + ", imagePullPolicy: Never}]}",
            "/spec/containers/0/imagePullPolicy", "Never"),
        c("defaults.go:SetDefaults_Container", "{" + c + ", terminationMessagePath: /tmp/end}]}",
            "/spec/containers/0/terminationMessagePath", "/tmp/end"),
        c("defaults.go:SetDefaults_Container", "{" + c + ", terminationMessagePolicy: FallbackToLogsOnError}]}",
            "/spec/containers/0/terminationMessagePolicy", "FallbackToLogsOnError"),
        c("zz_generated.defaults.go, ContainerPort", "{" + c + ", ports: [{containerPort: 53, protocol: UDP}]}]}",
            "/spec/containers/0/ports/0/protocol", "UDP"),
        c("defaults.go:SetDefaults_ObjectFieldSelector",
            "{" + c + ", env: [{name: N, valueFrom: {fieldRef: {apiVersion: v2, fieldPath: x}}}]}]}",
            "/spec/containers/0/env/0/valueFrom/fieldRef/apiVersion", "v2"),
        c("defaults.go:SetDefaults_Probe",
            "{" + c + ", livenessProbe: {tcpSocket: {port: 1}, timeoutSeconds: 5, periodSeconds: 7,"
            + " successThreshold: 2, failureThreshold: 9}}]}", "/spec/containers/0/livenessProbe",
            "{tcpSocket: {port: 1}, timeoutSeconds: 5, periodSeconds: 7, successThreshold: 2, failureThreshold: 9}"),
        c("defaults.go:SetDefaults_HTTPGetAction",
            "{" + c + ", readinessProbe: {httpGet: {port: 1, path: /healthz, scheme: HTTPS}}}]}",
            "/spec/containers/0/readinessProbe/httpGet", "{port: 1, path: /healthz, scheme: HTTPS}"),
        c("zz_generated.defaults.go, GRPCAction, a pointer: \"\" is set",
            "{" + c + ", livenessProbe: {grpc: {port: 1, service: ''}}}]}",
            "/spec/containers/0/livenessProbe/grpc/service", "''"),
        c("zz_generated.defaults.go, GRPCAction", "{" + c + ", livenessProbe: {grpc: {port: 1, service: health}}}]}",
            "/spec/containers/0/livenessProbe/grpc/service", "health"),
        // RoundUp keeps a quantity at milli scale or coarser; it is stored as upstream's encoding then
        // writes it, kept as written when that is canonical already.
        c("defaults.go:SetDefaults_ResourceList", "{" + c + ", resources: {limits: {cpu: 500m, memory: 1Gi}}}]}",
            "/spec/containers/0/resources/limits", "{cpu: 500m, memory: 1Gi}"),
        c("defaults.go:SetDefaults_Volume", "{volumes: [{name: v, nfs: {server: s, path: /}}]}", "/spec/volumes/0",
            "{name: v, nfs: {server: s, path: /}}"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("setValues")
  void aSetValueIsKept(String upstream, String spec, String pointer, String value) {
    assertEquals(yaml(value), defaulted(spec).at(pointer));
  }

  static Stream<Arguments> notDefaulted() {
    return Stream.of(
        Arguments.of("defaults.go:SetDefaults_Pod only: enableServiceLinks", "{containers: [{name: a}]}",
            "/spec/enableServiceLinks"),
        Arguments.of("defaults.go:SetDefaults_Pod only: host ports under hostNetwork",
            "{hostNetwork: true, containers: [{name: a, ports: [{containerPort: 80}]}]}",
            "/spec/containers/0/ports/0/hostPort"),
        Arguments.of("defaults.go:SetDefaults_Pod only: requests from limits",
            "{containers: [{name: a, resources: {limits: {cpu: '1'}}}]}", "/spec/containers/0/resources/requests"),
        Arguments.of("defaults.go:SetDefaults_Pod only: pod-level requests from limits (PodLevelResources)",
            "{resources: {limits: {cpu: '1'}}, containers: [{name: a}]}", "/spec/resources/requests"),
        Arguments.of("defaults.go:SetDefaults_Volume, ImageVolume gate off in v1.34: an image volume's pullPolicy",
            "{volumes: [{name: v, image: {reference: 'x:latest'}}]}", "/spec/volumes/0/image/pullPolicy"),
        Arguments.of("zz_generated.defaults.go, EnvFiles gate off in v1.34: fileKeyRef.optional",
            "{containers: [{name: a, env: [{name: N, valueFrom: {fileKeyRef: {path: p, key: k, volumeName: v}}}]}]}",
            "/spec/containers/0/env/0/valueFrom/fileKeyRef/optional"),
        Arguments.of("no default for a tcpSocket handler",
            "{containers: [{name: a, livenessProbe: {tcpSocket: {port: 1}}}]}",
            "/spec/containers/0/livenessProbe/tcpSocket/host"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("notDefaulted")
  void whatUpstreamDefaultsOnlyInPodsOrBehindAGateThatIsOffStaysUnset(String why, String spec, String pointer) {
    assertTrue(defaulted(spec).at(pointer).isMissingNode(), () -> defaulted(spec).toString());
  }

  /**
   * SetDefaults_Container: parsers.ParseImageName (github.com/distribution/reference) gives "latest"
   * for that tag or none at all; a name it cannot parse gets IfNotPresent, as upstream ignores the error.
   */
  @ParameterizedTest(name = "{0} pulls {1}")
  @CsvSource(textBlock = """
      nginx,                                     Always
      nginx:latest,                              Always
      nginx:1.27,                                IfNotPresent
      nginx:LATEST,                              IfNotPresent
      docker.io/library/nginx,                   Always
      index.docker.io/library/nginx,             Always
      nginx@DIGEST,                              IfNotPresent
      nginx:latest@DIGEST,                       Always
      nginx:1.27@DIGEST,                         IfNotPresent
      nginx:latest@sha256:abc,                   IfNotPresent
      nginx:latest@md5:e3b0c44298fc1c149afbf4c8996fb924, IfNotPresent
      host:5000/img,                             Always
      host:5000/img:v1,                          IfNotPresent
      localhost/img,                             Always
      [::1]:5000/img,                            Always
      Registry.Example.com/app,                  Always
      Nginx,                                     IfNotPresent
      team/Nginx,                                IfNotPresent
      a__b,                                      Always
      a___b,                                     IfNotPresent
      img:,                                      IfNotPresent
      http://root,                               IfNotPresent
      e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855, IfNotPresent
      '',                                        IfNotPresent
      """)
  void imagePullPolicyIsAlwaysOnlyForTheLatestTagAsUpstreamParsesTheName(String image, String policy) {
    String name = image.replace("DIGEST", DIGEST);
    assertEquals(policy, pullPolicy(name));
  }

  @Test
  void imagePullPolicyEdgesOfTheNameGrammar() {
    // Ordinal's former rule ("no ':' or ':latest' at the end") differed for these two.
    assertEquals("Always", pullPolicy("registry:5000/team/app"));
    assertEquals("IfNotPresent", pullPolicy("App"));
    // The digest's hex is lower case only.
    assertEquals("IfNotPresent", pullPolicy("nginx:latest@" + DIGEST.toUpperCase().replace("SHA256", "sha256")));
    // The repository path ("library/" added) may be 255 characters long, no more.
    assertEquals("Always", pullPolicy("a".repeat(247)));
    assertEquals("IfNotPresent", pullPolicy("a".repeat(248)));
    // No image at all is "", which does not parse.
    assertEquals("IfNotPresent", pullPolicy(null));
    // A long name is matched without recursion as deep as it is long.
    assertEquals("Always", pullPolicy("a.".repeat(20_000) + "com/img"));
  }

  private static String pullPolicy(String image) {
    PodTemplateSpec template = new PodTemplateSpecBuilder().withNewSpec()
        .addToContainers(new ContainerBuilder().withName("a").withImage(image).build()).endSpec().build();
    return PodTemplateDefaults.apply(template).getSpec().getContainers().getFirst().getImagePullPolicy();
  }

  /**
   * SetDefaults_ResourceList: Quantity.RoundUp(-3) after ParseQuantity, and the string upstream then
   * writes: the canonical form, unless the string was canonical as written (GoQuantity).
   */
  @ParameterizedTest(name = "{0} becomes {1}")
  @CsvSource(textBlock = """
      0.0001,        1m
      100u,          1m
      1n,            1m
      1.0001m,       2m
      -0.0001,       -1m
      0.1234567891m, 1m
      1e-4,          1e-3
      1.5Gi,         1536Mi
      0.5Ki,         512
      0.0001Gi,      107374183m
      0.00001Ki,     11m
      500m,          500m
      0.5,           500m
      1000m,         1
      1024Mi,        1Gi
      2e3,           2e3
      1.2.3,         1.2.3
      """)
  void resourceQuantitiesFinerThanMilliRoundUp(String quantity, String expected) {
    JsonNode spec = defaulted("{containers: [{name: a, resources: {limits: {cpu: '" + quantity + "'}}}]}");
    assertEquals(expected, spec.at("/spec/containers/0/resources/limits/cpu").asText());
  }

  static Stream<Arguments> claimDefaults() {
    String claim = "{metadata: {name: data}, spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}}";
    return Stream.of(
        c("defaults.go:SetDefaults_PersistentVolumeClaim", claim, "/status/phase", "Pending"),
        c("defaults.go:SetDefaults_PersistentVolumeClaimSpec", claim, "/spec/volumeMode", "Filesystem"),
        c("defaults.go:SetDefaults_PersistentVolumeClaimSpec, a missing spec", "{metadata: {name: data}}",
            "/spec", "{volumeMode: Filesystem}"),
        c("defaults.go:SetDefaults_ResourceList of spec.resources.requests",
            "{spec: {resources: {requests: {storage: '0.0001'}}}}", "/spec/resources/requests/storage", "1m"),
        c("defaults.go:SetDefaults_ResourceList of spec.resources.limits",
            "{spec: {resources: {limits: {storage: 1.5Gi}}}}", "/spec/resources/limits/storage", "1536Mi"),
        c("defaults.go:SetDefaults_ResourceList of status.capacity", "{status: {capacity: {storage: 0.00001Ki}}}",
            "/status/capacity/storage", "11m"),
        c("defaults.go:SetDefaults_ResourceList of status.allocatedResources",
            "{status: {allocatedResources: {storage: 100u}}}",
            "/status/allocatedResources/storage", "1m"),
        c("apps/v1 conversion.go:Convert_apps_StatefulSetSpec_To_v1_StatefulSetSpec", "{kind: Claim, apiVersion: v2}",
            "/apiVersion", "v1"),
        c("apps/v1 conversion.go:Convert_apps_StatefulSetSpec_To_v1_StatefulSetSpec", "{kind: Claim, apiVersion: v2}",
            "/kind",
            "PersistentVolumeClaim"),
        c("defaults.go:SetDefaults_PersistentVolumeClaimSpec keeps a set mode", "{spec: {volumeMode: Block}}",
            "/spec/volumeMode", "Block"),
        c("defaults.go:SetDefaults_PersistentVolumeClaimSpec, a pointer: \"\" is set", "{spec: {volumeMode: ''}}",
            "/spec/volumeMode", "''"),
        c("defaults.go:SetDefaults_PersistentVolumeClaim keeps a set phase", "{status: {phase: Bound}}",
            "/status/phase", "Bound"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("claimDefaults")
  void aClaimTemplateGetsUpstreamsDefaults(String upstream, String claim, String pointer, String value) {
    assertEquals(yaml(value), tree(PodTemplateDefaults.applyClaim(read(claim, PersistentVolumeClaim.class))).at(pointer));
  }

  /** Every part SetObjectDefaults_StatefulSet defaults, in one template. */
  private static final String TEMPLATE = """
      metadata: {labels: {app: web}}
      spec:
        volumes:
        - {name: bare}
        - {name: hp, hostPath: {path: /x}}
        - {name: sec, secret: {secretName: s}}
        - {name: cm, configMap: {name: c}}
        - {name: dapi, downwardAPI: {items: [{path: l, fieldRef: {fieldPath: metadata.labels}}]}}
        - name: proj
          projected:
            sources:
            - downwardAPI: {items: [{path: n, fieldRef: {fieldPath: metadata.name}}]}
            - serviceAccountToken: {path: t}
            - configMap: {name: c}
        - {name: iscsi, iscsi: {targetPortal: p, iqn: q, lun: 0}}
        - {name: rbd, rbd: {monitors: [m], image: i}}
        - {name: az, azureDisk: {diskName: d, diskURI: u}}
        - {name: sio, scaleIO: {gateway: g, system: s, secretRef: {name: x}}}
        - name: eph
          ephemeral:
            volumeClaimTemplate: {spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 0.0001Gi}}}}
        - {name: ed, emptyDir: {sizeLimit: 1024Mi}}
        initContainers:
        - name: init
          image: busybox
          ports: [{containerPort: 1}]
          env: [{name: E, valueFrom: {fieldRef: {fieldPath: metadata.name}}}]
          resources: {limits: {cpu: '0.0001'}, requests: {memory: 1.5Gi}}
          livenessProbe: {httpGet: {port: 80}}
          readinessProbe: {grpc: {port: 9}}
          startupProbe: {tcpSocket: {port: 1}, timeoutSeconds: 0}
          lifecycle: {postStart: {httpGet: {port: 80}}, preStop: {httpGet: {port: 81, path: /stop}}}
        containers:
        - name: app
          image: host:5000/app
          ports: [{containerPort: 80, protocol: ''}]
          livenessProbe: {exec: {command: ['true']}}
          readinessProbe: {httpGet: {port: 8080, scheme: HTTPS}}
          lifecycle: {preStop: {sleep: {seconds: 1}}}
        ephemeralContainers:
        - name: dbg
          image: busybox:1.36
          ports: [{containerPort: 2}]
          env: [{name: N, valueFrom: {fieldRef: {fieldPath: spec.nodeName, apiVersion: ''}}}]
          livenessProbe: {httpGet: {port: 1}}
          lifecycle: {postStart: {httpGet: {port: 1}}}
        overhead: {cpu: '0.0001'}
        resources: {limits: {memory: '0.0000001'}, requests: {cpu: 1.0001m}}
      """;

  /**
   * What upstream's SetObjectDefaults_StatefulSet made of {@link #TEMPLATE}, less what only Go's
   * encoding adds (an empty "resources" and "metadata" for its structs, "1Gi" for "1024Mi"). COUNTS
   * stands for SetDefaults_Probe's four counts.
   */
  private static final String DEFAULTED = """
      metadata: {labels: {app: web}}
      spec:
        volumes:
        - {name: bare, emptyDir: {}}
        - {name: hp, hostPath: {path: /x, type: ''}}
        - {name: sec, secret: {secretName: s, defaultMode: 420}}
        - {name: cm, configMap: {name: c, defaultMode: 420}}
        - name: dapi
          downwardAPI: {items: [{path: l, fieldRef: {apiVersion: v1, fieldPath: metadata.labels}}], defaultMode: 420}
        - name: proj
          projected:
            sources:
            - downwardAPI: {items: [{path: n, fieldRef: {apiVersion: v1, fieldPath: metadata.name}}]}
            - serviceAccountToken: {expirationSeconds: 3600, path: t}
            - configMap: {name: c}
            defaultMode: 420
        - {name: iscsi, iscsi: {targetPortal: p, iqn: q, lun: 0, iscsiInterface: default}}
        - {name: rbd, rbd: {monitors: [m], image: i, pool: rbd, user: admin, keyring: /etc/ceph/keyring}}
        - name: az
          azureDisk: {diskName: d, diskURI: u, cachingMode: ReadWrite, fsType: ext4, readOnly: false, kind: Shared}
        - {name: sio, scaleIO: {gateway: g, system: s, secretRef: {name: x}, storageMode: ThinProvisioned, fsType: xfs}}
        - name: eph
          ephemeral:
            volumeClaimTemplate:
              spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 107374183m}}, volumeMode: Filesystem}
        - {name: ed, emptyDir: {sizeLimit: 1024Mi}}
        initContainers:
        - name: init
          image: busybox
          ports: [{containerPort: 1, protocol: TCP}]
          env: [{name: E, valueFrom: {fieldRef: {apiVersion: v1, fieldPath: metadata.name}}}]
          resources: {limits: {cpu: 1m}, requests: {memory: 1536Mi}}
          livenessProbe: {httpGet: {path: /, port: 80, scheme: HTTP}, COUNTS}
          readinessProbe: {grpc: {port: 9, service: ''}, COUNTS}
          startupProbe: {tcpSocket: {port: 1}, COUNTS}
          lifecycle:
            postStart: {httpGet: {path: /, port: 80, scheme: HTTP}}
            preStop: {httpGet: {path: /stop, port: 81, scheme: HTTP}}
          terminationMessagePath: /dev/termination-log
          terminationMessagePolicy: File
          imagePullPolicy: Always
        containers:
        - name: app
          image: host:5000/app
          ports: [{containerPort: 80, protocol: TCP}]
          livenessProbe: {exec: {command: ['true']}, COUNTS}
          readinessProbe: {httpGet: {path: /, port: 8080, scheme: HTTPS}, COUNTS}
          lifecycle: {preStop: {sleep: {seconds: 1}}}
          terminationMessagePath: /dev/termination-log
          terminationMessagePolicy: File
          imagePullPolicy: Always
        ephemeralContainers:
        - name: dbg
          image: busybox:1.36
          ports: [{containerPort: 2, protocol: TCP}]
          env: [{name: N, valueFrom: {fieldRef: {apiVersion: v1, fieldPath: spec.nodeName}}}]
          livenessProbe: {httpGet: {path: /, port: 1, scheme: HTTP}, COUNTS}
          lifecycle: {postStart: {httpGet: {path: /, port: 1, scheme: HTTP}}}
          terminationMessagePath: /dev/termination-log
          terminationMessagePolicy: File
          imagePullPolicy: IfNotPresent
        restartPolicy: Always
        terminationGracePeriodSeconds: 30
        dnsPolicy: ClusterFirst
        securityContext: {}
        schedulerName: default-scheduler
        overhead: {cpu: 1m}
        resources: {limits: {memory: 1m}, requests: {cpu: 2m}}
      """;

  @Test
  void aTemplateWithEveryDefaultedPartComesOutAsUpstreamLeavesIt() {
    String counts = "timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3";
    PodTemplateSpec template = read(TEMPLATE, PodTemplateSpec.class);
    assertEquals(yaml(DEFAULTED.replace("COUNTS", counts)), tree(PodTemplateDefaults.apply(template)));
  }

  @Test
  void applyingTwiceIsApplyingOnce() {
    PodTemplateSpec once = PodTemplateDefaults.apply(read(TEMPLATE, PodTemplateSpec.class));
    JsonNode expected = tree(once);
    assertEquals(expected, tree(PodTemplateDefaults.apply(once)));
    assertEquals(expected, tree(PodTemplateDefaults.apply(read(KubeJson.write(once), PodTemplateSpec.class))));

    String claim = "{metadata: {name: d}, spec: {resources: {requests: {storage: '0.0001'}}},"
        + " status: {capacity: {storage: 1.5Gi}}}";
    PersistentVolumeClaim claimOnce = PodTemplateDefaults.applyClaim(read(claim, PersistentVolumeClaim.class));
    JsonNode claimExpected = tree(claimOnce);
    assertEquals(claimExpected, tree(PodTemplateDefaults.applyClaim(claimOnce)));
  }

  @Test
  void nothingToDefaultIsNoError() {
    assertNull(PodTemplateDefaults.apply(null));
    assertNull(PodTemplateDefaults.applyClaim(null));
    // A Go struct is defaulted when absent: a template without spec gets the spec's defaults.
    assertEquals(yaml("ClusterFirst"), defaulted("null").at("/spec/dnsPolicy"));
    assertEquals(yaml("{name: a, imagePullPolicy: IfNotPresent, terminationMessagePath: /dev/termination-log,"
        + " terminationMessagePolicy: File}"), defaulted("{containers: [{name: a}]}").at("/spec/containers/0"));
  }

  private static JsonNode defaulted(String spec) {
    return tree(PodTemplateDefaults.apply(read("{spec: " + spec + "}", PodTemplateSpec.class)));
  }

  private static <T> T read(String yaml, Class<T> type) {
    try {
      return KubeJson.YAML.readValue(yaml, type);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static JsonNode yaml(String text) {
    try {
      return KubeJson.YAML.readTree(text);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Through its JSON, so that numbers compare as parsed (30, not 30L). */
  private static JsonNode tree(Object value) {
    try {
      return KubeJson.JSON.readTree(KubeJson.write(value));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
