package io.ordinal.api.table;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerState;
import io.fabric8.kubernetes.api.model.ContainerStateTerminated;
import io.fabric8.kubernetes.api.model.ContainerStateWaiting;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventSource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.MicroTime;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimSpec;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodReadinessGate;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.ServiceSpec;
import io.fabric8.kubernetes.api.model.apps.ControllerRevision;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointPort;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.rbac.RoleRef;
import io.fabric8.kubernetes.api.model.rbac.Subject;
import io.ordinal.api.table.Table.Column;
import io.ordinal.api.table.Table.RowCondition;
import io.ordinal.store.PodStore;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.BiFunction;

/**
 * Columns and cells per kind, as upstream's printers (pkg/printers/internalversion/printers.go:
 * AddHandlers, printPod, printStatefulSet, printPersistentVolumeClaim, printEvent,
 * printControllerRevision). The API server always prints the wide form (priority-1 columns too).
 * A field the object leaves out reads as Go's zero value ("" or 0), since upstream prints typed structs.
 */
final class Printers {
  private Printers() {}

  /** The cells of one object, and the row conditions upstream attaches (finished pods only). */
  record Printed(List<Object> cells, List<RowCondition> conditions) {
    Printed(Object... cells) {
      this(List.of(cells), null);
    }
  }

  record Printer<T extends HasMetadata>(List<Column> columns, BiFunction<T, Instant, Printed> print) {}

  // Descriptions are the API's field docs (SwaggerDoc), as upstream fills them in.
  private static final String NAME_DOC = "Name must be unique within a namespace. Is required when creating resources,"
      + " although some resources may allow a client to request the generation of an appropriate name automatically."
      + " Name is primarily intended for creation idempotence and configuration definition. Cannot be updated."
      + " More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names";
  private static final String CREATED_DOC = "CreationTimestamp is a timestamp representing the server time when this"
      + " object was created. It is not guaranteed to be set in happens-before order across separate operations."
      + " Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system."
      + " Read-only. Null for lists. More info:"
      + " https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";
  private static final Column NAME = new Column("Name", "string", "name", NAME_DOC, 0);
  private static final Column AGE = column("Age", CREATED_DOC);
  private static final Column CONTAINERS = wide("Containers", "Names of each container in the template.");
  private static final Column IMAGES = wide("Images", "Images referenced by each container in the template.");

  static final Printer<StatefulSet> STATEFUL_SETS = new Printer<>(List.of(
      NAME, column("Ready", "Number of the pod with ready state"), AGE, CONTAINERS, IMAGES),
      Printers::statefulSet);

  static final Printer<Pod> PODS = new Printer<>(List.of(
      NAME,
      column("Ready", "The aggregate readiness state of this pod for accepting traffic."),
      column("Status", "The aggregate status of the containers in this pod."),
      column("Restarts", "The number of times the containers in this pod have been restarted and when the last"
          + " container in this pod has restarted."),
      AGE,
      wide("IP", "podIP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated."),
      wide("Node", "NodeName is a request to schedule this pod onto a specific node. If it is non-empty, the scheduler"
          + " simply schedules this pod onto that node, assuming that it fits resource requirements."),
      wide("Nominated Node", "nominatedNodeName is set only when this pod preempts other pods on the node, but it"
          + " cannot be scheduled right away as preemption victims receive their graceful termination periods. This"
          + " field does not guarantee that the pod will be scheduled on this node. Scheduler may decide to place the"
          + " pod elsewhere if other nodes become available sooner. Scheduler may also decide to give the resources on"
          + " this node to a higher priority pod that is created after preemption. As a result, this field may be"
          + " different than PodSpec.nodeName when the pod is scheduled."),
      wide("Readiness Gates", "If specified, all readiness gates will be evaluated for pod readiness. A pod is ready"
          + " when all its containers are ready AND all conditions specified in the readiness gates have status equal"
          + " to \"True\" More info: https://git.k8s.io/enhancements/keps/sig-network/580-pod-readiness-gates")),
      Printers::pod);

  static final Printer<PersistentVolumeClaim> CLAIMS = new Printer<>(List.of(
      NAME,
      column("Status", "phase represents the current phase of PersistentVolumeClaim."),
      column("Volume", "volumeName is the binding reference to the PersistentVolume backing this claim."),
      column("Capacity", "capacity represents the actual resources of the underlying volume."),
      column("Access Modes", "accessModes contains the actual access modes the volume backing the PVC has."
          + " More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#access-modes-1"),
      column("StorageClass", "StorageClass of the pvc"),
      column("VolumeAttributesClass", "VolumeAttributesClass of the pvc"),
      AGE,
      wide("VolumeMode", "volumeMode defines what type of volume is required by the claim. Value of Filesystem is"
          + " implied when not included in claim spec.")),
      Printers::claim);

  static final Printer<Event> EVENTS = new Printer<>(List.of(
      column("Last Seen", "The time at which the most recent occurrence of this event was recorded."),
      column("Type", "Type of this event (Normal, Warning), new types could be added in the future"),
      column("Reason", "This should be a short, machine understandable string that gives the reason for the"
          + " transition into the object's current status."),
      column("Object", "The object that this event is about."),
      wide("Subobject", "If referring to a piece of an object instead of an entire object, this string should"
          + " contain a valid JSON/Go field access statement, such as desiredState.manifest.containers[2]. For example,"
          + " if the object reference is to a container within a pod, this would take on a value like:"
          + " \"spec.containers{name}\" (where \"name\" refers to the name of the container that triggered the event)"
          + " or if no container name is specified \"spec.containers[2]\" (container with index 2 in this pod). This"
          + " syntax is chosen only to have some well-defined way of referencing a part of an object."),
      wide("Source", "The component reporting this event. Should be a short machine understandable string."),
      column("Message", "A human-readable description of the status of this operation."),
      wide("First Seen", "The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)"),
      wide("Count", "The number of times this event has occurred."),
      new Column("Name", "string", "name", NAME_DOC, 1)),
      Printers::event);

  static final Printer<ControllerRevision> REVISIONS = new Printer<>(List.of(
      NAME,
      column("Controller", "Controller of the object"),
      column("Revision", "Revision indicates the revision of the state represented by Data."),
      AGE),
      Printers::revision);

  static final Printer<ConfigMap> CONFIG_MAPS = new Printer<>(List.of(
      NAME, column("Data", "Data contains the configuration data. Each key must consist of alphanumeric characters,"
          + " '-', '_' or '.'. Values with non-UTF-8 byte sequences must use the BinaryData field. The keys stored in"
          + " Data must not overlap with the keys in the BinaryData field, this is enforced during validation process."),
      AGE),
      (map, now) -> new Printed(name(map), (long) (size(map.getData()) + size(map.getBinaryData())), age(map, now)));

  static final Printer<Secret> SECRETS = new Printer<>(List.of(
      NAME, column("Type", "Used to facilitate programmatic handling of secret data. More info:"
          + " https://kubernetes.io/docs/concepts/configuration/secret/#secret-types"),
      column("Data", "Data contains the secret data. Each key must consist of alphanumeric characters, '-', '_' or"
          + " '.'. The serialized form of the secret data is a base64 encoded string, representing the arbitrary"
          + " (possibly non-string) data value here. Described in https://tools.ietf.org/html/rfc4648#section-4"),
      AGE),
      (secret, now) -> new Printed(name(secret), text(secret.getType()), (long) size(secret.getData()), age(secret, now)));

  static final Printer<ServiceAccount> SERVICE_ACCOUNTS = new Printer<>(List.of(
      NAME, column("Secrets", "Secrets is a list of the secrets in the same namespace that pods running using this"
          + " ServiceAccount are allowed to use."),
      AGE),
      (account, now) -> new Printed(name(account), (long) (account.getSecrets() == null ? 0 : account.getSecrets().size()),
          age(account, now)));

  static final Printer<Service> SERVICES = new Printer<>(List.of(
      NAME, column("Type", "type determines how the Service is exposed."),
      column("Cluster-IP", "clusterIP is the IP address of the service and is usually assigned randomly."),
      column("External-IP", "externalIPs is a list of IP addresses for which nodes in the cluster will also accept"
          + " traffic for this service."),
      column("Port(s)", "The list of ports that are exposed by this service."),
      AGE,
      wide("Selector", "Route service traffic to pods with label keys and values matching this selector.")),
      Printers::service);

  static final Printer<EndpointSlice> ENDPOINT_SLICES = new Printer<>(List.of(
      NAME,
      column("AddressType", "addressType specifies the type of address carried by this EndpointSlice. All addresses in"
          + " this slice must be the same type. This field is immutable after creation. The following address types are"
          + " currently supported: * IPv4: Represents an IPv4 Address. * IPv6: Represents an IPv6 Address. * FQDN:"
          + " Represents a Fully Qualified Domain Name."),
      column("Ports", "ports specifies the list of network ports exposed by each endpoint in this slice. Each port must"
          + " have a unique name. When ports is empty, it indicates that there are no defined ports. When a port is"
          + " defined with a nil port value, it indicates \"all ports\". Each slice may include a maximum of 100 ports."),
      column("Endpoints", "endpoints is a list of unique endpoints in this slice. Each slice may include a maximum of"
          + " 1000 endpoints."),
      AGE),
      Printers::endpointSlice);

  /** Upstream's default table convertor (rest.DefaultTableConvertor): kinds without a printer, such as roles. */
  static final Printer<HasMetadata> DEFAULT = new Printer<>(List.of(
      NAME,
      new Column("Created At", "date", "", CREATED_DOC, 0)),
      Printers::role);

  static final Printer<Namespace> NAMESPACES = new Printer<>(List.of(
      NAME, column("Status", "The status of the namespace"), AGE),
      (namespace, now) -> new Printed(name(namespace),
          namespace.getStatus() == null ? "" : text(namespace.getStatus().getPhase()), age(namespace, now)));

  static final Printer<HasMetadata> ROLE_BINDINGS = new Printer<>(List.of(
      NAME,
      column("Role", "RoleRef can reference a Role in the current namespace or a ClusterRole in the global namespace."
          + " If the RoleRef cannot be resolved, the Authorizer must return an error. This field is immutable."),
      AGE,
      wide("Users", "Users in the roleBinding"),
      wide("Groups", "Groups in the roleBinding"),
      wide("ServiceAccounts", "ServiceAccounts in the roleBinding")),
      Printers::roleBinding);

  /** Roles and ClusterRoles: name and creation time (RFC 3339, UTC), as upstream's printRole. */
  static Printed role(HasMetadata role, Instant now) {
    String created = role.getMetadata().getCreationTimestamp();
    return new Printed(name(role), created == null ? "" : created);
  }

  /** RoleBindings and ClusterRoleBindings: Kind/name of the role, and the subjects by kind. */
  static Printed roleBinding(HasMetadata binding, Instant now) {
    RoleRef ref;
    List<Subject> subjects;
    if (binding instanceof RoleBinding b) {
      ref = b.getRoleRef();
      subjects = list(b.getSubjects());
    } else {
      var b = (ClusterRoleBinding) binding;
      ref = b.getRoleRef();
      subjects = list(b.getSubjects());
    }
    List<String> users = new ArrayList<>();
    List<String> groups = new ArrayList<>();
    List<String> accounts = new ArrayList<>();
    for (var subject : subjects) {
      switch (text(subject.getKind())) {
        case "User" -> users.add(text(subject.getName()));
        case "Group" -> groups.add(text(subject.getName()));
        case "ServiceAccount" -> accounts.add(text(subject.getNamespace()) + ":" + text(subject.getName()));
        default -> { }
      }
    }
    return new Printed(name(binding), ref == null ? "/" : text(ref.getKind()) + "/" + text(ref.getName()),
        age(binding, now), String.join(", ", users), String.join(", ", groups), String.join(", ", accounts));
  }

  private static Column column(String name, String description) {
    return new Column(name, "string", "", description, 0);
  }

  private static Column wide(String name, String description) {
    return new Column(name, "string", "", description, 1);
  }

  static Printed statefulSet(StatefulSet set, Instant now) {
    var spec = set.getSpec();
    // The API server defaults spec.replicas to 1, so a stored set without it has one replica.
    int desired = spec == null || spec.getReplicas() == null ? 1 : spec.getReplicas();
    int ready = set.getStatus() == null ? 0 : zero(set.getStatus().getReadyReplicas());
    List<Container> containers = spec == null || spec.getTemplate() == null || spec.getTemplate().getSpec() == null
        ? List.of() : list(spec.getTemplate().getSpec().getContainers());
    return new Printed(name(set), ready + "/" + desired, age(set, now),
        join(containers.stream().map(c -> text(c.getName())).toList()),
        join(containers.stream().map(c -> text(c.getImage())).toList()));
  }

  /** The STATUS and RESTARTS columns follow the kubelet's view: init containers first, then the containers, last to first. */
  static Printed pod(Pod pod, Instant now) {
    PodSpec spec = pod.getSpec() == null ? new PodSpec() : pod.getSpec();
    PodStatus status = pod.getStatus() == null ? new PodStatus() : pod.getStatus();
    int restarts = 0;
    int restartableInitRestarts = 0;
    int totalContainers = list(spec.getContainers()).size();
    int readyContainers = 0;
    Instant lastRestart = null;
    Instant lastRestartableInitRestart = null;

    String phase = text(status.getPhase());
    String reason = text(status.getReason()).isEmpty() ? phase : status.getReason();
    for (PodCondition condition : list(status.getConditions())) {
      if ("PodScheduled".equals(condition.getType()) && "SchedulingGated".equals(condition.getReason())) {
        reason = "SchedulingGated";
      }
    }

    List<RowCondition> conditions = switch (phase) {
      case "Succeeded" -> List.of(new RowCondition("Completed", "True", "Succeeded", "The pod has completed successfully."));
      case "Failed" -> List.of(new RowCondition("Completed", "True", "Failed", "The pod failed."));
      default -> null;
    };

    // Sidecars (init containers that restart Always) count as containers of the pod.
    Map<String, Container> initContainers = new HashMap<>();
    for (Container container : list(spec.getInitContainers())) {
      initContainers.put(container.getName(), container);
      if (restartable(container)) {
        totalContainers++;
      }
    }

    boolean initializing = false;
    List<ContainerStatus> initStatuses = list(status.getInitContainerStatuses());
    for (int i = 0; i < initStatuses.size(); i++) {
      ContainerStatus container = initStatuses.get(i);
      restarts += zero(container.getRestartCount());
      lastRestart = later(lastRestart, lastFinished(container));
      boolean sidecar = restartable(initContainers.get(container.getName()));
      if (sidecar) {
        restartableInitRestarts += zero(container.getRestartCount());
        lastRestartableInitRestart = later(lastRestartableInitRestart, lastFinished(container));
      }
      ContainerStateTerminated terminated = state(container).getTerminated();
      ContainerStateWaiting waiting = state(container).getWaiting();
      if (terminated != null && zero(terminated.getExitCode()) == 0) {
        continue;
      } else if (sidecar && Boolean.TRUE.equals(container.getStarted())) {
        if (Boolean.TRUE.equals(container.getReady())) {
          readyContainers++;
        }
        continue;
      } else if (terminated != null) {
        // Initialization failed.
        if (text(terminated.getReason()).isEmpty()) {
          reason = zero(terminated.getSignal()) != 0 ? "Init:Signal:" + terminated.getSignal()
              : "Init:ExitCode:" + zero(terminated.getExitCode());
        } else {
          reason = "Init:" + terminated.getReason();
        }
      } else if (waiting != null && !text(waiting.getReason()).isEmpty() && !waiting.getReason().equals("PodInitializing")) {
        reason = "Init:" + waiting.getReason();
      } else {
        reason = "Init:" + i + "/" + list(spec.getInitContainers()).size();
      }
      initializing = true;
      break;
    }

    if (!initializing || initialized(status)) {
      restarts = restartableInitRestarts;
      lastRestart = lastRestartableInitRestart;
      boolean hasRunning = false;
      List<ContainerStatus> statuses = list(status.getContainerStatuses());
      for (int i = statuses.size() - 1; i >= 0; i--) {
        ContainerStatus container = statuses.get(i);
        restarts += zero(container.getRestartCount());
        lastRestart = later(lastRestart, lastFinished(container));
        ContainerState state = state(container);
        if (state.getWaiting() != null && !text(state.getWaiting().getReason()).isEmpty()) {
          reason = state.getWaiting().getReason();
        } else if (state.getTerminated() != null && !text(state.getTerminated().getReason()).isEmpty()) {
          reason = state.getTerminated().getReason();
        } else if (state.getTerminated() != null) {
          reason = zero(state.getTerminated().getSignal()) != 0 ? "Signal:" + state.getTerminated().getSignal()
              : "ExitCode:" + zero(state.getTerminated().getExitCode());
        } else if (Boolean.TRUE.equals(container.getReady()) && state.getRunning() != null) {
          hasRunning = true;
          readyContainers++;
        }
      }
      // A pod whose last container completed while another still runs is running (or not ready), not completed.
      if (reason.equals("Completed") && hasRunning) {
        reason = ready(status) ? "Running" : "NotReady";
      }
    }

    boolean deleting = pod.getMetadata() != null && pod.getMetadata().getDeletionTimestamp() != null;
    if (deleting && "NodeLost".equals(status.getReason())) {
      reason = "Unknown";
    } else if (deleting && !phase.equals("Succeeded") && !phase.equals("Failed")) {
      reason = "Terminating";
    }

    String restartsCell = Integer.toString(restarts);
    if (restarts != 0 && lastRestart != null) {
      restartsCell = restarts + " (" + HumanDuration.since(lastRestart, now) + " ago)";
    }

    String readinessGates = "<none>";
    List<PodReadinessGate> gates = list(spec.getReadinessGates());
    if (!gates.isEmpty()) {
      int trueConditions = 0;
      for (PodReadinessGate gate : gates) {
        for (PodCondition condition : list(status.getConditions())) {
          if (condition.getType() != null && condition.getType().equals(gate.getConditionType())) {
            if ("True".equals(condition.getStatus())) {
              trueConditions++;
            }
            break;
          }
        }
      }
      readinessGates = trueConditions + "/" + gates.size();
    }

    List<Object> cells = List.of(name(pod), readyContainers + "/" + totalContainers, reason, restartsCell, age(pod, now),
        orNone(primaryIP(status)), orNone(spec.getNodeName()), orNone(status.getNominatedNodeName()), readinessGates);
    return new Printed(cells, conditions);
  }

  /**
   * The pod's primary IP, as the API server's internal pod has it: the v1 {@code podIP} when set,
   * else the first of {@code podIPs} (the v1-to-internal conversion of KEP-563 dual-stack).
   */
  static String primaryIP(PodStatus status) {
    if (!text(status.getPodIP()).isEmpty()) {
      return status.getPodIP();
    }
    return list(status.getPodIPs()).isEmpty() ? "" : text(status.getPodIPs().getFirst().getIp());
  }

  static Printed claim(PersistentVolumeClaim claim, Instant now) {
    PersistentVolumeClaimSpec spec = claim.getSpec() == null ? new PersistentVolumeClaimSpec() : claim.getSpec();
    PersistentVolumeClaimStatus status = claim.getStatus() == null ? new PersistentVolumeClaimStatus() : claim.getStatus();
    String phase = claim.getMetadata() != null && claim.getMetadata().getDeletionTimestamp() != null
        ? "Terminating" : text(status.getPhase());
    // Capacity and access modes are the bound volume's, so they stay empty until the claim is bound.
    String capacity = "";
    String accessModes = "";
    if (!text(spec.getVolumeName()).isEmpty()) {
      accessModes = accessModes(list(status.getAccessModes()));
      Quantity storage = status.getCapacity() == null ? null : status.getCapacity().get("storage");
      capacity = storage == null ? "0" : text(storage.getAmount()) + text(storage.getFormat());
    }
    return new Printed(name(claim), phase, text(spec.getVolumeName()), capacity, accessModes, storageClass(claim),
        spec.getVolumeAttributesClassName() == null ? "<unset>" : spec.getVolumeAttributesClassName(),
        age(claim, now), spec.getVolumeMode() == null ? "<unset>" : spec.getVolumeMode());
  }

  /** Upstream's GetAccessModesAsString: each mode once, always in the order RWO, ROX, RWX, RWOP. */
  static String accessModes(List<String> modes) {
    List<String> shown = new ArrayList<>();
    if (modes.contains("ReadWriteOnce")) shown.add("RWO");
    if (modes.contains("ReadOnlyMany")) shown.add("ROX");
    if (modes.contains("ReadWriteMany")) shown.add("RWX");
    if (modes.contains("ReadWriteOncePod")) shown.add("RWOP");
    return String.join(",", shown);
  }

  /** The deprecated beta annotation wins over spec.storageClassName, as in upstream's GetPersistentVolumeClaimClass. */
  private static String storageClass(PersistentVolumeClaim claim) {
    Map<String, String> annotations = claim.getMetadata() == null ? null : claim.getMetadata().getAnnotations();
    if (annotations != null && annotations.containsKey("volume.beta.kubernetes.io/storage-class")) {
      return annotations.get("volume.beta.kubernetes.io/storage-class");
    }
    return claim.getSpec() == null ? "" : text(claim.getSpec().getStorageClassName());
  }

  static Printed event(Event event, Instant now) {
    String firstSeen = parse(event.getFirstTimestamp()) != null ? HumanDuration.since(parse(event.getFirstTimestamp()), now)
        : HumanDuration.since(micro(event.getEventTime()), now);
    String lastSeen = parse(event.getLastTimestamp()) != null ? HumanDuration.since(parse(event.getLastTimestamp()), now)
        : firstSeen;
    long count = zero(event.getCount());
    if (event.getSeries() != null) {
      lastSeen = HumanDuration.since(micro(event.getSeries().getLastObservedTime()), now);
      count = zero(event.getSeries().getCount());
    } else if (count == 0) {
      // Events of the events.k8s.io API that happened once carry no count.
      count = 1;
    }
    ObjectReference involved = event.getInvolvedObject() == null ? new ObjectReference() : event.getInvolvedObject();
    String kind = text(involved.getKind()).toLowerCase(Locale.ROOT);
    String target = text(involved.getName()).isEmpty() ? kind : kind + "/" + involved.getName();
    EventSource source = event.getSource() == null ? new EventSource() : event.getSource();
    String component = firstNonEmpty(source.getComponent(), event.getReportingComponent());
    String instance = firstNonEmpty(source.getHost(), event.getReportingInstance());
    return new Printed(lastSeen, text(event.getType()), text(event.getReason()), target, text(involved.getFieldPath()),
        instance.isEmpty() ? component : component + ", " + instance, text(event.getMessage()).strip(), firstSeen,
        count, name(event));
  }

  static Printed revision(ControllerRevision revision, Instant now) {
    String controller = "<none>";
    OwnerReference owner = controllerOf(revision.getMetadata());
    if (owner != null) {
      String group = group(text(owner.getApiVersion()));
      String kind = text(owner.getKind());
      if (!group.isEmpty() || !kind.isEmpty()) {
        String groupKind = group.isEmpty() ? kind : kind + "." + group;
        controller = groupKind.toLowerCase(Locale.ROOT) + "/" + text(owner.getName());
      } else {
        controller = text(owner.getName());
      }
    }
    return new Printed(name(revision), controller, revision.getRevision() == null ? 0L : revision.getRevision(),
        age(revision, now));
  }

  /** The owner reference marked as the controller (metav1.GetControllerOf). */
  private static OwnerReference controllerOf(ObjectMeta metadata) {
    return metadata == null ? null : PodStore.controllerOf(metadata.getOwnerReferences()).orElse(null);
  }

  /** The group of an apiVersion, as schema.ParseGroupVersion splits it ("v1" is the core group). */
  private static String group(String apiVersion) {
    if (apiVersion.isEmpty() || apiVersion.equals("/")) {
      return "";
    }
    int slash = apiVersion.indexOf('/');
    if (slash < 0) {
      return "";
    }
    if (apiVersion.indexOf('/', slash + 1) >= 0) {
      throw new IllegalArgumentException("unexpected GroupVersion string: " + apiVersion);
    }
    return apiVersion.substring(0, slash);
  }

  private static boolean restartable(Container initContainer) {
    return initContainer != null && "Always".equals(initContainer.getRestartPolicy());
  }

  /** isPodInitializedConditionTrue: the first Initialized condition decides. */
  private static boolean initialized(PodStatus status) {
    for (PodCondition condition : list(status.getConditions())) {
      if ("Initialized".equals(condition.getType())) {
        return "True".equals(condition.getStatus());
      }
    }
    return false;
  }

  /** hasPodReadyCondition: any Ready condition that is True. */
  private static boolean ready(PodStatus status) {
    return list(status.getConditions()).stream()
        .anyMatch(condition -> "Ready".equals(condition.getType()) && "True".equals(condition.getStatus()));
  }

  private static ContainerState state(ContainerStatus container) {
    return container.getState() == null ? new ContainerState() : container.getState();
  }

  private static Instant lastFinished(ContainerStatus container) {
    var last = container.getLastState();
    return last == null || last.getTerminated() == null ? null : parse(last.getTerminated().getFinishedAt());
  }

  /** The later of two times, null being Go's zero time. */
  private static Instant later(Instant current, Instant candidate) {
    return candidate != null && (current == null || current.isBefore(candidate)) ? candidate : current;
  }

  static String age(HasMetadata object, Instant now) {
    return HumanDuration.since(object.getMetadata() == null ? null : parse(object.getMetadata().getCreationTimestamp()), now);
  }

  /** Upstream's printService: the first ClusterIP, external addresses by type, port/protocol pairs, the selector. */
  static Printed service(Service service, Instant now) {
    ServiceSpec spec = service.getSpec() == null ? new ServiceSpec() : service.getSpec();
    List<String> clusterIps = spec.getClusterIPs() == null ? List.of() : spec.getClusterIPs();
    List<String> external = spec.getExternalIPs() == null ? List.of() : spec.getExternalIPs();
    String externalIp = switch (text(spec.getType())) {
      case "ExternalName" -> text(spec.getExternalName());
      case "LoadBalancer" -> external.isEmpty() ? "<pending>" : String.join(",", external);
      default -> external.isEmpty() ? "<none>" : String.join(",", external);
    };
    String ports = String.join(",", (spec.getPorts() == null ? List.<ServicePort>of() : spec.getPorts()).stream()
        .map(p -> (p.getNodePort() != null && p.getNodePort() > 0 ? p.getPort() + ":" + p.getNodePort() : "" + p.getPort())
            + "/" + text(p.getProtocol()))
        .toList());
    String selector = spec.getSelector() == null || spec.getSelector().isEmpty() ? "<none>"
        : String.join(",", new TreeMap<>(spec.getSelector()).entrySet().stream()
            .map(e -> e.getKey() + "=" + e.getValue()).toList());
    return new Printed(name(service), text(spec.getType()), clusterIps.isEmpty() ? "<none>" : clusterIps.getFirst(),
        externalIp, ports.isEmpty() ? "<none>" : ports, age(service, now), selector);
  }

  private static int size(Map<?, ?> map) {
    return map == null ? 0 : map.size();
  }

  /** Upstream's printEndpointSlice: the first three ports and addresses, and how many more there are. */
  static Printed endpointSlice(EndpointSlice slice, Instant now) {
    List<String> ports = list(slice.getPorts()).stream()
        .map((EndpointPort p) -> p.getPort() != null ? p.getPort().toString() : p.getName() != null ? p.getName() : "*")
        .toList();
    List<String> addresses = list(slice.getEndpoints()).stream()
        .flatMap((Endpoint e) -> list(e.getAddresses()).stream()).toList();
    return new Printed(name(slice), text(slice.getAddressType()), firstThree(ports), firstThree(addresses),
        age(slice, now));
  }

  /** Upstream's listWithMoreString over at most three shown: {@code a,b,c + 2 more...}, {@code <unset>} when none. */
  private static String firstThree(List<String> values) {
    if (values.isEmpty()) {
      return "<unset>";
    }
    String shown = String.join(",", values.subList(0, Math.min(3, values.size())));
    return values.size() > 3 ? shown + " + " + (values.size() - 3) + " more..." : shown;
  }

  private static String name(HasMetadata object) {
    return object.getMetadata() == null ? "" : text(object.getMetadata().getName());
  }

  /** An RFC 3339 timestamp; null when absent (Go's zero time) or not a timestamp. */
  static Instant parse(String timestamp) {
    if (timestamp == null || timestamp.isEmpty()) {
      return null;
    }
    try {
      return OffsetDateTime.parse(timestamp).toInstant();
    } catch (DateTimeParseException e) {
      return null;
    }
  }

  private static Instant micro(MicroTime time) {
    return time == null ? null : parse(time.getTime());
  }

  private static String join(List<String> values) {
    return String.join(",", values);
  }

  private static String orNone(String value) {
    return value == null || value.isEmpty() ? "<none>" : value;
  }

  private static String firstNonEmpty(String first, String second) {
    return !text(first).isEmpty() ? first : text(second);
  }

  private static String text(String value) {
    return value == null ? "" : value;
  }

  private static int zero(Integer value) {
    return value == null ? 0 : value;
  }

  private static <T> List<T> list(List<T> values) {
    return values == null ? List.of() : values;
  }
}
