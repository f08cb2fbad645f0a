package io.ordinal.kube;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventSource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodStatus;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The {@code fieldSelector} query, as the API server reads and applies it: the syntax of
 * apimachinery's {@code fields.ParseSelector}, the field labels each kind accepts (its
 * FieldLabelConversionFunc, or the default {@code metadata.name} and {@code metadata.namespace}),
 * and the values an object offers for them (the registry's GetAttrs / ToSelectableFields).
 */
public final class FieldSelectors {
  private FieldSelectors() {}

  /** One term: the field equals the value, or ({@code equal} false) differs from it. */
  public record Requirement(String field, boolean equal, String value) {
    /** A field the object does not offer reads as empty, as upstream's {@code fields.Set.Get}. */
    public boolean matches(Map<String, String> fields) {
      return equal == fields.getOrDefault(field, "").equals(value);
    }
  }

  /** All requirements must hold; none matches everything. */
  public record Selector(List<Requirement> requirements) {
    public boolean matches(Map<String, String> fields) {
      return requirements.stream().allMatch(requirement -> requirement.matches(fields));
    }

    public boolean isEmpty() {
      return requirements.isEmpty();
    }
  }

  private static final Set<String> POD_LABELS = Set.of("metadata.name", "metadata.namespace", "spec.nodeName",
      "spec.restartPolicy", "spec.schedulerName", "spec.serviceAccountName", "spec.hostNetwork", "status.phase",
      "status.podIP", "status.podIPs", "status.nominatedNodeName");
  private static final Set<String> EVENT_LABELS = Set.of("involvedObject.kind", "involvedObject.namespace",
      "involvedObject.name", "involvedObject.uid", "involvedObject.apiVersion", "involvedObject.resourceVersion",
      "involvedObject.fieldPath", "reason", "reportingComponent", "source", "type", "metadata.namespace",
      "metadata.name");

  /**
   * Parses the syntax alone: comma-separated {@code field=value}, {@code field==value} or
   * {@code field!=value} terms, in which a value escapes {@code \}, {@code ,} and {@code =} with
   * a backslash. Empty terms are skipped; the field is taken as written, spaces included.
   *
   * @throws IllegalArgumentException with upstream's message when the text is not a selector
   */
  public static Selector parse(String text) {
    List<String> terms = splitTerms(text);
    // Sorted, as upstream does: the first error reported is that of the first term in this order.
    Collections.sort(terms);
    List<Requirement> requirements = new ArrayList<>();
    for (String term : terms) {
      if (term.isEmpty()) {
        continue;
      }
      Requirement requirement = splitTerm(term);
      if (requirement == null) {
        throw new IllegalArgumentException("invalid selector: '" + text + "'; can't understand '" + term + "'");
      }
      requirements.add(requirement);
    }
    return new Selector(List.copyOf(requirements));
  }

  /**
   * Parses the selector and checks each field label against those the kind supports, as the API
   * server does before listing; {@code spec.host}, an old name, selects pods by {@code spec.nodeName}.
   *
   * @throws IllegalArgumentException for a malformed selector or an unsupported field label, with
   *     upstream's message (the API server answers 400 with it)
   */
  public static Selector parse(String text, Class<? extends HasMetadata> kind) {
    List<Requirement> converted = new ArrayList<>();
    for (Requirement requirement : parse(text).requirements()) {
      converted.add(new Requirement(convertLabel(kind, requirement.field()), requirement.equal(), requirement.value()));
    }
    return new Selector(List.copyOf(converted));
  }

  /** Whether the object's selectable fields satisfy the selector. */
  public static boolean matches(Selector selector, HasMetadata object) {
    return selector.matches(fields(object));
  }

  /** The field labels a kind can be selected by. */
  public static Set<String> supportedLabels(Class<? extends HasMetadata> kind) {
    if (kind == Pod.class) return POD_LABELS;
    if (kind == Event.class) return EVENT_LABELS;
    return Set.of("metadata.name", "metadata.namespace");
  }

  /**
   * The values an object offers to field selectors: upstream's ToSelectableFields for pods
   * (pkg/registry/core/pod/strategy.go) and events (pkg/registry/core/event/strategy.go), name and
   * namespace for the others. {@code status.podIPs} is an accepted label that no pod offers, so it
   * reads as empty, as upstream.
   */
  public static Map<String, String> fields(HasMetadata object) {
    Map<String, String> fields = new HashMap<>();
    ObjectMeta metadata = object.getMetadata() == null ? new ObjectMeta() : object.getMetadata();
    fields.put("metadata.name", text(metadata.getName()));
    fields.put("metadata.namespace", text(metadata.getNamespace()));
    if (object instanceof Pod pod) {
      PodSpec spec = pod.getSpec() == null ? new PodSpec() : pod.getSpec();
      PodStatus status = pod.getStatus() == null ? new PodStatus() : pod.getStatus();
      fields.put("spec.nodeName", text(spec.getNodeName()));
      fields.put("spec.restartPolicy", text(spec.getRestartPolicy()));
      fields.put("spec.schedulerName", text(spec.getSchedulerName()));
      // The deprecated serviceAccount stands in for an empty serviceAccountName (the v1 conversion).
      fields.put("spec.serviceAccountName", text(spec.getServiceAccountName()).isEmpty()
          ? text(spec.getServiceAccount()) : spec.getServiceAccountName());
      fields.put("spec.hostNetwork", Boolean.toString(Boolean.TRUE.equals(spec.getHostNetwork())));
      fields.put("status.phase", text(status.getPhase()));
      fields.put("status.podIP", primaryIP(status));
      fields.put("status.nominatedNodeName", text(status.getNominatedNodeName()));
    } else if (object instanceof Event event) {
      ObjectReference involved = event.getInvolvedObject() == null ? new ObjectReference() : event.getInvolvedObject();
      EventSource source = event.getSource() == null ? new EventSource() : event.getSource();
      fields.put("involvedObject.kind", text(involved.getKind()));
      fields.put("involvedObject.namespace", text(involved.getNamespace()));
      fields.put("involvedObject.name", text(involved.getName()));
      fields.put("involvedObject.uid", text(involved.getUid()));
      fields.put("involvedObject.apiVersion", text(involved.getApiVersion()));
      fields.put("involvedObject.resourceVersion", text(involved.getResourceVersion()));
      fields.put("involvedObject.fieldPath", text(involved.getFieldPath()));
      fields.put("reason", text(event.getReason()));
      fields.put("reportingComponent", text(event.getReportingComponent()));
      // An event of the events.k8s.io API names its source in reportingComponent only.
      fields.put("source", text(source.getComponent()).isEmpty() ? text(event.getReportingComponent()) : source.getComponent());
      fields.put("type", text(event.getType()));
    }
    return fields;
  }

  /**
   * The pod's primary IP as the API server's internal pod has it: {@code podIP}, or the first of
   * {@code podIPs} when only those are set (the v1 conversion of dual-stack, KEP-563).
   */
  private static String primaryIP(PodStatus status) {
    if (!text(status.getPodIP()).isEmpty()) {
      return status.getPodIP();
    }
    return status.getPodIPs() == null || status.getPodIPs().isEmpty() ? "" : text(status.getPodIPs().getFirst().getIp());
  }

  /** The kind's field label conversion (pkg/apis/core/v1/conversion.go; runtime.DefaultMetaV1FieldSelectorConversion). */
  private static String convertLabel(Class<? extends HasMetadata> kind, String label) {
    if (kind == Pod.class) {
      if (label.equals("spec.host")) {
        return "spec.nodeName";
      }
      if (!POD_LABELS.contains(label)) {
        throw new IllegalArgumentException("field label not supported: " + label);
      }
    } else if (kind == Event.class) {
      if (!EVENT_LABELS.contains(label)) {
        throw new IllegalArgumentException("field label not supported: " + label);
      }
    } else if (!label.equals("metadata.name") && !label.equals("metadata.namespace")) {
      throw new IllegalArgumentException(LabelSyntax.quote(label) + " is not a known field selector: only \"metadata.name\", \"metadata.namespace\"");
    }
    return label;
  }

  /** Splits on commas that are not escaped; the backslashes stay for the value to unescape. */
  private static List<String> splitTerms(String text) {
    List<String> terms = new ArrayList<>();
    if (text.isEmpty()) {
      return terms;
    }
    int start = 0;
    boolean escaped = false;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == ',') {
        terms.add(text.substring(start, i));
        start = i + 1;
      }
    }
    terms.add(text.substring(start));
    return terms;
  }

  /** Splits a term at its first operator; {@code !=} and {@code ==} are tried before {@code =} at each position. */
  private static Requirement splitTerm(String term) {
    for (int i = 0; i < term.length(); i++) {
      String rest = term.substring(i);
      if (rest.startsWith("!=")) {
        return new Requirement(term.substring(0, i), false, unescape(term.substring(i + 2)));
      } else if (rest.startsWith("==")) {
        return new Requirement(term.substring(0, i), true, unescape(term.substring(i + 2)));
      } else if (rest.startsWith("=")) {
        return new Requirement(term.substring(0, i), true, unescape(term.substring(i + 1)));
      }
    }
    return null;
  }

  /** Upstream's UnescapeValue: {@code \\}, {@code \,} and {@code \=} only; a bare {@code ,} or {@code =} is an error. */
  private static String unescape(String value) {
    StringBuilder out = new StringBuilder(value.length());
    boolean escaped = false;
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (escaped) {
        if (c != '\\' && c != ',' && c != '=') {
          throw new IllegalArgumentException("invalid field selector: invalid escape sequence: \\" + c);
        }
        out.append(c);
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == ',' || c == '=') {
        // Upstream formats the rune with %v, which prints its code point (61 for '=').
        throw new IllegalArgumentException("invalid field selector: unescaped character in value: " + (int) c);
      } else {
        out.append(c);
      }
    }
    if (escaped) {
      throw new IllegalArgumentException("invalid field selector: invalid escape sequence: \\");
    }
    return out.toString();
  }

  private static String text(String value) {
    return value == null ? "" : value;
  }
}
