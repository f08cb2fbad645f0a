package io.ordinal.api.table;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ListMeta;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.apps.ControllerRevision;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.ordinal.api.table.Printers.Printed;
import io.ordinal.api.table.Printers.Printer;
import io.ordinal.api.table.Table.Row;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Server-side tables ({@code Accept: application/json;as=Table;v=v1;g=meta.k8s.io}), what
 * {@code kubectl get} renders, for statefulsets, pods, PVCs, events and controllerrevisions.
 * Pure: the caller lists the objects, picks the clock and writes the result as JSON or YAML.
 */
public final class Tables {
  private Tables() {}

  /** The {@code includeObject} query parameter: what each row carries besides its cells. */
  public enum IncludeObject {
    None, Metadata, Object;

    /**
     * Reads the parameter; absent or empty is {@code Metadata}, the server default.
     *
     * @throws IllegalArgumentException for other values, with upstream's message (a 400)
     */
    public static IncludeObject parse(String value) {
      if (value == null || value.isEmpty()) {
        return Metadata;
      }
      for (IncludeObject policy : values()) {
        if (policy.name().equals(value)) {
          return policy;
        }
      }
      throw new IllegalArgumentException("unrecognized includeObject value: \"" + value + "\"");
    }
  }

  /** The group version of a requested Table, which its PartialObjectMetadata rows share. */
  public enum Version {
    V1("meta.k8s.io/v1"), V1BETA1("meta.k8s.io/v1beta1");

    private final String apiVersion;

    Version(String apiVersion) {
      this.apiVersion = apiVersion;
    }

    public String apiVersion() {
      return apiVersion;
    }
  }

  private static final Map<Class<?>, Printer<?>> PRINTERS = Map.ofEntries(
      Map.entry(StatefulSet.class, Printers.STATEFUL_SETS),
      Map.entry(Pod.class, Printers.PODS),
      Map.entry(PersistentVolumeClaim.class, Printers.CLAIMS),
      Map.entry(Event.class, Printers.EVENTS),
      Map.entry(ControllerRevision.class, Printers.REVISIONS),
      Map.entry(Namespace.class, Printers.NAMESPACES),
      Map.entry(ConfigMap.class, Printers.CONFIG_MAPS),
      Map.entry(Secret.class, Printers.SECRETS),
      Map.entry(ServiceAccount.class, Printers.SERVICE_ACCOUNTS),
      Map.entry(Service.class, Printers.SERVICES),
      Map.entry(EndpointSlice.class, Printers.ENDPOINT_SLICES),
      Map.entry(RoleBinding.class, Printers.ROLE_BINDINGS),
      Map.entry(ClusterRoleBinding.class, Printers.ROLE_BINDINGS));

  /**
   * The table of {@code objects}, all of {@code kind} (a list or a single object; a kind is given
   * because an empty list still has columns). Ages are relative to {@code now}.
   *
   * @param metadata the list's resourceVersion and continue token, copied to the table
   * @throws IllegalArgumentException for an owner reference whose
   *     apiVersion is not a group version (upstream fails the request the same way)
   */
  public static <T extends HasMetadata> Table table(Class<T> kind, List<? extends T> objects, Instant now,
      IncludeObject include, Version version, ListMeta metadata) {
    @SuppressWarnings("unchecked")
    Printer<T> printer = (Printer<T>) PRINTERS.getOrDefault(kind, Printers.DEFAULT);
    List<Row> rows = new ArrayList<>(objects.size());
    for (T object : objects) {
      Printed printed = printer.print().apply(object, now);
      rows.add(new Row(printed.cells(), printed.conditions(), rowObject(object, include, version)));
    }
    return new Table("Table", version.apiVersion(), metadata == null ? new ListMeta() : metadata,
        printer.columns(), rows);
  }

  private static Object rowObject(HasMetadata object, IncludeObject include, Version version) {
    return switch (include) {
      case None -> null;
      case Metadata -> new Table.PartialObjectMetadata("PartialObjectMetadata", version.apiVersion(), object.getMetadata());
      case Object -> object;
    };
  }

  /**
   * The Table version an Accept header asks for, negotiated as the API server does
   * (apiserver's negotiation.NegotiateMediaTypeOptions over goautoneg.ParseAccept): clauses in
   * order of preference; the first one the server can serve wins. A clause is a Table when it
   * says {@code as=Table;g=meta.k8s.io;v=v1} (or {@code v1beta1}) of JSON or YAML; a plain JSON or
   * YAML clause wins as no table. kubectl sends the v1 Table, the v1beta1 Table, then
   * {@code application/json}.
   */
  public static Optional<Version> requestedTable(String accept) {
    if (accept == null || accept.isEmpty()) {
      return Optional.empty();
    }
    for (MediaRange range : MediaRange.parseAccept(accept)) {
      if (!range.matchesJsonOrYaml()) {
        continue;
      }
      String as = range.params().get("as");
      String group = range.params().get("g");
      String version = range.params().get("v");
      if (as == null && group == null && version == null) {
        return Optional.empty(); // the object itself, no conversion
      }
      Version table = !"meta.k8s.io".equals(group) ? null
          : "v1".equals(version) ? Version.V1 : "v1beta1".equals(version) ? Version.V1BETA1 : null;
      if (table != null && "Table".equals(as)) {
        return Optional.of(table);
      }
      if (table != null && ("PartialObjectMetadata".equals(as) || "PartialObjectMetadataList".equals(as))) {
        return Optional.empty(); // served by the API server, but not a table
      }
      // Any other conversion is not served: try the next clause.
    }
    return Optional.empty();
  }

  /** One clause of an Accept header, as goautoneg parses it. */
  record MediaRange(String type, String subType, double q, Map<String, String> params) {

    boolean matchesJsonOrYaml() {
      return type.equals("*") && subType.equals("*")
          || type.equals("application") && (subType.equals("*") || subType.equals("json") || subType.equals("yaml"));
    }

    static List<MediaRange> parseAccept(String header) {
      List<MediaRange> ranges = new ArrayList<>();
      for (String part : header.split(",", -1)) {
        String[] pieces = trimSpaces(part).split(";", -1);
        String[] typeAndSub = pieces[0].split("/", -1);
        String type = trimSpaces(typeAndSub[0]);
        String subType;
        if (typeAndSub.length == 1 && type.equals("*")) {
          subType = "*";
        } else if (typeAndSub.length == 2) {
          subType = trimSpaces(typeAndSub[1]);
        } else {
          continue;
        }
        double q = 1.0;
        Map<String, String> params = new HashMap<>();
        for (int i = 1; i < pieces.length; i++) {
          String[] keyValue = pieces[i].split("=", 2);
          if (keyValue.length != 2) {
            continue;
          }
          String key = trimSpaces(keyValue[0]);
          if (key.equals("q")) {
            q = parseQ(keyValue[1]);
          } else {
            params.put(key, trimSpaces(keyValue[1]));
          }
        }
        ranges.add(new MediaRange(type, subType, q, params));
      }
      // goautoneg's order: higher q first, then specific types before wildcards. Go sorts this
      // few clauses by insertion, which keeps the client's order among equals.
      for (int i = 1; i < ranges.size(); i++) {
        for (int j = i; j > 0 && ranges.get(j).before(ranges.get(j - 1)); j--) {
          ranges.set(j, ranges.set(j - 1, ranges.get(j)));
        }
      }
      return ranges;
    }

    /** goautoneg's Less, kept as it is (a wildcard loses to a specific type whatever their q). */
    private boolean before(MediaRange other) {
      if (q > other.q) return true;
      if (!type.equals("*") && other.type.equals("*")) return true;
      return !subType.equals("*") && other.subType.equals("*");
    }

    /** Go's strconv.ParseFloat: no surrounding spaces; a value that does not parse is 0. */
    private static double parseQ(String value) {
      if (value.isEmpty() || !value.equals(value.strip())) {
        return 0;
      }
      try {
        return Double.parseDouble(value);
      } catch (NumberFormatException e) {
        return 0;
      }
    }

    private static String trimSpaces(String s) {
      int start = 0;
      int end = s.length();
      while (start < end && s.charAt(start) == ' ') start++;
      while (end > start && s.charAt(end - 1) == ' ') end--;
      return s.substring(start, end);
    }
  }
}
