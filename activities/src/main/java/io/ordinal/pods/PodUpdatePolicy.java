package io.ordinal.pods;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.ordinal.kube.Labels;
import io.ordinal.model.InPlaceUpdates;
import io.ordinal.store.KubeJson;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The {@code ordinal.io/pod-update-policy} annotation of a set: how a rolling update brings a pod to
 * the update revision. {@code ReCreate} (the default, upstream's only way) replaces it;
 * {@code InPlaceIfPossible} restarts its containers in the same pod (same uid, address and volumes)
 * when the two revisions' templates differ only in their containers' {@code image} and
 * {@code resources}, and replaces it otherwise; {@code InPlaceOnly} never replaces it (a change that
 * cannot be made in place is refused at admission, and a pod still at an older such revision waits
 * to be deleted by hand). OpenKruise's {@code podUpdatePolicy}; an annotation, not a field of
 * {@code updateStrategy}, so that the manifest stays a valid apps/v1 StatefulSet.
 */
public final class PodUpdatePolicy {
  public static final String ANNOTATION = "ordinal.io/pod-update-policy";
  public static final List<String> VALUES = List.of(InPlaceUpdates.RECREATE, InPlaceUpdates.IF_POSSIBLE, InPlaceUpdates.ONLY);

  private PodUpdatePolicy() {}

  /** The set's policy: ReCreate without the annotation, or with a value admission refuses. */
  public static String of(ObjectMeta meta) {
    String value = Labels.annotation(meta, ANNOTATION);
    return value != null && VALUES.contains(value) ? value : InPlaceUpdates.RECREATE;
  }

  /** Why a pod cannot be updated in place: the field of the template, by its path, and what of it. */
  public record NotInPlace(String field, String detail) {}

  /**
   * Why a pod of template {@code from} cannot be updated in place to template {@code to}: the first
   * field that differs besides a container's image and resources, or resources that would change the
   * pod's QoS class (which the API server refuses to resize); empty when it can be.
   */
  public static Optional<NotInPlace> notInPlace(PodTemplateSpec from, PodTemplateSpec to) {
    String qosBefore = qosClass(from.getSpec());
    String qosAfter = qosClass(to.getSpec());
    if (!qosBefore.equals(qosAfter)) {
      return Optional.of(new NotInPlace("spec.containers", "the resources change the pod's QoS class from "
          + qosBefore + " to " + qosAfter));
    }
    JsonNode before = KubeJson.JSON.valueToTree(from);
    JsonNode after = KubeJson.JSON.valueToTree(to);
    JsonNode beforeContainers = before.path("spec").path("containers");
    JsonNode afterContainers = after.path("spec").path("containers");
    if (beforeContainers instanceof ArrayNode containers && afterContainers.isArray()) {
      for (int i = 0; i < Math.min(containers.size(), afterContainers.size()); i++) {
        ObjectNode container = (ObjectNode) containers.get(i);
        JsonNode next = afterContainers.get(i);
        if (!container.path("name").equals(next.path("name"))) {
          continue; // another container: the difference is found below
        }
        for (String field : List.of("image", "resources")) {
          container.remove(field);
          if (next.has(field)) {
            container.set(field, next.get(field));
          }
        }
      }
    }
    Optional<NotInPlace> other = firstDifference(before, after, "")
        .map(field -> new NotInPlace(field, "differs beyond containers' images and resources"));
    if (other.isPresent()) {
      return other;
    }
    List<Container> was = from.getSpec().getContainers();
    List<Container> is = to.getSpec().getContainers();
    for (int i = 0; i < was.size(); i++) {
      Optional<String> why = notResizable(was.get(i).getResources(), is.get(i).getResources());
      if (why.isPresent()) {
        return Optional.of(new NotInPlace("spec.containers[" + i + "].resources", why.get()));
      }
    }
    return Optional.empty();
  }

  private static final List<String> RESIZABLE = List.of("cpu", "memory");

  /**
   * Why a container's resources cannot go from {@code a} to {@code b} by a resize: upstream resizes
   * only cpu and memory, and none of their requests or limits can be removed.
   */
  private static Optional<String> notResizable(ResourceRequirements a, ResourceRequirements b) {
    for (boolean limits : List.of(false, true)) {
      Map<String, Quantity> before = effective(a, limits, false);
      Map<String, Quantity> after = effective(b, limits, false);
      for (String name : union(before.keySet(), after.keySet())) {
        boolean resizable = RESIZABLE.contains(name);
        if (!resizable && !sameQuantity(before.get(name), after.get(name))) {
          return Optional.of("only cpu and memory are resized in place, not " + name);
        }
        if (resizable && before.containsKey(name) && !after.containsKey(name)) {
          return Optional.of("a " + name + (limits ? " limit" : " request") + " cannot be removed in place");
        }
      }
    }
    return Optional.empty();
  }

  /**
   * A container's requests (with {@code limits} false) or limits, requests defaulted from limits as
   * the API server defaults them; only cpu and memory with {@code resizableOnly}.
   */
  public static Map<String, Quantity> effective(ResourceRequirements resources, boolean limits, boolean resizableOnly) {
    Map<String, Quantity> out = new LinkedHashMap<>(
        resources == null || resources.getLimits() == null ? Map.of() : resources.getLimits());
    if (!limits && resources != null && resources.getRequests() != null) {
      out.putAll(resources.getRequests());
    }
    if (resizableOnly) {
      out.keySet().retainAll(RESIZABLE);
    }
    return out;
  }

  /**
   * Whether a container whose resources are {@code actual} (a cluster's pod, or what its status
   * reports) has the cpu and memory {@code wanted} asks for, requests defaulted from limits; what
   * {@code wanted} does not set (a LimitRange's defaults) is not compared.
   */
  public static boolean resourcesApplied(ResourceRequirements wanted, ResourceRequirements actual) {
    for (boolean limits : List.of(false, true)) {
      Map<String, Quantity> want = effective(wanted, limits, true);
      Map<String, Quantity> have = effective(actual, limits, true);
      for (var entry : want.entrySet()) {
        if (!sameQuantity(entry.getValue(), have.get(entry.getKey()))) {
          return false;
        }
      }
    }
    return true;
  }

  private static boolean sameQuantity(Quantity a, Quantity b) {
    return a == null || b == null ? a == b : a.getNumericalAmount().compareTo(b.getNumericalAmount()) == 0;
  }

  private static TreeSet<String> union(Set<String> a, Set<String> b) {
    TreeSet<String> all = new TreeSet<>(a);
    all.addAll(b);
    return all;
  }

  /**
   * Upstream's {@code ComputePodQOS} (pkg/apis/core/helper/qos): BestEffort without cpu or memory
   * requests and limits in any container; Guaranteed when every container limits both, and requests
   * (defaulted from limits, as the API server defaults them) equal limits; else Burstable.
   */
  static String qosClass(PodSpec spec) {
    Map<String, BigDecimal> requests = new LinkedHashMap<>();
    Map<String, BigDecimal> limits = new LinkedHashMap<>();
    boolean guaranteed = true;
    List<Container> all = new ArrayList<>(spec == null || spec.getContainers() == null ? List.of() : spec.getContainers());
    all.addAll(spec == null || spec.getInitContainers() == null ? List.of() : spec.getInitContainers());
    for (Container container : all) {
      ResourceRequirements resources = container.getResources();
      Map<String, Quantity> containerLimits = resources == null || resources.getLimits() == null ? Map.of() : resources.getLimits();
      Map<String, Quantity> containerRequests = new LinkedHashMap<>(containerLimits);
      if (resources != null && resources.getRequests() != null) {
        containerRequests.putAll(resources.getRequests());
      }
      addPositive(containerRequests, requests);
      if (!addPositive(containerLimits, limits).containsAll(List.of("cpu", "memory"))) {
        guaranteed = false;
      }
    }
    if (requests.isEmpty() && limits.isEmpty()) {
      return "BestEffort";
    }
    for (var request : requests.entrySet()) {
      BigDecimal limit = limits.get(request.getKey());
      if (limit == null || limit.compareTo(request.getValue()) != 0) {
        guaranteed = false;
      }
    }
    return guaranteed && requests.size() == limits.size() ? "Guaranteed" : "Burstable";
  }

  /** Adds the positive cpu and memory quantities to {@code sums}; returns the names it added. */
  private static List<String> addPositive(Map<String, Quantity> quantities, Map<String, BigDecimal> sums) {
    List<String> found = new ArrayList<>();
    quantities.forEach((name, quantity) -> {
      BigDecimal amount = quantity.getNumericalAmount();
      if ((name.equals("cpu") || name.equals("memory")) && amount.signum() > 0) {
        found.add(name);
        sums.merge(name, amount, BigDecimal::add);
      }
    });
    return found;
  }

  private static Optional<String> firstDifference(JsonNode a, JsonNode b, String path) {
    if (a.equals(b)) {
      return Optional.empty();
    }
    if (a.isObject() && b.isObject()) {
      TreeSet<String> fields = new TreeSet<>();
      a.fieldNames().forEachRemaining(fields::add);
      b.fieldNames().forEachRemaining(fields::add);
      for (String field : fields) {
        JsonNode x = a.get(field);
        JsonNode y = b.get(field);
        String at = path.isEmpty() ? field : path + "." + field;
        if (x == null || y == null) {
          return Optional.of(at);
        }
        Optional<String> found = firstDifference(x, y, at);
        if (found.isPresent()) {
          return found;
        }
      }
    }
    if (a.isArray() && b.isArray() && a.size() == b.size()) {
      for (int i = 0; i < a.size(); i++) {
        Optional<String> found = firstDifference(a.get(i), b.get(i), path + "[" + i + "]");
        if (found.isPresent()) {
          return found;
        }
      }
    }
    return Optional.of(path);
  }

  /**
   * {@code pod} updated in place to {@code template} at {@code revision}: each container's image and
   * resources the template's, and the revision label; everything else as it is.
   */
  public static Pod updated(Pod pod, PodTemplateSpec template, String revision) {
    Pod updated = KubeJson.copy(pod, Pod.class);
    Map<String, Container> byName = new LinkedHashMap<>();
    template.getSpec().getContainers().forEach(c -> byName.put(c.getName(), c));
    for (Container container : updated.getSpec().getContainers()) {
      Container next = byName.get(container.getName());
      if (next != null) {
        container.setImage(next.getImage());
        container.setResources(next.getResources() == null ? null : KubeJson.copy(next.getResources(),
            ResourceRequirements.class));
      }
    }
    Map<String, String> labels = new LinkedHashMap<>(Labels.labels(updated.getMetadata()));
    labels.put(Labels.REVISION_HASH, revision);
    updated.getMetadata().setLabels(labels);
    return updated;
  }

  /** What is wrong with a value, for {@code metadata.annotations[ordinal.io/pod-update-policy]}; null if valid. */
  public static String problem(String value) {
    return VALUES.contains(value) ? null : "must be one of " + String.join(", ", VALUES);
  }
}
