package io.ordinal.patch;

import static io.ordinal.patch.FieldTable.fact;

import io.fabric8.kubernetes.api.model.ConfigMapKeySelector;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LocalObjectReference;
import io.fabric8.kubernetes.api.model.NodeSelector;
import io.fabric8.kubernetes.api.model.NodeSelectorTerm;
import io.fabric8.kubernetes.api.model.ObjectFieldSelector;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.ResourceFieldSelector;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.SecretKeySelector;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.ServiceSpec;
import io.fabric8.kubernetes.api.model.TypedLocalObjectReference;
import io.fabric8.kubernetes.api.model.apps.StatefulSetSpec;
import io.fabric8.kubernetes.api.model.apps.StatefulSetStatus;
import io.ordinal.patch.FieldTable.Fact;
import io.ordinal.patch.PatchStrategies.FieldPatch;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * How server-side apply treats the lists, maps and structs of the types a StatefulSet and a Pod
 * contain: upstream's {@code +listType}/{@code +listMapKey}, {@code +mapType} and
 * {@code +structType} markers (kubernetes 1.32, {@code staging/src/k8s.io/api/core/v1/types.go},
 * {@code staging/src/k8s.io/api/apps/v1/types.go},
 * {@code staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/types.go}). The OpenAPI documents publish
 * them as {@code x-kubernetes-list-type}, {@code x-kubernetes-list-map-keys} and
 * {@code x-kubernetes-map-type}; the field manager ({@code io.ordinal.api.apply}) merges by them.
 *
 * <p>A list without a marker is read as kube-openapi's schemaconv reads it: a {@code merge} patch
 * strategy with a merge key makes it a map keyed by that key, {@code merge} without a key a set,
 * anything else atomic. Objects and maps are granular unless marked atomic.
 */
public final class ListTypes {

  /** {@code atomic}: replaced whole; {@code set}: of scalars, merged by value; {@code map}: merged by {@link #keys}. */
  public record ListType(String type, List<String> keys) {
    public static final ListType ATOMIC = new ListType("atomic", List.of());
    public static final ListType SET = new ListType("set", List.of());

    public static ListType map(String... keys) {
      return new ListType("map", List.of(keys));
    }

    public boolean atomic() {
      return type.equals("atomic");
    }

    public boolean set() {
      return type.equals("set");
    }

    public boolean map() {
      return type.equals("map");
    }
  }

  /** Explicit {@code +listType} markers, by class and JSON property. */
  private static final Map<Class<?>, Map<String, ListType>> DECLARED = FieldTable.of(List.of(
      // meta/v1 ObjectMeta
      fact(ObjectMeta.class, "finalizers", ListType.SET),
      fact(ObjectMeta.class, "ownerReferences", ListType.map("uid")),
      // apps/v1 StatefulSetSpec and StatefulSetStatus
      fact(StatefulSetSpec.class, "volumeClaimTemplates", ListType.ATOMIC),
      fact(StatefulSetStatus.class, "conditions", ListType.map("type")),
      // core/v1 PodSpec
      fact(PodSpec.class, "volumes", ListType.map("name")),
      fact(PodSpec.class, "initContainers", ListType.map("name")),
      fact(PodSpec.class, "containers", ListType.map("name")),
      fact(PodSpec.class, "ephemeralContainers", ListType.map("name")),
      fact(PodSpec.class, "imagePullSecrets", ListType.map("name")),
      fact(PodSpec.class, "tolerations", ListType.ATOMIC),
      fact(PodSpec.class, "hostAliases", ListType.map("ip")),
      fact(PodSpec.class, "readinessGates", ListType.ATOMIC),
      // A constraint is known by its topology key and what to do when it is unsatisfiable.
      fact(PodSpec.class, "topologySpreadConstraints", ListType.map("topologyKey", "whenUnsatisfiable")),
      fact(PodSpec.class, "schedulingGates", ListType.map("name")),
      fact(PodSpec.class, "resourceClaims", ListType.map("name")),
      // core/v1 ResourceRequirements
      fact(ResourceRequirements.class, "claims", ListType.map("name")),
      // core/v1 ServiceSpec: a port is known by its number and protocol, as a container's is
      fact(ServiceSpec.class, "ports", ListType.map("port", "protocol")),
      fact(ServiceSpec.class, "clusterIPs", ListType.ATOMIC),
      fact(ServiceSpec.class, "externalIPs", ListType.ATOMIC),
      fact(ServiceSpec.class, "ipFamilies", ListType.ATOMIC),
      fact(ServiceSpec.class, "loadBalancerSourceRanges", ListType.ATOMIC),
      // core/v1 ServiceAccount
      fact(ServiceAccount.class, "secrets", ListType.map("name")),
      fact(ServiceAccount.class, "imagePullSecrets", ListType.ATOMIC)),
      FieldTable.ofContainers(ListTypes::containerMarkers));

  /** core/v1 Container's markers (EphemeralContainerCommon has the same). */
  private static List<Fact<ListType>> containerMarkers(Class<?> container) {
    return List.of(
        fact(container, "command", ListType.ATOMIC),
        fact(container, "args", ListType.ATOMIC),
        // A port is known by its number and protocol (53/TCP and 53/UDP), though patches merge it by number.
        fact(container, "ports", ListType.map("containerPort", "protocol")),
        fact(container, "envFrom", ListType.ATOMIC),
        fact(container, "env", ListType.map("name")),
        fact(container, "volumeMounts", ListType.map("mountPath")),
        fact(container, "volumeDevices", ListType.map("devicePath")),
        fact(container, "resizePolicy", ListType.ATOMIC));
  }

  /** {@code +structType=atomic}: written and owned as a whole. */
  private static final Set<Class<?>> ATOMIC_STRUCTS = Set.of(
      LabelSelector.class, OwnerReference.class, LocalObjectReference.class, ObjectReference.class,
      TypedLocalObjectReference.class, SecretKeySelector.class, ConfigMapKeySelector.class,
      ObjectFieldSelector.class, ResourceFieldSelector.class, NodeSelector.class, NodeSelectorTerm.class);

  /** {@code +mapType=atomic} map-valued fields. */
  private static final Map<Class<?>, Set<String>> ATOMIC_MAPS = Map.of(PodSpec.class, Set.of("nodeSelector"),
      ServiceSpec.class, Set.of("selector"));

  /**
   * Defaults of list-map key fields: an element that omits the key is known by the default, as
   * structured-merge-diff fills a key from the schema's default (upstream's OpenAPI has
   * {@code default: "TCP"} for ContainerPort.protocol).
   */
  private static final Map<Class<?>, Map<String, String>> KEY_DEFAULTS = Map.of(
      ContainerPort.class, Map.of("protocol", "TCP"), ServicePort.class, Map.of("protocol", "TCP"));

  private ListTypes() {}

  /** The explicit marker on {@code owner}'s property {@code property}; null when upstream has none. */
  public static ListType declared(Class<?> owner, String property) {
    return DECLARED.getOrDefault(owner, Map.of()).get(property);
  }

  /** The whole table of explicit markers: class, then JSON property, then list type. */
  public static Map<Class<?>, Map<String, ListType>> declared() {
    return DECLARED;
  }

  /** How apply merges the list {@code owner.property}: its marker, else what its patch strategy implies. */
  public static ListType of(Class<?> owner, String property) {
    ListType declared = declared(owner, property);
    if (declared != null) {
      return declared;
    }
    FieldPatch patch = PatchStrategies.of(owner, property);
    if (patch.merge()) {
      return patch.mergeKey() != null ? ListType.map(patch.mergeKey()) : ListType.SET;
    }
    return ListType.ATOMIC;
  }

  /** Whether values of {@code type} are {@code +structType=atomic}. */
  public static boolean atomicStruct(Class<?> type) {
    return ATOMIC_STRUCTS.contains(type);
  }

  /** Whether the map-valued {@code owner.property} is {@code +mapType=atomic}. */
  public static boolean atomicMap(Class<?> owner, String property) {
    return ATOMIC_MAPS.getOrDefault(owner, Set.of()).contains(property);
  }

  /** The default of key field {@code key} in list elements of {@code element}; null if none. */
  public static String keyDefault(Class<?> element, String key) {
    return KEY_DEFAULTS.getOrDefault(element, Map.of()).get(key);
  }
}
