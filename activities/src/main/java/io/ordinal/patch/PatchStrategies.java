package io.ordinal.patch;

import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.introspect.BeanPropertyDefinition;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimStatus;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.ServiceSpec;
import io.fabric8.kubernetes.api.model.apps.StatefulSetStatus;
import io.ordinal.patch.FieldTable.Fact;
import io.ordinal.store.KubeJson;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Strategic-merge-patch metadata of the types a StatefulSet, a Pod and a Scale contain: upstream's
 * {@code patchStrategy} and {@code patchMergeKey} struct tags, keyed by fabric8 class and JSON
 * property name, and the walk from a property to the type of its value.
 *
 * <p>Only fields that carry a tag are listed; every other list is atomic (replaced whole by a
 * patch) and every other object is merged key by key. Sources, all in kubernetes/kubernetes:
 * {@code staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/types.go} (ObjectMeta),
 * {@code staging/src/k8s.io/api/core/v1/types.go} (PodSpec, Container, EphemeralContainerCommon,
 * PodStatus, ContainerStatus, PersistentVolumeClaimStatus) and
 * {@code staging/src/k8s.io/api/apps/v1/types.go} (StatefulSetStatus). Scale has no tagged field.
 * The same table is meant to produce {@code x-kubernetes-patch-strategy} and
 * {@code x-kubernetes-patch-merge-key} in a generated OpenAPI document.
 */
public final class PatchStrategies {

  /**
   * One field's tags. {@code patchStrategy} is upstream's comma-separated tag value ("merge",
   * "merge,retainKeys", "retainKeys", "replace"), {@code mergeKey} the element property that
   * identifies a list element; either is null when the tag is absent.
   */
  public record FieldPatch(String patchStrategy, String mergeKey) {
    /** A field without tags. */
    public static final FieldPatch NONE = new FieldPatch(null, null);

    /** Lists merge element by element (by {@link #mergeKey}, or as a set of primitives). */
    public boolean merge() {
      return has("merge");
    }

    /** The value is replaced whole even where it is an object. */
    public boolean replace() {
      return has("replace");
    }

    /** Clients send {@code $retainKeys} for it (a union: setting one member clears the others). */
    public boolean retainKeys() {
      return has("retainKeys");
    }

    private boolean has(String strategy) {
      return patchStrategy != null && Arrays.asList(patchStrategy.split(",")).contains(strategy);
    }
  }

  private static final Map<Class<?>, Map<String, FieldPatch>> TABLE = FieldTable.of(List.of(
      // meta/v1 ObjectMeta
      tag(ObjectMeta.class, "finalizers", "merge", null),
      tag(ObjectMeta.class, "ownerReferences", "merge", "uid"),
      // core/v1 PodSpec
      tag(PodSpec.class, "volumes", "merge,retainKeys", "name"),
      tag(PodSpec.class, "initContainers", "merge", "name"),
      tag(PodSpec.class, "containers", "merge", "name"),
      tag(PodSpec.class, "ephemeralContainers", "merge", "name"),
      tag(PodSpec.class, "imagePullSecrets", "merge", "name"),
      tag(PodSpec.class, "hostAliases", "merge", "ip"),
      tag(PodSpec.class, "topologySpreadConstraints", "merge", "topologyKey"),
      tag(PodSpec.class, "schedulingGates", "merge", "name"),
      tag(PodSpec.class, "resourceClaims", "merge,retainKeys", "name"),
      // core/v1 PodStatus and ContainerStatus
      tag(PodStatus.class, "conditions", "merge", "type"),
      tag(PodStatus.class, "hostIPs", "merge", "ip"),
      tag(PodStatus.class, "podIPs", "merge", "ip"),
      tag(PodStatus.class, "resourceClaimStatuses", "merge,retainKeys", "name"),
      tag(ContainerStatus.class, "allocatedResourcesStatus", "merge", "name"),
      // core/v1 PersistentVolumeClaimStatus (of spec.volumeClaimTemplates, itself atomic)
      tag(PersistentVolumeClaimStatus.class, "conditions", "merge", "type"),
      // apps/v1 StatefulSetStatus
      tag(StatefulSetStatus.class, "conditions", "merge", "type"),
      // core/v1 ServiceSpec and ServiceAccount
      tag(ServiceSpec.class, "ports", "merge", "port"),
      tag(ServiceAccount.class, "secrets", "merge", "name")),
      FieldTable.ofContainers(PatchStrategies::containerTags));

  /** core/v1 Container's tags (EphemeralContainerCommon keeps the same fields and tags). */
  private static List<Fact<FieldPatch>> containerTags(Class<?> container) {
    return List.of(
        tag(container, "ports", "merge", "containerPort"),
        tag(container, "env", "merge", "name"),
        tag(container, "volumeMounts", "merge", "mountPath"),
        tag(container, "volumeDevices", "merge", "devicePath"));
  }

  /** Property name to value type, per bean type; fabric8 classes do not change at run time. */
  private static final Map<JavaType, Map<String, JavaType>> PROPERTIES = new ConcurrentHashMap<>();

  private PatchStrategies() {}

  /** The tags of {@code owner}'s JSON property {@code property}; {@link FieldPatch#NONE} if none. */
  public static FieldPatch of(Class<?> owner, String property) {
    return TABLE.getOrDefault(owner, Map.of()).getOrDefault(property, FieldPatch.NONE);
  }

  /** The whole table: class, then JSON property name, then tags. */
  public static Map<Class<?>, Map<String, FieldPatch>> table() {
    return TABLE;
  }

  /**
   * The class a property's values have: the element class of a list, the value class of a map,
   * otherwise the property's own class; null if {@code owner} has no such property.
   */
  public static Class<?> childClass(Class<?> owner, String property) {
    JavaType type = propertyType(KubeJson.JSON.constructType(owner), property);
    if (type != null && (type.isCollectionLikeType() || type.isArrayType() || type.isMapLikeType())) {
      type = type.getContentType();
    }
    return type == null ? null : type.getRawClass();
  }

  /**
   * The type of {@code property} inside a value of type {@code owner}: a bean's property type, or
   * a map's value type whatever the key (as upstream's lookup does for Go maps); null when the
   * owner is unknown or is neither a bean nor a map, so nothing below it has tags.
   */
  public static JavaType propertyType(JavaType owner, String property) {
    if (owner == null) {
      return null;
    }
    if (owner.isMapLikeType()) {
      return owner.getContentType();
    }
    return isBean(owner) ? properties(owner).get(property) : null;
  }

  /** The element type of a list-valued property, or null if unknown. */
  public static JavaType elementType(JavaType owner, String property) {
    JavaType type = propertyType(owner, property);
    return type != null && (type.isCollectionLikeType() || type.isArrayType())
        ? type.getContentType() : null;
  }

  /** Whether a type has tagged properties to look up (a model class, not a map, list or scalar). */
  static boolean isBean(JavaType type) {
    Class<?> raw = type.getRawClass();
    return !type.isContainerType() && !type.isPrimitive() && !type.isEnumType()
        && !JsonNode.class.isAssignableFrom(raw) && !raw.getName().startsWith("java.");
  }

  private static Map<String, JavaType> properties(JavaType bean) {
    return PROPERTIES.computeIfAbsent(bean, type -> {
      BeanDescription description = KubeJson.JSON.getSerializationConfig().introspect(type);
      Map<String, JavaType> byName = new LinkedHashMap<>();
      for (BeanPropertyDefinition property : description.findProperties()) {
        byName.put(property.getName(), property.getPrimaryType());
      }
      return Map.copyOf(byName);
    });
  }

  private static Fact<FieldPatch> tag(Class<?> owner, String property, String strategy, String mergeKey) {
    return FieldTable.fact(owner, property, new FieldPatch(strategy, mergeKey));
  }
}
